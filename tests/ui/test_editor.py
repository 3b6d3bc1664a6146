"""Editor pieces on their own: safe preview, note file actions through the window."""

from __future__ import annotations

from pathlib import Path

from markdown_it import MarkdownIt
from PySide6.QtCore import QUrl

from memdesk.ui import editor
from tests.ui.conftest import wait_synced


def test_preview_escapes_raw_html_and_fetches_nothing(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Raw HTML in a note is shown as text, and no resource is ever loaded."""
    preview = editor.SafePreview()
    qtbot.addWidget(preview)
    md = MarkdownIt("commonmark", {"html": False})
    preview.show_markdown(md, "# Title\n\n<img src='http://example.invalid/x.png'> **bold**\n")
    text = preview.toPlainText()
    assert "Title" in text and "<img" in text  # shown literally, not rendered
    assert preview.loadResource(2, QUrl("http://example.invalid/x.png")) is None
    assert not preview.openLinks()


def test_rename_and_delete_note(qtbot, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Renaming and deleting from the app update disk, buffers and the tree."""
    window = make_window(workspace)
    window.open_note("memory/2026-05-06.md")
    assert window.rename_note("memory/2026-05-06.md", "memory/topics/renamed.md")
    assert (workspace / "memory/topics/renamed.md").is_file()
    assert window.note_editor.current_rel == "memory/topics/renamed.md"
    wait_synced(qtbot, window)
    model = window.tree.tree_model
    assert model.index_of("memory/topics/renamed.md").isValid()
    assert not model.index_of("memory/2026-05-06.md").isValid()
    assert window.delete_note("memory/topics/renamed.md")
    assert window.note_editor.current_rel == ""
    wait_synced(qtbot, window)
    assert not model.index_of("memory/topics/renamed.md").isValid()
