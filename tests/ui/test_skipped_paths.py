"""Paths the index passed over are counted in the status bar and listed with their reasons."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt


def test_status_bar_lists_skipped_paths_with_reasons(qtbot, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """A UTF-16 note, a binary one and a symlink are named with why, as `memdesk status` does."""
    (workspace / "memory" / "utf16.md").write_bytes("# note\n\nwritten by Notepad\n".encode("utf-16"))
    (workspace / "memory" / "blob.md").write_bytes(b"\x00\x01\x02 binary\n")
    os.symlink(workspace / "MEMORY.md", workspace / "memory" / "link.md")
    window = make_window(workspace, model=None)
    qtbot.waitUntil(lambda: window.skipped_button.isVisible(), timeout=30_000)
    assert window.skipped_button.text() == "3 skipped"

    qtbot.mouseClick(window.skipped_button, Qt.MouseButton.LeftButton)
    dialog = window.skipped_dialog
    assert dialog is not None and dialog.isVisible()
    reasons = dict(dialog.rows())
    assert set(reasons) == {"memory/utf16.md", "memory/blob.md", "memory/link.md"}
    assert "UTF-16" in reasons["memory/utf16.md"] and "UTF-8" in reasons["memory/utf16.md"]
    assert "binary" in reasons["memory/blob.md"]
    assert "symlink" in reasons["memory/link.md"]
    # The reason is said once, without the path it belongs to repeated in front.
    assert not any(reason.startswith(path) for path, reason in reasons.items())
    dialog.close()

    # Fixing the notes empties the list: the button goes away with the next sync.
    for name in ("utf16.md", "blob.md", "link.md"):
        (workspace / "memory" / name).unlink()
    window.session.request_sync()
    qtbot.waitUntil(lambda: not window.skipped_button.isVisible(), timeout=30_000)


def test_skipped_count_stays_under_a_status_message(qtbot, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """A status message (a merge, a move to the trash) hides the count; a sync finishing
    meanwhile does not draw it back over the message, and it returns with the message gone."""
    (workspace / "memory" / "blob.md").write_bytes(b"\x00\x01\x02 binary\n")
    window = make_window(workspace, model=None)
    qtbot.waitUntil(lambda: window.skipped_button.isVisible(), timeout=30_000)
    window.statusBar().showMessage("memory/2026-06-01.md: changes made on disk were merged with yours")
    assert not window.skipped_button.isVisible()
    with qtbot.waitSignal(window.session.snapshot_changed, timeout=30_000):
        window.session.request_snapshot()
    assert not window.skipped_button.isVisible()
    window.statusBar().clearMessage()
    assert window.skipped_button.isVisible() and window.skipped_button.text() == "1 skipped"


def test_nothing_skipped_shows_no_count(qtbot, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(workspace, model=None)
    qtbot.waitUntil(lambda: window.counts_label.text() != "", timeout=30_000)
    assert not window.skipped_button.isVisible()
