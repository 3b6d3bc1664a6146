"""The main window's agent dock: importance from the editor, highlighted annotations, menu wiring."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QTextCursor


@pytest.fixture
def fts_window(make_window, workspace: Path):  # type: ignore[no-untyped-def]
    return make_window(workspace, model=None)


def _select_line(window, number: int) -> None:  # type: ignore[no-untyped-def]
    edit = window.note_editor.text_edit
    block = edit.document().findBlockByNumber(number - 1)
    cursor = QTextCursor(block)
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
    edit.setTextCursor(cursor)


def test_set_importance_on_a_curated_line(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    assert fts_window.open_note("MEMORY.md")
    edit = fts_window.note_editor.text_edit
    lines = edit.toPlainText().split("\n")
    target = next(i for i, line in enumerate(lines, start=1) if line.startswith("- **Zhou Hang"))
    _select_line(fts_window, target)
    assert fts_window.agent_dock.set_importance(8)
    after = edit.toPlainText().split("\n")
    assert after[target - 1] == lines[target - 1] + " <!-- importance: 8 -->"
    assert after[: target - 1] == lines[: target - 1] and after[target:] == lines[target:]
    assert "save the note" in fts_window.statusBar().currentMessage()
    assert fts_window.note_editor.current_buffer.modified  # an edit like any other: not saved behind the user
    edit.document().undo()
    assert edit.toPlainText().split("\n") == lines  # one undo step


def test_importance_outside_curated_roots_warns(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    assert fts_window.open_note("memory/2026-05-01.md")
    _select_line(fts_window, 3)
    fts_window.agent_dock.set_importance(5)
    assert "ignores it" in fts_window.statusBar().currentMessage()


def test_agent_menu_and_apply_button(fts_window) -> None:  # type: ignore[no-untyped-def]
    titles = [a.text() for a in fts_window.agent_menu.actions() if a.text()]
    assert any("agent panel" in t for t in titles) and any("OpenClaw" in t for t in titles)
    assert not fts_window.agent_dock.isVisible()  # nothing reads ~/.openclaw until asked
    assert fts_window.agent_dock.controller.setup is None
