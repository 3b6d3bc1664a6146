"""The job runner: outcomes after the thread ends, progress in order, cancellation, request gates,
background jobs below the GUI thread's priority."""

from __future__ import annotations

import os
import sys
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


def _nice(tid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, tid)


def _task_nices() -> dict[int, int]:
    """Each thread of this process and its nice value (a thread may end meanwhile)."""
    nices = {}
    for entry in os.listdir("/proc/self/task"):
        try:
            nices[int(entry)] = _nice(int(entry))
        except OSError:
            continue
    return nices


linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="nice is per thread on Linux only"
)


@linux_only
def test_a_background_job_and_the_threads_it_starts_run_below_the_gui_thread(qtbot) -> None:  # type: ignore[no-untyped-def]
    gui = _nice(threading.get_native_id())

    def work(_context: jobs.JobContext) -> tuple[int, int]:
        child: list[int] = []
        thread = threading.Thread(target=lambda: child.append(_nice(threading.get_native_id())))
        thread.start()
        thread.join()
        return _nice(threading.get_native_id()), child[0]

    job: jobs.Job[tuple[int, int]] = jobs.Job("test-background-job", work, background=True)
    with qtbot.waitSignal(job.finished, timeout=10_000) as blocker:
        job.start()
    expected = min(19, gui + jobs.BACKGROUND_NICE)
    assert blocker.args[0].value == (expected, expected)
    assert _nice(threading.get_native_id()) == gui  # the GUI thread's own value is untouched

    plain: jobs.Job[tuple[int, int]] = jobs.Job("test-plain-job", work)
    with qtbot.waitSignal(plain.finished, timeout=10_000) as blocker:
        plain.start()
    assert blocker.args[0].value == (gui, gui)


@linux_only
def test_llama_cpps_threads_started_by_a_background_job_inherit_its_priority(qtbot, minilm_embedder) -> None:  # type: ignore[no-untyped-def]
    """The OpenMP team that computes the embeddings is created by the thread that first
    runs a parallel region: the job's, so the whole team runs below the window."""
    gui = _nice(threading.get_native_id())

    def work(_context: jobs.JobContext) -> tuple[int, dict[int, int]]:
        before = set(_task_nices())
        minilm_embedder.embed_documents(["the team that computes this runs niced"] * 4)
        started = {tid: nice for tid, nice in _task_nices().items() if tid not in before}
        return _nice(threading.get_native_id()), started

    job: jobs.Job[tuple[int, dict[int, int]]] = jobs.Job("test-embed-job", work, background=True)
    with qtbot.waitSignal(job.finished, timeout=60_000) as blocker:
        job.start()
    own, started = blocker.args[0].value
    expected = min(19, gui + jobs.BACKGROUND_NICE)
    assert own == expected
    from memdesk.core.embed import llama_runtime

    if llama_runtime.physical_cores() > 1:  # the embedder's default thread count
        assert started, "llama.cpp started no threads of its own for this job"
    assert set(started.values()) <= {expected}
