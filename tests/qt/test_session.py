"""Session: real QThreads over a real engine; stale answers dropped, syncs queued, cancel."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from memdesk.core import engine, errors
from memdesk.core.search import settings as settings_mod
from memdesk.qt import session as session_mod


def _workspace(root: Path, notes: int = 3) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory\n\nAlpha team prefers tea.\n", encoding="utf-8")
    for i in range(notes):
        (root / "memory" / f"2026-06-{i + 1:02d}.md").write_text(
            f"# Day {i}\n\nBravo note number {i} about charlie{i}.\n", encoding="utf-8"
        )
    return root


@pytest.fixture
def session(qtbot, tmp_path: Path):  # type: ignore[no-untyped-def]
    eng = engine.Engine.open(_workspace(tmp_path / "ws"), model=None, db_path=tmp_path / "i.db")
    sess = session_mod.Session(eng, watch=False)
    with qtbot.waitSignal(sess.idle_changed, timeout=30_000, check_params_cb=lambda idle: idle):
        sess.request_sync()
    yield sess
    sess.close()


def test_stale_responses_are_dropped(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    """Queries typed in quick succession only ever publish the newest one's results."""
    seen: list[str] = []
    session.results_changed.connect(lambda r: seen.append(r.query))
    with qtbot.waitSignal(
        session.results_changed, timeout=10_000, check_params_cb=lambda r: r.query == "charlie2"
    ):
        for text in ("alpha", "bravo", "charlie1", "charlie2"):
            session.set_query(text, immediate=True)
    assert seen == ["charlie2"]
    assert [h.path for h in session.results.hits] == ["memory/2026-06-03.md"]


