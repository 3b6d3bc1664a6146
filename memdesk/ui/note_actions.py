"""The window's note actions: new, today's note, rename, move to the trash and its Undo.

Each write is a core function (``notes.create_note``, ``rename_note``, ``delete_note``,
``open_daily_note``, ``trash.restore``) run by the window's ``note_ops`` queue off the
GUI thread, after the editor's saves asked before it; what follows it (opening the note,
renaming its buffer, offering Undo, indexing) happens when its outcome comes back. A
slow disk or a network mount keeps the window responsive; the status bar says what
is being written, and a failure is shown with its one-line reason.

The ``start_*`` methods queue the write and return at once; the plain ones
(``create_note``..., and what menus, the tree and the status bar's Undo call) wait for
it and return whether it happened, the event loop running meanwhile: the window keeps
painting and taking input, and the next line of the caller sees the result.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QInputDialog, QMessageBox, QWidget

from memdesk.core import errors
from memdesk.core.index import notes
from memdesk.core.index import trash as trash_mod
from memdesk.qt import jobs, note_ops
from memdesk.qt import session as session_mod
from memdesk.ui import editor as editor_mod
from memdesk.ui import errors as ui_errors


class _ExistsAgain(errors.MemdeskError):
    """Undo found a note at the trashed one's path: the trashed copy stays in the trash."""


def _restore(trashed: trash_mod.Trashed) -> None:
    if os.path.lexists(trashed.path):
        raise _ExistsAgain(str(trashed.path))
    trash_mod.restore(trashed)


