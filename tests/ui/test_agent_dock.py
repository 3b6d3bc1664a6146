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


def _struck(window, line: int, column: int) -> bool | None:  # type: ignore[no-untyped-def]
    """Whether the highlighter struck the character out; None before it formatted it."""
    block = window.note_editor.text_edit.document().findBlockByNumber(line - 1)
    for fmt_range in block.layout().formats():
        if fmt_range.start <= column < fmt_range.start + fmt_range.length:
            return bool(fmt_range.format.fontStrikeOut())
    return None


def _tip_at(window, line: int, column: int) -> str:  # type: ignore[no-untyped-def]
    edit = window.note_editor.text_edit
    cursor = QTextCursor(edit.document().findBlockByNumber(line - 1))
    cursor.setPosition(cursor.position() + column)
    rect = edit.cursorRect(cursor)
    return window.note_editor.annotation_tip(rect.center())


def test_ignored_annotations_are_struck_through_with_the_reason(qtbot, fts_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Importance in a daily note and a project comment without a name are shown as
    ignored where the user wrote them (struck through, a tooltip saying why); the same
    importance at the end of a MEMORY.md line is not."""
    daily = "- standup moved to ten <!-- importance: 9 -->\n- plain line\n- deploy notes <!-- project: -->\n"
    (workspace / "memory" / "2026-11-20.md").write_text(daily, encoding="utf-8")
    assert fts_window.open_note("memory/2026-11-20.md")
    column = daily.index("<!--") + 4
    qtbot.waitUntil(lambda: _struck(fts_window, 1, column) is not None)  # highlighting is deferred
    assert _struck(fts_window, 1, column) is True
    assert "only in MEMORY.md and USER.md" in _tip_at(fts_window, 1, column)
    assert _tip_at(fts_window, 1, 3) == ""  # the words before it have no tooltip
    project_column = daily.split("\n")[2].index("<!--") + 4
    assert _struck(fts_window, 3, project_column) is True
    assert "hides these lines from every search" in _tip_at(fts_window, 3, project_column)

    assert fts_window.open_note("MEMORY.md")
    edit = fts_window.note_editor.text_edit
    cursor = QTextCursor(edit.document())
    cursor.movePosition(QTextCursor.MoveOperation.End)
    cursor.insertText("\n- tea with Jonas <!-- importance: 8 -->")
    last = edit.document().blockCount()
    column = edit.document().lastBlock().text().index("<!--") + 4
    qtbot.waitUntil(lambda: _struck(fts_window, last, column) is not None)
    assert _struck(fts_window, last, column) is False
    assert _tip_at(fts_window, last, column) == ""
