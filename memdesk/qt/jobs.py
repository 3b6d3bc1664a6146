"""One way to run memdesk's work off the GUI thread.

- ``Job``: one function run once on its own QThread (index syncs, model loads and
  builds, auto-tune, the agent panel's reads). It reports progress and, once the
  thread has ended, one ``JobOutcome`` (the value or the exception), both as signals
  delivered on the GUI thread; ``cancel()`` asks the function to stop at its next check.
- ``WorkerThread``: a long-lived thread serving the queued slots of the QObjects moved
  onto it (the session's reader: searches, status reads, golden pools).
- ``RequestGate``: request ids, newest wins. The GUI thread issues one per request and
  drops answers that are not current; workers skip requests already stale.

The wiring follows Mu's (``thread.started -> worker.run``, ``worker.done ->
thread.quit``), adapted to PySide's object ownership: ``done -> quit`` is a direct
connection, because a queued ``quit`` needs the GUI event loop and ``thread.wait()``
on shutdown would deadlock; and there is no ``deleteLater``: the Python wrappers own
the thread and the worker, so the ``Job`` keeps both until ``thread.finished``, waits
for the thread really to end (``finished`` is emitted from it just before) and lets
them go (a ``deleteLater`` as well would free them twice, under a live wrapper).
Functions never touch widgets; they return plain values (core dataclasses).

A ``background`` job (indexing, model builds) runs at a lower CPU priority than the
GUI thread, so that on a machine with few cores the window gets a core whenever it
wakes, and the job loses nothing while the window is idle. Qt's thread priorities do
nothing on Linux (its SCHED_OTHER has one priority level), so there the job's thread
lowers its own nice value, which Linux keeps per thread; threads it creates inherit it,
llama.cpp's OpenMP team among them (libgomp creates a team for the thread that first
runs a parallel region, i.e. the job's).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

from memdesk.core import errors

log = logging.getLogger(__name__)

T = TypeVar("T")

BACKGROUND_NICE = 10
"""How many nice steps a background job's thread drops below the GUI's (Linux). CFS
and EEVDF weigh nice 10 at about a tenth of nice 0, so the window wins a contended
core; the steps are relative, so an app started niced keeps its order."""


def lower_thread_priority(steps: int = BACKGROUND_NICE) -> bool:
    """Raise the calling thread's nice value by ``steps`` (capped at 19). Linux only,
    where nice is per thread (elsewhere it is per process, and the window would
    slow down with it); False when nothing changed."""
    if not sys.platform.startswith("linux") or steps <= 0:
        return False
    tid = threading.get_native_id()
    try:
        current = os.getpriority(os.PRIO_PROCESS, tid)
        target = min(19, current + steps)
        if target == current:
            return False
        os.setpriority(os.PRIO_PROCESS, tid, target)
    except OSError as exc:  # a sandbox may refuse it: the job still runs
        log.debug("could not lower the priority of thread %d: %s", tid, exc)
        return False
    return True


@dataclasses.dataclass(frozen=True)
class JobOutcome(Generic[T]):
    """How a job ended: its ``value``, or the ``error`` it raised (``errors.Cancelled``
    when it stopped because it was cancelled)."""

    name: str
    value: T | None = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def cancelled(self) -> bool:
        return isinstance(self.error, errors.Cancelled)


class JobContext:
    """What a job's function gets: ``cancelled()`` to poll and ``report()`` for progress.

    ``report`` sends at most one payload per ``progress_interval`` seconds (a sync of
    2,000 notes would otherwise queue more signals than the GUI thread wants to
    handle); ``force=True`` always goes through (the last tick, a change of phase).
    """

    def __init__(self, emit: Callable[[object], None], progress_interval: float) -> None:
        self._emit = emit
        self._interval = progress_interval
        self._last = float("-inf")
        # A plain Event, not a signal: the job's thread is busy inside the function and
        # would never process a queued cancel slot until it returned.
        self._cancel = threading.Event()

    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def report(self, payload: object, *, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._last >= self._interval:
            self._last = now
            self._emit(payload)


class _Runner(QObject):
    """Lives on the job's thread: calls the function, keeps its outcome, says ``done``."""

    progress = Signal(object)
    done = Signal()

    def __init__(
        self,
        name: str,
        fn: Callable[[JobContext], object],
        progress_interval: float,
        quiet: tuple[type, ...],
        background: bool,
    ) -> None:
        super().__init__()
        self.context = JobContext(self.progress.emit, progress_interval)
        self.outcome: JobOutcome[object] = JobOutcome(name, error=errors.Cancelled(f"{name} did not run"))
        self._name = name
        self._fn = fn
        self._quiet = quiet
        self._background = background

    @Slot()
    def run(self) -> None:
        if self._background:
            # Before the function runs: the threads it starts inherit the value.
            # No way back is needed, the thread ends with the job.
            lower_thread_priority()
        try:
            self.outcome = JobOutcome(self._name, value=self._fn(self.context))
        except Exception as exc:  # every failure reaches the GUI as a value
            if not isinstance(exc, (errors.Cancelled, *self._quiet)):
                log.exception("%s failed", self._name)
            self.outcome = JobOutcome(self._name, error=exc)
        finally:
            self.done.emit()


