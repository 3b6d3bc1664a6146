"""Writes to the workspace's notes (save, create, rename, delete, restore), one at a
time and in the order asked, each a ``jobs.Job`` off the GUI thread.

A save fsyncs the note and its folder; on a slow disk or a network mount that takes
seconds, and done on the GUI thread it froze the window for as long. Here the core
function runs on the job's thread while the window keeps painting and taking input,
and its outcome comes back to a callback on the GUI thread.

One at a time, because the operations touch the same files: a rename asked while the
note's save is still writing runs after that save, never beside it. Each operation is
prepared when its turn comes (``prepare`` runs on the GUI thread then), so a second
save of a note sends the text and base as they are after the first save landed.

Callers that need the result before they go on (the window's quit, switching
workspaces, scripted use) ``wait`` for it: a local event loop, so the window still
paints and its timers tick meanwhile.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
from collections.abc import Callable

from PySide6.QtCore import QEventLoop, QObject, Signal

from memdesk.qt import jobs

log = logging.getLogger(__name__)

Prepare = Callable[[], Callable[[], object] | None]
Done = Callable[[jobs.JobOutcome[object]], object]


@dataclasses.dataclass(eq=False)
class Ticket:
    """One operation asked for: ``result`` is what its ``done`` callback returned,
    set once ``done`` is True."""

    label: str
    prepare: Prepare
    on_done: Done
    done: bool = False
    result: object = None


class NoteOps(QObject):
    """The queue of note writes.

    Signals:
        busy_changed(str): the label of the operation now running ("" when none is).
        settled(object): a ``Ticket`` finished (its ``done`` callback has run).
    """

    busy_changed = Signal(str)
    settled = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._queue: collections.deque[Ticket] = collections.deque()
        self._running: Ticket | None = None
        self._job: jobs.Job[object] | None = None

    @property
    def pending(self) -> int:
        """Operations queued or running."""
        return len(self._queue) + (self._running is not None)

    @property
    def current_label(self) -> str:
        return self._running.label if self._running is not None else ""

    def submit(self, label: str, prepare: Prepare, done: Done) -> Ticket:
        """Queue an operation. When its turn comes ``prepare()`` (GUI thread) returns the
        function to run off the GUI thread, or None for nothing to do (``done`` then gets
        an outcome with neither value nor error); ``done(outcome)`` runs on the GUI thread
        and its return value becomes the ticket's ``result``."""
        ticket = Ticket(label, prepare, done)
        self._queue.append(ticket)
        if self._running is None:
            self._start_next()
        return ticket

    def wait(self, ticket: Ticket) -> object:
        """``ticket``'s result once it is done, the event loop running meanwhile."""
        self._wait_until(lambda: ticket.done)
        return ticket.result

    def wait_idle(self) -> None:
        """Return once every operation queued so far (and any they queue) is done."""
        self._wait_until(lambda: self.pending == 0)

    def _wait_until(self, ready: Callable[[], bool]) -> None:
        if ready():
            return
        loop = QEventLoop()

        def check(_ticket: object) -> None:
            if ready():
                loop.quit()

        self.settled.connect(check)
        try:
            loop.exec()
        finally:
            self.settled.disconnect(check)

    def _start_next(self) -> None:
        # Re-entered when a ``done`` callback queues (or waits for) another operation.
        while self._running is None and self._queue:
            ticket = self._queue.popleft()
            self._running = ticket
            try:
                fn = ticket.prepare()
            except Exception as exc:  # a bug in preparing: reported like a failed write
                log.exception("preparing %s failed", ticket.label)
                self._finish(ticket, jobs.JobOutcome(ticket.label, error=exc))
                continue
            if fn is None:
                self._finish(ticket, jobs.JobOutcome(ticket.label))
                continue
            job: jobs.Job[object] = jobs.Job("memdesk-note-write", _call(fn))
            job.finished.connect(self._on_job_finished)
            self._job = job
            self.busy_changed.emit(ticket.label)
            job.start()
            return
        if self._running is None:
            self.busy_changed.emit("")

    def _on_job_finished(self, outcome: jobs.JobOutcome[object]) -> None:
        ticket = self._running
        self._job = None  # the Job keeps itself until its signal returns
        if ticket is not None:
            self._finish(ticket, outcome)
        self._start_next()

    def _finish(self, ticket: Ticket, outcome: jobs.JobOutcome[object]) -> None:
        # Not running any more before ``done`` runs: a callback may queue the next write.
        self._running = None
        try:
            ticket.result = ticket.on_done(outcome)
        except Exception:  # the queue goes on: a later save must not wait forever
            log.exception("handling the outcome of %s failed", ticket.label)
        finally:
            ticket.done = True
            self.settled.emit(ticket)
        self._start_next()


def _call(fn: Callable[[], object]) -> Callable[[jobs.JobContext], object]:
    def run(_context: jobs.JobContext) -> object:
        return fn()

    return run
