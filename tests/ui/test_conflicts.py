"""Resolving what a Merge marked: the bar above the editor, take mine / theirs / both
per hunk (bar, keys, context menu), the highlight that goes with the last marker,
and the exact bytes of every line the user did not touch."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QMenu

from memdesk.core.index import notetext
from memdesk.ui import conflicts, editor

REL = "memory/2026-06-01.md"
# A BOM, CRLF line ends and one lone CR: the lines nobody touches must come back so.
BASE = "\ufeff" + "".join(f"line {i}\r\n" for i in range(12)).replace("line 7\r\n", "line 7\r")


def _setup(qtbot, tmp_path: Path) -> tuple[editor.NoteEditor, Path]:  # type: ignore[no-untyped-def]
    path = tmp_path / REL
    path.parent.mkdir(parents=True)
    path.write_bytes(BASE.encode("utf-8"))
    widget = editor.NoteEditor(tmp_path)
    qtbot.addWidget(widget)
    widget.resize(900, 600)
    widget.show()
    qtbot.waitExposed(widget)
    assert widget.open_note(REL)
    for number, text in ((2, "mine 2"), (5, "mine 5"), (9, "mine 9")):
        block = widget.text_edit.document().findBlockByNumber(number)
        cursor = QTextCursor(block)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(text)
    theirs = BASE.replace("line 2\r\n", "theirs 2\r\n").replace("line 5\r\n", "theirs 5\r\n")
    theirs = theirs.replace("line 9\r\n", "theirs 9a\r\ntheirs 9b\r\n")
    path.write_bytes(theirs.encode("utf-8"))
    with qtbot.waitSignal(widget.conflict_detected, timeout=5000):
        widget.on_files_changed([REL])
    with qtbot.waitSignal(widget.conflicts_changed, timeout=5000) as changed:
        widget.open_dialog(REL).merge_button.click()  # type: ignore[union-attr]
    assert changed.args == [3]
    # The Merge left the cursor where it was (line 0, before the hunks); F7 goes to the first.
    assert widget.text_edit.textCursor().blockNumber() == 0
    assert widget.conflict_bar.label.text() == "3 conflicts to resolve"
    assert widget.go_to_conflict(1)
    # Back from the dialog: the window shortcuts (Alt+1…3, F7) need the active window.
    widget.windowHandle().requestActivate()
    qtbot.waitUntil(widget.isActiveWindow, timeout=2000)
    return widget, path


def test_conflict_bar_and_highlight_follow_the_hunks(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    widget, _path = _setup(qtbot, tmp_path)
    bar = widget.conflict_bar
    assert bar.isVisible() and bar.label.text() == "Conflict 1 of 3"  # the cursor is on the first
    assert widget.text_edit.extraSelections()
    assert all(a.isEnabled() for a in widget.conflict_actions)
    widget.next_conflict_action.trigger()
    assert bar.label.text() == "Conflict 2 of 3"
    widget.previous_conflict_action.trigger()
    widget.previous_conflict_action.trigger()  # wraps round to the last
    assert bar.label.text() == "Conflict 3 of 3"
    # Typing onto a marker line keeps the hunk; deleting a marker line by hand
    # resolves it as far as the editor is concerned.
    hunk = widget.conflict_hunks[0]
    cursor = QTextCursor(widget.text_edit.document().findBlockByNumber(hunk.start))
    cursor.insertText("x")
    qtbot.wait(2 * conflicts.ConflictHunks.SCAN_MS)
    assert len(widget.conflict_hunks) == 3
    cursor.select(QTextCursor.SelectionType.BlockUnderCursor)
    cursor.removeSelectedText()
    qtbot.waitUntil(lambda: len(widget.conflict_hunks) == 2, timeout=2000)
    assert bar.label.text().startswith("Conflict")


def test_take_mine_theirs_both_keep_every_untouched_byte(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Alt+2 takes theirs, the bar's button takes mine, the context menu takes both;
    the highlight, the bar and the actions go with the last hunk; the save writes
    the chosen lines and every other line exactly as it was (BOM, CRLF, lone CR)."""
    widget, path = _setup(qtbot, tmp_path)
    counts: list[int] = []
    widget.conflicts_changed.connect(counts.append)
    # Keyboard: the cursor is in the first hunk.
    qtbot.keyClick(widget.text_edit, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    assert counts == [2] and widget.conflict_bar.label.text() != "Conflict 1 of 3"
    # The bar: acts on the hunk after the cursor.
    widget.conflict_bar.buttons["mine"].click()
    assert counts == [2, 1]
    # The context menu on the last hunk: its take actions come first.
    hunk = widget.conflict_hunks[0]
    block = widget.text_edit.document().findBlockByNumber(hunk.start + 1)
    widget.text_edit.moveCursor(QTextCursor.MoveOperation.Start)
    pos = widget.text_edit.cursorRect(QTextCursor(block)).center()
    shown: list[list[str]] = []

    def pick() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(10, pick)
            return
        texts = [a.text() for a in menu.actions()]
        shown.append(texts)
        next(a for a in menu.actions() if a.text() == "Take both").trigger()
        menu.close()

    QTimer.singleShot(0, pick)
    widget.text_edit.customContextMenuRequested.emit(pos)
    assert shown and shown[0][:3] == ["Take mine", "Take theirs", "Take both"]
    assert counts == [2, 1, 0]
    assert widget.text_edit.extraSelections() == []  # no highlight is left
    assert not widget.conflict_bar.isVisible()
    assert not any(a.isEnabled() for a in widget.conflict_actions)
    assert notetext.MINE_MARKER not in widget.current_buffer.text()  # type: ignore[union-attr]
    with qtbot.waitSignal(widget.saved, timeout=5000):
        assert widget.save() is True
    expected = (
        BASE.replace("line 2\r\n", "theirs 2\r\n")
        .replace("line 5\r\n", "mine 5\r\n")
        .replace("line 9\r\n", "mine 9\r\ntheirs 9a\r\ntheirs 9b\r\n")
    )
    assert path.read_bytes() == expected.encode("utf-8")


def test_undo_brings_a_resolved_hunk_and_its_highlight_back(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    widget, _path = _setup(qtbot, tmp_path)
    text = widget.current_buffer.text()  # type: ignore[union-attr]
    for _ in range(3):
        assert widget.resolve_conflict("theirs")
    assert widget.conflict_hunks == [] and widget.text_edit.extraSelections() == []
    widget.text_edit.undo()
    qtbot.waitUntil(lambda: len(widget.conflict_hunks) == 1, timeout=2000)
    assert widget.text_edit.extraSelections() and widget.conflict_bar.isVisible()
    widget.text_edit.undo()
    widget.text_edit.undo()
    qtbot.waitUntil(lambda: len(widget.conflict_hunks) == 3, timeout=2000)
    assert widget.current_buffer.text() == text  # type: ignore[union-attr]


def test_taking_an_empty_side_removes_the_hunk_lines(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A side with no lines (the user deleted a line the disk changed) leaves no blank line."""
    path = tmp_path / REL
    path.parent.mkdir(parents=True)
    path.write_text("a\nb\nc\n")
    widget = editor.NoteEditor(tmp_path)
    qtbot.addWidget(widget)
    assert widget.open_note(REL)
    cursor = QTextCursor(widget.text_edit.document().findBlockByNumber(1))
    cursor.movePosition(QTextCursor.MoveOperation.NextBlock, QTextCursor.MoveMode.KeepAnchor)
    cursor.removeSelectedText()  # mine: "a\nc\n"
    path.write_text("a\nB\nc\n")
    with qtbot.waitSignal(widget.conflict_detected, timeout=5000):
        widget.on_files_changed([REL])
    widget.open_dialog(REL).merge_button.click()  # type: ignore[union-attr]
    assert len(widget.conflict_hunks) == 1
    assert widget.resolve_conflict("mine")
    assert widget.current_buffer.text() == "a\nc\n"  # type: ignore[union-attr]


def _at(widget: editor.NoteEditor, number: int, column: int) -> None:
    cursor = QTextCursor(widget.text_edit.document().findBlockByNumber(number))
    cursor.setPosition(cursor.position() + column)
    widget.text_edit.setTextCursor(cursor)


def _where(widget: editor.NoteEditor) -> tuple[str, int]:
    cursor = widget.text_edit.textCursor()
    return cursor.block().text(), cursor.positionInBlock()


def test_a_take_keeps_the_cursor_on_the_text_it_was_on(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Where the cursor goes after a take: on a kept line it stays on its character;
    on a line the take drops (a marker, the side not taken), at the end of the
    resolved text; outside the hunk (the bar acts on the next one) it does not move.
    Each take is one undo step."""
    widget, _path = _setup(qtbot, tmp_path)
    first, second, _third = widget.conflict_hunks
    # In the user's side, mid-line: Take both leaves it on the same character.
    _at(widget, first.start + 1, 4)
    text = widget.current_buffer.text()  # type: ignore[union-attr]
    widget.conflict_bar.buttons["both"].click()
    assert _where(widget) == ("mine 2", 4) and len(widget.conflict_hunks) == 2
    qtbot.keyClick(widget.text_edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert widget.current_buffer.text() == text  # type: ignore[union-attr]
    # Where it was before the take (Qt's undo of an edit block went to the note's start).
    assert _where(widget) == ("mine 2", 4)
    qtbot.waitUntil(lambda: len(widget.conflict_hunks) == 3, timeout=2000)
    # On the user's side again, and the disk's is taken: the end of what is left.
    _at(widget, second.start + 1, 3)
    qtbot.keyClick(widget.text_edit, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    assert _where(widget) == ("theirs 5", len("theirs 5"))
    # On a marker line: the end of the resolved text too.
    _at(widget, widget.conflict_hunks[-1].middle, 0)
    widget.conflict_bar.buttons["both"].click()
    assert _where(widget) == ("theirs 9b", len("theirs 9b"))
    # Outside any hunk, before them: the bar takes the first, the cursor stays.
    _at(widget, 0, 3)
    widget.conflict_bar.buttons["mine"].click()
    assert widget.conflict_hunks == [] and _where(widget) == ("line 0", 3)
    assert widget.text_edit.textCursor().blockNumber() == 0


def test_a_take_after_the_cursor_leaves_it_on_its_line(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The cursor below the hunks (typing at the note's end): the bar's take acts on a
    hunk above it, and the cursor stays on the line it was typing in."""
    widget, _path = _setup(qtbot, tmp_path)
    last = widget.text_edit.document().blockCount() - 2  # "line 11" (an empty line follows)
    _at(widget, last, 5)
    assert _where(widget) == ("line 11", 5)
    widget.conflict_bar.buttons["theirs"].click()  # the next hunk, wrapping: the first
    assert len(widget.conflict_hunks) == 2 and _where(widget) == ("line 11", 5)


def test_a_bar_opening_above_the_editor_keeps_the_cursor_line_in_sight(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """At 1280x800 the editor shows ~10 lines; the user types on the last one shown, the
    agent writes, and the changed-on-disk bar (then the save's refusal line) takes
    rows from the editor: the line being typed on went out of sight under them."""
    path = tmp_path / REL
    path.parent.mkdir(parents=True)
    path.write_text("".join(f"line {i}\n" for i in range(60)), encoding="utf-8")
    widget = editor.NoteEditor(tmp_path)
    qtbot.addWidget(widget)
    widget.resize(420, 260)
    widget.show()
    qtbot.waitExposed(widget)
    assert widget.open_note(REL)
    edit = widget.text_edit

    def in_sight() -> bool:
        rect = edit.cursorRect()
        return rect.top() >= 0 and rect.bottom() <= edit.viewport().height()

    edit.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(edit, "mine")  # the last line, at the viewport's bottom edge
    assert in_sight()
    path.write_text(path.read_text(encoding="utf-8") + "theirs\n", encoding="utf-8")
    with qtbot.waitSignal(widget.conflict_detected, timeout=5000):
        widget.on_files_changed([REL])
    qtbot.waitUntil(lambda: widget.open_dialog(REL) is not None and widget.open_dialog(REL).isVisible())  # type: ignore[union-attr]
    qtbot.waitUntil(in_sight, timeout=2000)
    widget.open_dialog(REL).merge_button.click()  # type: ignore[union-attr]
    assert widget.save() is False  # the refusal's line opens above the editor too
    assert not widget.refusal_label.isHidden()
    qtbot.waitUntil(in_sight, timeout=2000)