class Job(QObject, Generic[T]):
    """``fn(context)`` run once on a new QThread named ``name``.

    Signals (on the GUI thread, in this order):
        progress(object): each payload the function passed to ``context.report``.
        finished(object): the ``JobOutcome``, emitted once the thread has ended (so
            ``is_running`` is already False and whoever hears it may start the next job).
    ``quiet`` lists exception types that are expected outcomes, logged without a traceback.
    ``background``: run below the GUI thread's CPU priority (see the module docstring).
    """

    progress = Signal(object)
    finished = Signal(object)

    def __init__(
        self,
        name: str,
        fn: Callable[[JobContext], T],
        *,
        progress_interval: float = 0.0,
        quiet: tuple[type[BaseException], ...] = (errors.MemdeskError,),
        background: bool = False,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.name = name
        self._runner: _Runner | None = _Runner(name, fn, progress_interval, quiet, background)
        self._thread: QThread | None = None
        self._started = False
        self._background = background

    @property
    def is_running(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        """Start the thread (once); ``finished`` follows even when the function fails."""
        if self._started or self._runner is None:
            raise RuntimeError(f"job {self.name} was started already")
        self._started = True
        thread = QThread()
        thread.setObjectName(self.name)
        runner = self._runner
        runner.moveToThread(thread)
        thread.started.connect(runner.run)
        runner.done.connect(thread.quit, Qt.ConnectionType.DirectConnection)
        runner.progress.connect(self.progress)
        # Connected before start(): a short job can end before this returns.
        thread.finished.connect(self._on_thread_finished)
        self._thread = thread
        # Qt's priority is what Windows and macOS go by (Linux ignores it; see run).
        thread.start(QThread.Priority.LowPriority if self._background else QThread.Priority.InheritPriority)

    def cancel(self) -> None:
        """Ask the function to stop at its next ``context.cancelled()`` (any thread)."""
        if self._runner is not None:
            self._runner.context._cancel.set()

    def wait(self) -> None:
        """Block until the thread has ended (shutdown); ``finished`` is still delivered
        by the event loop afterwards, if one runs."""
        if self._thread is not None:
            self._thread.wait()

    @Slot()
    def _on_thread_finished(self) -> None:
        thread, runner = self._thread, self._runner
        if thread is None or runner is None:
            return
        thread.wait()  # finished is emitted from the thread just before it ends
        self._thread = None
        self._runner = None
        self.finished.emit(runner.outcome)


class WorkerThread:
    """A long-lived QThread named ``name`` that serves the queued slots of the QObjects
    moved onto it with ``host``; ``stop`` ends it and waits."""

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        self._thread = QThread(parent)
        self._thread.setObjectName(name)

    @property
    def name(self) -> str:
        return self._thread.objectName()

    def host(self, worker: QObject) -> None:
        """Run ``worker``'s queued slots on this thread from now on."""
        worker.moveToThread(self._thread)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._thread.quit()
        self._thread.wait()


class RequestGate:
    """Ids for one kind of request; only the newest is current.

    ``issue`` (GUI thread) makes every earlier id stale; ``is_current`` (GUI thread)
    drops a late answer; ``is_stale`` (any thread) lets a worker skip a queued request
    that nobody will look at any more.
    """

    def __init__(self) -> None:
        self._latest = 0
        self._lock = threading.Lock()

    @property
    def latest(self) -> int:
        with self._lock:
            return self._latest

    def issue(self) -> int:
        with self._lock:
            self._latest += 1
            return self._latest

    def is_current(self, request_id: int) -> bool:
        with self._lock:
            return request_id == self._latest

    def is_stale(self, request_id: int) -> bool:
        with self._lock:
            return request_id < self._latest
