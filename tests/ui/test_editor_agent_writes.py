"""An agent writing to the note the user is typing in (the real watcher, real files,
keystrokes sent where the application's focus is, as a keyboard's are): no keystroke
is taken by a dialog, markers never nest, and memdesk's unresolved markers never
reach the file, however the typing lands around them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication

from memdesk.core.index import notetext
from memdesk.qt import watcher
from memdesk.ui import conflicts, editor
from tests.ui.modal import answer_modal

REL = "memory/2026-11-12.md"
BASE = "# 2026-11-12\n\n- agent: started the day\n"


class Desk:
    """The editor on a real workspace, fed by the real (debounced) watcher."""

    def __init__(self, qtbot, root: Path) -> None:  # type: ignore[no-untyped-def]
        self.qtbot = qtbot
        self.path = root / REL
        self.widget = editor.NoteEditor(root)
        qtbot.addWidget(self.widget)
        self.widget.resize(900, 600)
        self.widget.show()
        qtbot.waitExposed(self.widget)
        self.bridge = watcher.WatchBridge(root, debounce_ms=40)
        self.bridge.paths_changed.connect(self.widget.on_files_changed)
        self.bridge.start()
        self.appended = 0
        assert self.widget.open_note(REL)
        self.widget.text_edit.moveCursor(QTextCursor.MoveOperation.End)
        self.widget.activateWindow()
        self.widget.text_edit.setFocus()
        qtbot.waitUntil(self.widget.text_edit.hasFocus, timeout=2000)

    def type(self, text: str) -> None:
        """Each key goes to the focused widget, wherever the focus is now (a dialog
        that took it gets the keys, as it did at the real display)."""
        for char in text:
            target = QApplication.focusWidget()
            assert target is not None
            self.qtbot.keyClicks(target, char)  # a space is Qt.Key_Space: it presses a button

    def agent_appends(self) -> str:
        """The agent appends a line; returns once the watcher reported it and the
        editor handled the report."""
        line = f"- agent: note {self.appended}\n"
        self.appended += 1
        with (
            self.qtbot.waitSignal(self.bridge.paths_changed, timeout=5000),
            open(self.path, "a", encoding="utf-8") as handle,
        ):
            handle.write(line)
        return line

    @property
    def text(self) -> str:
        buffer = self.widget.current_buffer
        assert buffer is not None
        return buffer.text()


@pytest.fixture
def desk(qtbot, tmp_path: Path) -> Iterator[Desk]:  # type: ignore[no-untyped-def]
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    (tmp_path / REL).write_text(BASE, encoding="utf-8")
    made = Desk(qtbot, tmp_path)
    yield made
    made.bridge.stop()


def _merge_with_one_conflict(desk: Desk) -> None:
    """The user types a last line, the agent appends one: Merge leaves one hunk."""
    desk.qtbot.keyClicks(desk.widget.text_edit, "user line")
    desk.agent_appends()
    dialog = desk.widget.open_dialog(REL)
    assert dialog is not None
    # From the keyboard: F8 goes to the bar, Space presses Merge, and the keyboard is
    # back in the editor (Qt gave it to the notes filter when the bar hid).
    desk.widget.disk_bar_action.trigger()
    assert dialog.merge_button.hasFocus()
    with desk.qtbot.waitSignal(desk.widget.merged, timeout=5000) as merged:
        desk.type(" ")
    assert merged.args == [REL, 1] and "<<<<<<< yours\nuser line\n=======\n" in desk.text
    assert desk.widget.text_edit.hasFocus()


def test_an_agent_appending_while_the_user_types_takes_no_keystroke(desk: Desk) -> None:
    """The incident: an append every few words at the end of the note the user types
    at the end of. A modal dialog opened at the first append and the next space pressed
    its focused Merge. Now every key lands in the editor, in order; the bar above it
    asks once and counts the further changes; Merge takes the newest disk version."""
    asked: list[str] = []
    desk.widget.conflict_detected.connect(asked.append)
    typed = ""
    for number in range(6):
        word = f"word{number} "
        desk.type(word[:3])
        desk.agent_appends()
        desk.type(word[3:])  # goes on mid-word, then the space that pressed Merge
        typed += word
        assert QApplication.activeModalWidget() is None
        assert desk.widget.text_edit.hasFocus()
    assert desk.text == BASE + typed  # every keystroke, in order; nothing merged unasked
    assert asked == [REL]  # one bar, not one dialog per append
    dialog = desk.widget.open_dialog(REL)
    assert dialog is not None and dialog.isVisibleTo(desk.widget) and dialog.default_button is None
    assert dialog.changes_again == 5 and "changed on disk again (5 times" in dialog.status_label.text()
    with desk.qtbot.waitSignal(desk.widget.merged, timeout=5000) as merged:
        # With the mouse: the clicked button kept the focus, and when the bar closed
        # Qt passed it on (at the display, the next words went into the notes filter).
        desk.qtbot.mouseClick(dialog.merge_button, Qt.MouseButton.LeftButton)
    assert merged.args == [REL, 1] and desk.widget.text_edit.hasFocus()
    agent = "".join(f"- agent: note {n}\n" for n in range(6))
    assert desk.text == BASE + f"<<<<<<< yours\n{typed}\n=======\n{agent}>>>>>>> on disk\n"
    # The cursor is on the user's line inside the hunk: typing on keeps the markers whole.
    desk.type("more")
    assert len(desk.widget.conflict_hunks) == 1 and f"{typed}more\n" in desk.text


def test_a_change_while_merge_markers_are_unresolved_does_not_nest_them(desk: Desk) -> None:
    """A second append while the first merge's hunk is unresolved: the bar says the
    file changed and Merge waits (merging would put markers inside markers); once the
    hunk is resolved Merge takes every agent line and the note saves clean."""
    _merge_with_one_conflict(desk)
    desk.type(" and more")
    desk.agent_appends()
    dialog = desk.widget.open_dialog(REL)
    assert dialog is not None and QApplication.activeModalWidget() is None
    assert not dialog.merge_button.isEnabled() and "Merge waits" in dialog.status_label.text()
    dialog.merge_button.click()  # a disabled button does nothing
    desk.type("!")
    assert desk.text.count(notetext.MINE_MARKER) == 1 and desk.text.count(notetext.THEIRS_MARKER) == 1
    assert "user line and more!" in desk.text
    assert desk.widget.resolve_conflict("both")
    desk.qtbot.waitUntil(dialog.merge_button.isEnabled, timeout=2000)
    with desk.qtbot.waitSignal(desk.widget.merged, timeout=5000) as merged:
        dialog.merge_button.click()
    assert merged.args == [REL, 0]
    with desk.qtbot.waitSignal(desk.widget.saved, timeout=5000):
        assert desk.widget.save()
    on_disk = desk.path.read_text(encoding="utf-8")
    assert "<<<<<<<" not in on_disk and ">>>>>>>" not in on_disk and "=======" not in on_disk
    assert "user line and more!\n" in on_disk
    assert "- agent: note 0\n" in on_disk and "- agent: note 1\n" in on_disk


# Where the keys land on which marker line, the side taken on the bar, and the note
# saved: the typed words stay on their own line where the marker was, whatever is taken.
TYPED_ON_MARKERS = {
    "before-mine-marker": ("start", "before", "mine", "typed here \nuser line\n"),
    "after-mine-marker": ("start", "after", "theirs", "typed here\n- agent: note 0\n"),
    "after-middle-marker": ("middle", "after", "both", "user line\ntyped here\n- agent: note 0\n"),
    "after-disk-marker": ("end", "after", "theirs", "- agent: note 0\ntyped here\n"),
}


@pytest.mark.parametrize("marker,where,take,resolved", TYPED_ON_MARKERS.values(), ids=TYPED_ON_MARKERS)
def test_typing_onto_a_marker_line_leaves_the_conflict_for_the_bar_to_resolve(
    desk: Desk, marker: str, where: str, take: str, resolved: str
) -> None:
    """Keys that land on a marker line (the cursor sat on ``<<<<<<< yours``, as at the
    real display, or after ``=======``) no longer hide the conflict: the bar still
    counts it, the save is refused with a line that says to take a side (and that is
    true), the bar's button resolves it, and the typed words are kept, not dropped
    with the marker. One Ctrl+Z gives the hunk back as it was; the note then saves
    with no marker and the typed words."""
    _merge_with_one_conflict(desk)
    hunk = desk.widget.conflict_hunks[0]
    block = desk.widget.text_edit.document().findBlockByNumber(getattr(hunk, marker))
    cursor = QTextCursor(block)
    if where == "after":
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
    desk.widget.text_edit.setTextCursor(cursor)
    desk.type("typed here " if where == "before" else " typed here")
    desk.qtbot.wait(2 * conflicts.ConflictHunks.SCAN_MS)  # the hunks are looked for again
    assert desk.widget.conflict_hunks == [hunk] and desk.widget.conflict_bar.isVisible()
    text, on_disk = desk.text, desk.path.read_bytes()
    seen = answer_modal("Save anyway")  # had a box asked, the old answer: no box now
    with desk.qtbot.waitSignal(desk.widget.save_refused, timeout=5000) as refused:
        assert desk.widget.save() is False
    assert desk.path.read_bytes() == on_disk and desk.text == text and seen == []
    assert refused.args[0].startswith(f"{REL} not saved: line {hunk.start + 1} ")
    assert "Take mine, theirs or both" in refused.args[0]  # the bar can: the line is true
    assert QApplication.activeModalWidget() is None
    desk.qtbot.mouseClick(desk.widget.conflict_bar.buttons[take], Qt.MouseButton.LeftButton)
    assert desk.text == BASE + resolved and desk.widget.conflict_hunks == []
    cursor = desk.widget.text_edit.textCursor()  # at the end of the words it was typing
    assert cursor.block().text().strip() == "typed here" and cursor.atBlockEnd()
    assert not desk.widget.conflict_bar.isVisible() and desk.widget.refusal_label.isHidden()
    desk.widget.text_edit.undo()  # one step: the hunk, typed words and all
    assert desk.text == text
    desk.qtbot.waitUntil(lambda: desk.widget.conflict_hunks == [hunk], timeout=2000)
    desk.qtbot.mouseClick(desk.widget.conflict_bar.buttons[take], Qt.MouseButton.LeftButton)
    with desk.qtbot.waitSignal(desk.widget.saved, timeout=5000):
        assert desk.widget.save()
    assert desk.path.read_text(encoding="utf-8") == BASE + resolved


def test_a_conflict_whose_markers_were_edited_away_is_refused_with_a_true_line(desk: Desk) -> None:
    """A marker line deleted by hand leaves the hunk incomplete: the bar no longer
    shows it, so the refusal names the marker still there and says to delete it,
    not to use Take buttons that cannot act on it."""
    _merge_with_one_conflict(desk)
    hunk = desk.widget.conflict_hunks[0]
    cursor = QTextCursor(desk.widget.text_edit.document().findBlockByNumber(hunk.middle))
    cursor.movePosition(QTextCursor.MoveOperation.NextBlock, QTextCursor.MoveMode.KeepAnchor)
    cursor.removeSelectedText()  # the ``=======`` line goes
    desk.qtbot.waitUntil(lambda: desk.widget.conflict_hunks == [], timeout=2000)
    with desk.qtbot.waitSignal(desk.widget.save_refused, timeout=5000) as refused:
        assert desk.widget.save() is False
    message = refused.args[0]
    assert message.startswith(f"{REL} not saved: line {hunk.start + 1} still holds")
    assert "Take" not in message and "delete that marker line" in message and "\n" not in message


def test_a_note_about_git_with_marker_lines_still_saves(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Marker lines the user wrote (a note about git) are text: they save, typed in
    the editor, and also after a merge of this note left (and the user resolved) a
    hunk of memdesk's own."""
    (tmp_path / "memory").mkdir()
    path = tmp_path / REL
    path.write_text(BASE, encoding="utf-8")
    desk = Desk(qtbot, tmp_path)
    try:
        git = "\nA git conflict looks like:\n<<<<<<< yours\nmine\n=======\ntheirs\n>>>>>>> on disk\n"
        desk.widget.text_edit.insertPlainText(git)
        seen = answer_modal("Save anyway")
        with qtbot.waitSignal(desk.widget.saved, timeout=5000):
            assert desk.widget.save()
        assert path.read_text(encoding="utf-8") == BASE + git and seen == []  # nothing asked
        _merge_with_one_conflict(desk)
        seen = answer_modal("Cancel")
        assert desk.widget.save() is False  # memdesk's own hunk is unresolved
        assert seen == []
        memdesk_hunk = desk.widget.conflict_hunks[-1]
        assert desk.widget.resolve_conflict("both", memdesk_hunk)
        with qtbot.waitSignal(desk.widget.saved, timeout=5000):
            assert desk.widget.save()
        assert (
            path.read_text(encoding="utf-8").count("<<<<<<< yours\nmine\n=======\ntheirs\n>>>>>>> on disk\n")
            == 1
        )
    finally:
        desk.bridge.stop()


