"""On a slow disk (each core write made to take 2 s) the window never freezes: a timer
on the GUI thread keeps ticking while a note is saved, created, renamed, trashed and
restored, the result is right afterwards, and a quit waits for a save in flight."""

from __future__ import annotations

import functools
import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QTextCursor

from memdesk.core.index import notes
from memdesk.core.index import trash as trash_mod
from memdesk.core.index import workspace as workspace_core

SLOW_S = 2.0
MAX_GAP_S = 1.0  # a frozen window would show a gap of the whole write
REL = "memory/2026-05-06.md"


@pytest.fixture
def fts_window(make_window, workspace: Path):  # type: ignore[no-untyped-def]
    return make_window(workspace, model=None)


def _slow(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(SLOW_S)
        return fn(*args, **kwargs)

    return slow


class Ticks:
    """A 20 ms timer on the GUI thread; ``max_gap`` is the longest time it went
    without ticking (from ``start`` to now), i.e. the longest freeze."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.timer = QTimer()
        self.timer.setInterval(20)
        self.timer.timeout.connect(lambda: self.times.append(time.monotonic()))

    def start(self) -> None:
        self.started = time.monotonic()
        self.times = []
        self.timer.start()

    def max_gap(self) -> float:
        marks = [self.started, *self.times, time.monotonic()]
        return max(b - a for a, b in itertools.pairwise(marks))


def _edit(window, text: str) -> None:  # type: ignore[no-untyped-def]
    window.open_note(REL)
    window.editor.moveCursor(QTextCursor.MoveOperation.Start)
    window.editor.insertPlainText(text)


def test_slow_save_keeps_the_window_running(qtbot, fts_window, workspace: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Ctrl+S on a slow disk: the window keeps ticking, the Save button is not stuck,
    the note has the new line and every other byte, and the buffer is clean after."""
    monkeypatch.setattr(workspace_core, "save_note", _slow(workspace_core.save_note))
    before = (workspace / REL).read_bytes()
    _edit(fts_window, "saved on a slow disk\n")
    ticks = Ticks()
    ticks.start()
    with qtbot.waitSignal(fts_window.note_editor.saved, timeout=int(SLOW_S * 1000) + 10_000):
        qtbot.keyClick(fts_window.editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert ticks.max_gap() < MAX_GAP_S, f"the window froze for {ticks.max_gap():.1f} s"
    assert (workspace / REL).read_bytes() == b"saved on a slow disk\n" + before
    assert not fts_window.note_editor.current_buffer.modified


def test_typing_during_a_slow_save_stays_unsaved_then_saves(
    qtbot, fts_window, workspace: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Text typed while the note is being written is not marked saved (nor lost): the
    disk has what was saved, the buffer stays dirty, and the next save writes both."""
    monkeypatch.setattr(workspace_core, "save_note", _slow(workspace_core.save_note))
    before = (workspace / REL).read_bytes()
    _edit(fts_window, "first\n")
    order: list[str] = []

    def type_more() -> None:
        order.append("typed")
        fts_window.editor.moveCursor(QTextCursor.MoveOperation.End)
        fts_window.editor.insertPlainText("typed meanwhile\n")

    fts_window.note_editor.saved.connect(lambda _rel: order.append("saved"))
    QTimer.singleShot(300, type_more)
    with qtbot.waitSignal(fts_window.note_editor.saved, timeout=int(SLOW_S * 1000) + 10_000):
        qtbot.keyClick(fts_window.editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert order == ["typed", "saved"]  # typed while the write was under way
    assert (workspace / REL).read_bytes() == b"first\n" + before
    buffer = fts_window.note_editor.current_buffer
    assert buffer.modified and buffer.text().endswith("typed meanwhile\n")
    assert fts_window.note_editor.save()
    assert (workspace / REL).read_bytes() == b"first\n" + before + b"typed meanwhile\n"
    assert not buffer.modified


@pytest.mark.parametrize("action", ["create", "rename", "delete", "undo delete"])
def test_slow_note_actions_keep_the_window_running(  # type: ignore[no-untyped-def]
    qtbot, fts_window, workspace: Path, trash_home: Path, monkeypatch, action: str
) -> None:
    """Create, rename, move to the trash and its Undo on a slow disk: the window keeps
    ticking through each, and the files, the editor and Undo are right after."""
    window = fts_window
    text = (workspace / REL).read_bytes()
    if action == "undo delete":
        assert window.delete_note(REL)
    window.open_note("MEMORY.md")
    for module, name in (
        (notes, "create_note"),
        (notes, "rename_note"),
        (notes, "delete_note"),
        (trash_mod, "restore"),
    ):
        monkeypatch.setattr(module, name, _slow(getattr(module, name)))
    ticks = Ticks()
    ticks.start()
    if action == "create":
        assert window.create_note("memory/slow-new.md", "# Slow new\n")
        assert (workspace / "memory/slow-new.md").read_text(encoding="utf-8") == "# Slow new\n"
    elif action == "rename":
        window.open_note(REL)
        assert window.rename_note(REL, "memory/topics/slow-renamed.md")
        assert (workspace / "memory/topics/slow-renamed.md").read_bytes() == text
        assert not (workspace / REL).exists()
        assert window.note_editor.current_rel == "memory/topics/slow-renamed.md"
    elif action == "delete":
        window.open_note(REL)
        window.tree.select_note(REL)
        window.tree.setFocus()
        qtbot.keyClick(window.tree, Qt.Key.Key_Delete)
        assert not (workspace / REL).exists()
        assert window.note_editor.current_rel == ""
        assert window.undo_button.isVisible() and window.undo_delete_action.isEnabled()
    else:
        window.undo_button.click()
        assert (workspace / REL).read_bytes() == text
        assert window.note_editor.current_rel == REL
        assert not window.undo_button.isVisible()
    assert ticks.max_gap() < MAX_GAP_S, f"the window froze for {ticks.max_gap():.1f} s"
    assert ticks.times and ticks.times[-1] - ticks.started > SLOW_S * 0.8  # it ticked through the write


def test_quit_during_a_slow_save_waits_for_it(qtbot, fts_window, workspace: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Ctrl+S, then quit at once while the note is still being written: the window
    keeps ticking, closes only once the save is done, and the note has the new bytes."""
    monkeypatch.setattr(workspace_core, "save_note", _slow(workspace_core.save_note))
    before = (workspace / REL).read_bytes()
    _edit(fts_window, "saved before quitting\n")
    asked: list[list[str]] = []
    fts_window.confirm_unsaved = lambda names: asked.append(names) or "discard"
    ticks = Ticks()
    ticks.start()
    qtbot.keyClick(fts_window.editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert fts_window.close()
    assert ticks.max_gap() < MAX_GAP_S, f"the window froze for {ticks.max_gap():.1f} s"
    assert not fts_window.isVisible()
    assert asked == []  # the save landed before the question: nothing was unsaved
    assert (workspace / REL).read_bytes() == b"saved before quitting\n" + before


def test_quit_with_unsaved_work_saves_all_on_a_slow_disk(
    qtbot, fts_window, workspace: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Quit with an unsaved note, answered Save all: the window keeps ticking while the
    save is written, then closes; the note has the new bytes."""
    monkeypatch.setattr(workspace_core, "save_note", _slow(workspace_core.save_note))
    before = (workspace / REL).read_bytes()
    _edit(fts_window, "saved by Save all\n")
    asked: list[list[str]] = []
    fts_window.confirm_unsaved = lambda names: asked.append(names) or "save"
    ticks = Ticks()
    ticks.start()
    assert fts_window.close()
    assert asked == [[REL]]
    assert ticks.max_gap() < MAX_GAP_S, f"the window froze for {ticks.max_gap():.1f} s"
    assert not fts_window.isVisible()
    assert (workspace / REL).read_bytes() == b"saved by Save all\n" + before
    fts_window.confirm_unsaved = lambda names: "discard"