class NoteActions(QObject):
    """Note file actions for the window ``parent`` over the session ``session()`` gives.

    Signals:
        trashed_changed(str): the note Undo would bring back from the trash ("" = none).
        message(str, int): a status-bar line and how long it stays (ms).
    """

    trashed_changed = Signal(str)
    message = Signal(str, int)

    UNDO_MS = 30_000  # how long the status bar offers to undo a move to the trash

    def __init__(
        self,
        parent: QWidget,
        editor: editor_mod.NoteEditor,
        ops: note_ops.NoteOps,
        session: Callable[[], session_mod.Session],
        *,
        log_file: Path | None = None,
    ) -> None:
        super().__init__(parent)
        self._window = parent
        self._editor = editor
        self._ops = ops
        self._session = session
        self._log_file = log_file
        self.trashed: tuple[str, trash_mod.Trashed] | None = None  # the last note sent to the trash
        self._undoing: note_ops.Ticket | None = None

    def _failed(self, exc: BaseException) -> bool:
        ui_errors.show_error(self._window, exc, log_file=self._log_file)
        return False

    # create ----------------------------------------------------------------------------
    def start_create(self, rel: str, text: str, *, then_open: bool = False) -> note_ops.Ticket:
        """Write the new note ``rel`` (never over one); open it after when ``then_open``."""
        root = self._session().workspace
        return self._submit_create(
            self.tr("Creating {0}…").format(rel),
            functools.partial(_created, notes.create_note, root, rel, text),
            then_open=then_open,
        )

    def create_note(self, rel: str, text: str) -> bool:
        return self._ops.wait(self.start_create(rel, text)) is True

    def start_new_titled(self, folder: str, title: str) -> note_ops.Ticket:
        """A note titled ``title`` in ``folder``, its file named as its neighbours are
        (reading the folder is part of the write, off the GUI thread too), opened after."""
        root = self._session().workspace

        def create() -> tuple[str, bool]:
            rel = notes.new_note_path(root, folder, title)
            notes.create_note(root, rel, f"# {notes.heading(title)}\n\n")
            return rel, True

        return self._submit_create(
            self.tr("Creating a note in {0}/…").format(folder),
            create,
            then_open=True,
            after=functools.partial(self._tell_replaced, title),
        )

    def new_titled(self, folder: str, title: str) -> bool:
        return self._ops.wait(self.start_new_titled(folder, title)) is True

    def _tell_replaced(self, typed: str, rel: str) -> None:
        """One status-bar line when characters the user typed are not in the file name
        (a "/" would make a folder): which name was used, and why."""
        lost = notes.replaced(typed)
        if lost:
            chars = " ".join(f"“{c}”" if c.isprintable() else repr(c) for c in lost)
            self.message.emit(
                self.tr("Named the file {0}: note file names do not use {1}").format(
                    rel.rpartition("/")[2], chars
                ),
                10_000,
            )

    def open_today(self) -> bool:
        return self._ops.wait(self.start_today()) is True

    def start_today(self) -> note_ops.Ticket:
        """Today's note ``memory/YYYY-MM-DD.md``, created if missing, opened at its end."""
        root = self._session().workspace
        date = dt.date.today()
        return self._submit_create(
            self.tr("Opening today's note…"),
            functools.partial(notes.open_daily_note, root, date),
            then_open=True,
            at_end=True,
        )

    def _submit_create(
        self,
        label: str,
        write: Callable[[], tuple[str, bool]],
        *,
        then_open: bool,
        at_end: bool = False,
        after: Callable[[str], None] | None = None,
    ) -> note_ops.Ticket:
        session = self._session()

        def done(outcome: jobs.JobOutcome[object]) -> bool:
            if outcome.error is not None:
                return self._failed(outcome.error)
            assert isinstance(outcome.value, tuple)
            rel, created = outcome.value
            if created:
                session.request_sync([rel])
                session.request_snapshot()
            if then_open and self._editor.open_note(rel) and at_end:
                edit = self._editor.text_edit
                edit.moveCursor(edit.textCursor().MoveOperation.End)
                edit.setFocus()
            if after is not None:
                after(rel)
            return True

        return self._ops.submit(label, lambda: write, done)

    # rename ----------------------------------------------------------------------------
    def ask_rename(self, rel: str) -> None:
        """Ask the new name of ``rel`` (tree menu) and rename it."""
        folder, _, name = rel.rpartition("/")
        new_name, ok = QInputDialog.getText(
            self._window, self.tr("Rename note"), self.tr("New name:"), text=name
        )
        stem = notes.safe_name(new_name) if ok else ""
        if stem and f"{stem}.md" != name:
            new = f"{folder}/{stem}.md" if folder else f"{stem}.md"
            if self.rename_note(rel, new):
                self._tell_replaced(new_name, new)

    def start_rename(self, old: str, new: str) -> note_ops.Ticket:
        session = self._session()
        root, extra = session.workspace, session.engine.extra_paths

        def done(outcome: jobs.JobOutcome[object]) -> bool:
            if outcome.error is not None:
                return self._failed(outcome.error)
            self._editor.rename_buffer(old, new)
            session.request_sync([old, new])
            session.request_snapshot()  # the tree shows the new name now, not after the sync
            return True

        write = functools.partial(notes.rename_note, root, old, new, extra)
        return self._ops.submit(self.tr("Renaming {0}…").format(old), lambda: write, done)

    def rename_note(self, old: str, new: str) -> bool:
        return self._ops.wait(self.start_rename(old, new)) is True

    # delete and undo -------------------------------------------------------------------
    def ask_delete(self, rel: str) -> None:
        """Move ``rel`` to the trash; no question first (Undo brings it back) unless it
        has unsaved edits."""
        buffer = self._editor.buffer(rel)
        if buffer is not None and buffer.modified:
            answer = QMessageBox.question(
                self._window,
                self.tr("Move to trash"),
                self.tr("{0} has unsaved edits. Move it to the trash and drop them?").format(rel),
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel,
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        self.delete_note(rel)

    def start_delete(self, rel: str) -> note_ops.Ticket:
        """Move ``rel`` to the system trash; Undo (status bar, Edit menu) brings it back."""
        session = self._session()
        root, extra = session.workspace, session.engine.extra_paths

        def done(outcome: jobs.JobOutcome[object]) -> bool:
            if outcome.error is not None:
                return self._failed(outcome.error)
            assert isinstance(outcome.value, trash_mod.Trashed)
            self._editor.close_note(rel)
            session.request_sync([rel])
            session.request_snapshot()  # the tree drops it now, not after the sync
            self.trashed = (rel, outcome.value)
            self.trashed_changed.emit(rel)
            self.message.emit(self.tr("Moved {0} to the trash").format(rel), self.UNDO_MS)
            return True

        write = functools.partial(notes.delete_note, root, rel, extra)
        return self._ops.submit(self.tr("Moving {0} to the trash…").format(rel), lambda: write, done)

    def delete_note(self, rel: str) -> bool:
        return self._ops.wait(self.start_delete(rel)) is True

    def start_undo_delete(self) -> note_ops.Ticket | None:
        """Move the note last sent to the trash back where it was (None: nothing to undo)."""
        if self.trashed is None or (self._undoing is not None and not self._undoing.done):
            return None  # nothing to undo, or its Undo is being written (a second click)
        rel, trashed = self.trashed
        session = self._session()

        def done(outcome: jobs.JobOutcome[object]) -> bool:
            exc = outcome.error
            if isinstance(exc, _ExistsAgain):
                self._end_undo()
                return self._failed(
                    errors.MemdeskError(
                        self.tr("{0} exists again; the trashed copy stays in the trash").format(rel)
                    )
                )
            if exc is not None:
                return self._failed(errors.MemdeskError(self.tr("Cannot restore {0}: {1}").format(rel, exc)))
            self._end_undo()
            session.request_sync([rel])
            session.request_snapshot()
            self.message.emit(self.tr("Restored {0}").format(rel), 5000)
            self._editor.open_note(rel)
            return True

        self._undoing = self._ops.submit(
            self.tr("Restoring {0}…").format(rel), lambda: functools.partial(_restore, trashed), done
        )
        return self._undoing

    def undo_delete(self) -> bool:
        ticket = self.start_undo_delete()
        return ticket is not None and self._ops.wait(ticket) is True

    def _end_undo(self) -> None:
        self.trashed = None
        self.trashed_changed.emit("")


def _created(create: Callable[[Path, str, str], Path], root: Path, rel: str, text: str) -> tuple[str, bool]:
    create(root, rel, text)
    return rel, True
