"""Reads of the version store as ``jobs.Job``s, the newest request of each kind winning.

The History panel and the Changes view ask again each time the selection moves; an
answer to an older question (a slower diff) is dropped instead of painting over the
newer one. The functions are ``history_data``'s: plain values back, no widgets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from memdesk.qt import jobs


class Loader(QObject):
    """Runs ``fn()`` off the GUI thread and calls ``done(outcome)`` on it, for the
    newest request of each ``kind`` only."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._gates: dict[str, jobs.RequestGate] = {}
        self._running: set[jobs.Job[Any]] = set()
        # A read that ends after its view went (the window closed) is dropped: its
        # callback would touch deleted widgets. Kept outside ``self``, which is gone then.
        alive = self._alive = [True]
        self.destroyed.connect(lambda *_args: alive.__setitem__(0, False))

    @property
    def busy(self) -> bool:
        return bool(self._running)

    def load(self, kind: str, fn: Callable[[], object], done: Callable[[jobs.JobOutcome[Any]], None]) -> None:
        gate = self._gates.setdefault(kind, jobs.RequestGate())
        alive, running = self._alive, self._running
        request = gate.issue()
        job: jobs.Job[object] = jobs.Job(f"memdesk-history-{kind}", lambda _context: fn())

        def finished(outcome: jobs.JobOutcome[Any]) -> None:
            running.discard(job)
            if alive[0] and gate.is_current(request):
                done(outcome)

        job.finished.connect(finished)
        running.add(job)  # the Job must outlive this call (see jobs.Job)
        job.start()

    def wait_idle(self, timeout_ms: int = 10_000) -> None:
        """Shutdown: let running reads end (their answers are dropped)."""
        for job in list(self._running):
            job.wait()
        del timeout_ms
