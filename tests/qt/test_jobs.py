"""The job runner: outcomes after the thread ends, progress in order, cancellation, request gates."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QThread

from memdesk.core import errors
from memdesk.qt import jobs


def test_a_job_reports_progress_then_its_value_once_its_thread_has_ended(qtbot) -> None:  # type: ignore[no-untyped-def]
    threads: list[str] = []

    def work(context: jobs.JobContext) -> int:
        threads.append(QThread.currentThread().objectName())
        for i in range(3):
            context.report(i)
        return 42

    job: jobs.Job[int] = jobs.Job("test-job", work)
    seen: list[object] = []
    job.progress.connect(seen.append)
    ended: list[bool] = []
    job.finished.connect(lambda _outcome: ended.append(job.is_running))
    with qtbot.waitSignal(job.finished, timeout=10_000) as blocker:
        job.start()
        assert job.is_running
    outcome = blocker.args[0]
    assert outcome == jobs.JobOutcome("test-job", value=42) and outcome.ok and not outcome.cancelled
    assert seen == [0, 1, 2]  # every progress payload arrived before the outcome
    assert threads == ["test-job"] and ended == [False]
    with pytest.raises(RuntimeError):
        job.start()  # a job runs once


def test_a_failure_is_an_outcome(qtbot) -> None:  # type: ignore[no-untyped-def]
    def work(_context: jobs.JobContext) -> None:
        raise errors.MemdeskError("no such model")

    job: jobs.Job[None] = jobs.Job("failing", work)
    with qtbot.waitSignal(job.finished, timeout=10_000) as blocker:
        job.start()
    outcome = blocker.args[0]
    assert isinstance(outcome.error, errors.MemdeskError) and outcome.value is None
    assert not outcome.ok and not outcome.cancelled


def test_cancel_stops_the_job_at_its_next_check(qtbot) -> None:  # type: ignore[no-untyped-def]
    running = threading.Event()

    def work(context: jobs.JobContext) -> None:
        running.set()
        while not context.cancelled():
            context.report("tick")
        raise errors.Cancelled("stopped")

    job: jobs.Job[None] = jobs.Job("cancellable", work, progress_interval=0.05)
    with qtbot.waitSignal(job.finished, timeout=10_000) as blocker:
        job.start()
        assert running.wait(10)
        job.cancel()
    assert blocker.args[0].cancelled and not job.is_running


def test_progress_is_throttled_but_forced_ticks_go_through() -> None:
    sent: list[object] = []
    context = jobs.JobContext(sent.append, progress_interval=3600)
    for i in range(100):
        context.report(i)
    context.report("last", force=True)
    assert sent == [0, "last"]


def test_request_gate_keeps_only_the_newest_current() -> None:
    gate = jobs.RequestGate()
    first = gate.issue()
    assert gate.is_current(first) and not gate.is_stale(first)
    second = gate.issue()
    assert second > first and gate.latest == second
    assert gate.is_stale(first) and not gate.is_current(first)
    assert gate.is_current(second) and not gate.is_stale(second)


def test_worker_thread_hosts_queued_slots(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QObject, Signal, Slot

    class Echo(QObject):
        answered = Signal(str)

        @Slot(str)
        def ask(self, text: str) -> None:
            self.answered.emit(f"{text} on {QThread.currentThread().objectName()}")

    class Asker(QObject):
        asked = Signal(str)

    worker_thread = jobs.WorkerThread("test-reader")
    echo, asker = Echo(), Asker()
    worker_thread.host(echo)
    asker.asked.connect(echo.ask)
    worker_thread.start()
    try:
        with qtbot.waitSignal(echo.answered, timeout=10_000) as blocker:
            asker.asked.emit("hello")
        assert blocker.args == ["hello on test-reader"]
    finally:
        worker_thread.stop()
