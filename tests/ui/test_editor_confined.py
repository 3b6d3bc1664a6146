"""The editor saves a note only inside the workspace: a folder swapped for a symlink
leading out after the note was opened is refused with one line, nothing written there."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox

from memdesk.ui import editor

REL = "memory/topics/plan.md"


def test_save_through_a_folder_that_became_a_symlink_out_is_refused(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "ws"
    (root / "memory" / "topics").mkdir(parents=True)
    (root / REL).write_text("# Plan\n", encoding="utf-8")
    widget = editor.NoteEditor(root)
    qtbot.addWidget(widget)
    assert widget.open_note(REL)
    widget.text_edit.textCursor().insertText("typed\n")
    moved = tmp_path / "outside"
    (root / "memory" / "topics").rename(moved)
    (root / "memory" / "topics").symlink_to(moved, target_is_directory=True)
    assert widget.save() is False
    box = next(w for w in QApplication.topLevelWidgets() if w.objectName() == "errorDialog")
    assert isinstance(box, QMessageBox)
    assert box.text() == (
        f"memory/topics is a symlink to {moved} outside the workspace: memdesk writes only inside {root}"
    )
    box.close()
    assert (moved / "plan.md").read_text(encoding="utf-8") == "# Plan\n"
    assert widget.current_buffer is not None and widget.current_buffer.modified  # the edit is kept
