"""Restores from the History panel and the Changes view, through the one safe save.

A restore (a whole version, or one hunk taken back) is computed on the note's text
at the moment of the write and written by ``workspace.save_note`` in the window's
``note_ops`` queue, after any save asked before it, exactly as the editor saves; it
becomes a new version (source "memdesk") and nothing in the store is touched.

A note open in the editor with unsaved edits is never written under them: the
restore goes into the editor's buffer instead (one undo step, so Ctrl+Z gives the
edits back), and the user saves when ready.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from memdesk.core import errors
from memdesk.qt import history_data, jobs, note_ops
from memdesk.ui import editor as editor_mod
from memdesk.ui import errors as ui_errors


class Restorer(QObject):
    """Writes restores for the window ``parent``.

    Signals:
        restored(str): a note was restored on disk (a new version exists now).
        into_editor(str): a restore went into the note's unsaved editor buffer.
        message(str, int): a status-bar line and how long it stays (ms).
    """

    restored = Signal(str)
    into_editor = Signal(str)
    message = Signal(str, int)

    def __init__(
        self,
        parent: QWidget,
        editor: editor_mod.NoteEditor,
        ops: note_ops.NoteOps,
        root: Callable[[], Path],
        after_write: Callable[[str], None],
    ) -> None:
        super().__init__(parent)
        self._window = parent
        self._editor = editor
        self._ops = ops
        self._root = root
        self._after_write = after_write

    def restore(self, note: str, make: Callable[[str], str], label: str) -> note_ops.Ticket | None:
        """Write ``make(the note's text now)`` to ``note`` (see the module docstring);
        the ticket of the write, or None when it went into the editor or failed."""
        buffer = self._editor.buffer(note)
        if buffer is not None and buffer.modified:
            current = self._editor.full_text(note) or ""
            try:
                text = make(current)
            except errors.MemdeskError as exc:
                ui_errors.show_error(self._window, exc)
                return None
            self._editor.put_text(note, text)
            self._editor.open_note(note)
            self.message.emit(
                self.tr(
                    "{0} has unsaved edits: the restore is in the editor, unsaved (Ctrl+Z takes it back)"
                ).format(note),
                15_000,
            )
            self.into_editor.emit(note)
            return None
        root = self._root()

        def done(outcome: jobs.JobOutcome[object]) -> bool:
            if outcome.error is not None:
                ui_errors.show_error(self._window, outcome.error)
                return False
            self._after_write(note)
            self.message.emit(self.tr("{0} restored: saved as a new version").format(note), 8000)
            self.restored.emit(note)
            return True

        write = functools.partial(history_data.write_note, root, note, make)
        return self._ops.submit(label, lambda: write, done)