def test_debounce_sends_one_query(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    """Typing letter by letter costs one search after the debounce, not one per key."""
    before = session.fetch_count
    with qtbot.waitSignal(session.results_changed, timeout=10_000):
        for i in range(1, 6):
            session.set_query("bravo"[:i])
    assert session.fetch_count == before + 1


def test_rerank_uses_cached_pool(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    """Settings the pool covers re-rank synchronously; a bigger pool triggers a refetch."""
    with qtbot.waitSignal(session.results_changed, timeout=10_000):
        session.set_query("bravo", immediate=True)
    fetches = session.fetch_count
    with qtbot.waitSignal(session.results_changed, timeout=1000) as blocker:
        session.set_settings(session.settings.replace(max_results=2))
    assert blocker.args[0].reranked and len(blocker.args[0].hits) == 2
    assert session.fetch_count == fetches
    with qtbot.waitSignal(session.results_changed, timeout=10_000) as blocker:
        session.set_settings(session.settings.replace(max_results=100, candidate_multiplier=20))
    assert not blocker.args[0].reranked
    assert session.fetch_count == fetches + 1


def test_sync_requests_are_merged_while_busy(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Paths asked for during a running sync are indexed by one follow-up job."""
    ws = session.workspace
    finished: list[engine.SyncReport] = []
    session.sync_finished.connect(finished.append)
    (ws / "memory" / "new1.md").write_text("delta one", encoding="utf-8")
    (ws / "memory" / "new2.md").write_text("delta two", encoding="utf-8")
    with qtbot.waitSignal(session.idle_changed, timeout=30_000, check_params_cb=lambda idle: idle):
        session.request_sync()
        session.request_sync(["memory/new1.md"])
        session.request_sync(["memory/new2.md"])
    assert len(finished) == 2
    assert session.engine.status().files == 6


def test_cancel_reports_cancelled(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Cancelling a sync ends it between files with errors.Cancelled, window-safe."""
    eng = engine.Engine.open(_workspace(tmp_path / "big", notes=400), model=None, db_path=tmp_path / "big.db")
    sess = session_mod.Session(eng, settings=settings_mod.SearchSettings(), watch=False)
    try:
        with qtbot.waitSignal(sess.sync_failed, timeout=30_000) as blocker:
            sess.request_sync()
            sess.cancel_sync()
        assert isinstance(blocker.args[0], errors.Cancelled)
        if sess.is_syncing:
            with qtbot.waitSignal(sess.idle_changed, timeout=30_000, check_params_cb=lambda i: i):
                pass
        assert not sess.is_syncing
    finally:
        sess.close()


def test_the_same_query_again_waits_for_the_running_search(qtbot, session, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Setting the query the running search already answers (Enter pressed again, a
    script retyping it) does not restart it: with searches slower than the repeats a
    restart would drop every answer as stale and show nothing."""
    import threading

    real = session.engine.fetch_candidates
    release = threading.Event()

    def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(session.engine, "fetch_candidates", slow)
    before = session.fetch_count
    with qtbot.waitSignal(session.results_changed, timeout=15_000, check_params_cb=lambda r: bool(r.hits)):
        for _ in range(5):
            session.set_query("bravo", immediate=True)
        release.set()
    assert session.fetch_count == before + 1
    # A changed query, or the same one once answered, is asked anew.
    monkeypatch.setattr(session.engine, "fetch_candidates", real)
    with qtbot.waitSignal(session.results_changed, timeout=15_000):
        session.set_query("bravo", immediate=True)
    assert session.fetch_count == before + 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="nice is per thread on Linux only")
def test_a_sync_runs_below_the_windows_priority_and_searches_do_not(qtbot, session, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Indexing yields the CPU to the window (and to the reader, which answers its
    searches); both keep the process's own priority."""
    import os

    from memdesk.qt import jobs

    def nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    seen: dict[str, int] = {}
    real_sync, real_fetch = session.engine.sync, session.engine.fetch_candidates

    def sync(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen["sync"] = nice()
        return real_sync(*args, **kwargs)

    def fetch(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen["search"] = nice()
        return real_fetch(*args, **kwargs)

    monkeypatch.setattr(session.engine, "sync", sync)
    monkeypatch.setattr(session.engine, "fetch_candidates", fetch)
    with qtbot.waitSignal(session.idle_changed, timeout=30_000, check_params_cb=lambda idle: idle):
        session.request_sync()
    with qtbot.waitSignal(session.results_changed, timeout=10_000):
        session.set_query("bravo", immediate=True)
    gui = nice()
    assert seen == {"sync": min(19, gui + jobs.BACKGROUND_NICE), "search": gui}


class _WatchedEvent(threading.Event):
    """An Event that says when someone has started waiting on it."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        self.waiting.set()
        return super().wait(timeout)


def test_a_held_sessions_jobs_start_but_wait_for_the_release(qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The sync is running (the status bar says so) but touches nothing until the
    window has painted its first frame and releases it."""
    monkeypatch.setattr(session_mod, "BACKGROUND_HOLD_S", 60.0)
    eng = engine.Engine.open(_workspace(tmp_path / "ws"), model=None, db_path=tmp_path / "i.db")
    sess = session_mod.Session(eng, watch=False, hold_background=True)
    gate = sess._background_released = _WatchedEvent()  # held: cleared, as the session's own
    called = threading.Event()
    real_sync = eng.sync

    def sync(*args, **kwargs):  # type: ignore[no-untyped-def]
        called.set()
        return real_sync(*args, **kwargs)

    monkeypatch.setattr(eng, "sync", sync)
    try:
        assert sess.background_held
        sess.request_sync()
        assert sess.is_syncing
        assert gate.waiting.wait(10)  # the job's thread has reached the gate
        assert not called.is_set()
        with qtbot.waitSignal(sess.sync_finished, timeout=30_000):
            sess.release_background()
        assert called.is_set() and not sess.background_held
    finally:
        sess.close()


def test_a_held_session_that_is_never_released_still_indexes(qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A window that never paints (minimised at start) must not leave the notes unindexed."""
    monkeypatch.setattr(session_mod, "BACKGROUND_HOLD_S", 0.2)
    eng = engine.Engine.open(_workspace(tmp_path / "ws"), model=None, db_path=tmp_path / "i.db")
    sess = session_mod.Session(eng, watch=False, hold_background=True)
    try:
        with qtbot.waitSignal(sess.sync_finished, timeout=30_000) as blocker:
            sess.request_sync()
        assert blocker.args[0].files == 4
    finally:
        sess.close()
