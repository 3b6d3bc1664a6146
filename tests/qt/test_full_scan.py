"""Changes the watcher never reported are still found: by the session's periodic scan
of the whole workspace, and at once when the watcher says events were lost."""

from __future__ import annotations

from pathlib import Path

from watchdog.events import EventsLostEvent

from memdesk.core import engine
from memdesk.qt import session as session_mod
from memdesk.qt import watcher


def _workspace(root: Path) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory\n\nAlpha prefers tea.\n", encoding="utf-8")
    (root / "memory" / "2020-06-01.md").write_text("# Day\n\nBravo went sailing.\n", encoding="utf-8")
    return root


def _indexed(sess: session_mod.Session, rel: str) -> bool:
    snap = sess.snapshot
    return snap is not None and rel in snap.files and snap.states.get(rel, ("",))[0] == "indexed"


def _started(qtbot, tmp_path: Path, **kwargs: object) -> session_mod.Session:  # type: ignore[no-untyped-def]
    eng = engine.Engine(_workspace(tmp_path / "ws"), embedder=None, db_path=tmp_path / "i.db", history=False)
    sess = session_mod.Session(eng, **kwargs)  # type: ignore[arg-type]
    with qtbot.waitSignal(sess.idle_changed, timeout=30_000, check_params_cb=lambda idle: idle):
        sess.request_sync()
    qtbot.waitUntil(lambda: _indexed(sess, "memory/2020-06-01.md"), timeout=10_000)
    assert eng.watched  # the watcher runs: the engine keeps its listing between scans
    return sess


def test_a_change_the_watcher_missed_is_found_by_the_periodic_scan(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sess = _started(qtbot, tmp_path, full_scan_ms=500)
    try:
        assert sess._watcher is not None
        sess._watcher.stop()  # from here on, no event reaches the session
        new = sess.engine.workspace / "memory" / "2020-06-02.md"
        new.write_text("# Day two\n\nCharlie missed the ferry.\n", encoding="utf-8")
        qtbot.waitUntil(lambda: _indexed(sess, "memory/2020-06-02.md"), timeout=15_000)
    finally:
        sess.close()


def test_lost_watcher_events_scan_the_workspace_at_once(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sess = _started(qtbot, tmp_path)  # the periodic scan is minutes away
    try:
        bridge = sess._watcher
        assert bridge is not None
        bridge.stop()
        new = sess.engine.workspace / "memory" / "2020-06-03.md"
        new.write_text("# Day three\n\nDelta fixed the sail.\n", encoding="utf-8")
        # What watchdog's observer thread does when the kernel's event queue overflows.
        watcher._Handler(bridge).dispatch(EventsLostEvent(str(sess.engine.workspace), is_directory=True))
        qtbot.waitUntil(lambda: _indexed(sess, "memory/2020-06-03.md"), timeout=15_000)
    finally:
        sess.close()