@pytest.mark.parametrize("take", ["both", "mine"])
def test_after_a_take_the_next_keys_go_where_the_user_was_typing(desk: Desk, take: str) -> None:
    """The incident at the display: the user typed a line, the agent appended, Merge
    put markers round the user's line with the cursor still at its end; Take both
    moved the cursor to the start of the line, so the next words went in front of it.
    Now the words go on at its end, and one Ctrl+Z takes back the take alone."""
    _merge_with_one_conflict(desk)
    merged = desk.text
    desk.qtbot.mouseClick(desk.widget.conflict_bar.buttons[take], Qt.MouseButton.LeftButton)
    assert desk.widget.text_edit.hasFocus()
    desk.type(" and more")
    agent = "- agent: note 0\n" if take == "both" else ""
    assert desk.text == BASE + "user line and more\n" + agent
    desk.widget.text_edit.undo()  # the words typed after the take
    desk.widget.text_edit.undo()  # the take: one step
    assert desk.text == merged


def test_ctrl_z_after_a_quiet_merge_leaves_the_cursor_where_the_user_types(desk: Desk) -> None:
    """An agent's append merged in under the user's edit is one undo step (Ctrl+Z takes
    the agent's line back out of the buffer); the undo left the cursor at the note's
    first character, so the next words went there and the view jumped to the top."""
    first = desk.widget.text_edit.document().firstBlock()
    cursor = QTextCursor(first)
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
    desk.widget.text_edit.setTextCursor(cursor)
    desk.type(" edited")
    with desk.qtbot.waitSignal(desk.widget.merged, timeout=5000):
        desk.agent_appends()
    assert desk.text == BASE.replace("# 2026-11-12", "# 2026-11-12 edited") + "- agent: note 0\n"
    desk.qtbot.keyClick(desk.widget.text_edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert desk.text == BASE.replace("# 2026-11-12", "# 2026-11-12 edited")
    desk.type("!")
    assert desk.text.startswith("# 2026-11-12 edited!\n")
