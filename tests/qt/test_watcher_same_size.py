"""The watcher path re-indexes a same-size rewrite whose mtime was put back (issue 22):
watchdog reports the write and the ``utime``; the sync it starts must not skip the file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memdesk.core import engine
from memdesk.core.index import indexer
from memdesk.core.search import settings as settings_mod
from memdesk.qt import session as session_mod

NOTE = "memory/2026-06-01.md"


def test_watcher_sync_reindexes_a_same_size_rewrite_with_its_mtime_put_back(  # type: ignore[no-untyped-def]
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No racy window: only the ctime/inode check can find this change.
    monkeypatch.setattr(indexer, "RACY_NS", 0)
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    note = root / NOTE
    note.write_text("# Day\n\nThe code word is alphacode.\n", encoding="utf-8")
    eng = engine.Engine.open(root, model=None, db_path=tmp_path / "i.db")
    sess = session_mod.Session(eng, watch=True)
    try:
        with qtbot.waitSignal(sess.idle_changed, timeout=30_000, check_params_cb=lambda idle: idle):
            sess.request_sync()
        st = note.stat()
        with qtbot.waitSignal(
            sess.sync_finished, timeout=30_000, check_params_cb=lambda report: NOTE in report.indexed_paths
        ):
            note.write_text("# Day\n\nThe code word is bravocode.\n", encoding="utf-8")
            os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert (note.stat().st_mtime_ns, note.stat().st_size) == (st.st_mtime_ns, st.st_size)
        hits = eng.search("bravocode", settings_mod.SearchSettings.defaults("memdesk")).hits
        assert [h.path for h in hits] == [NOTE]
    finally:
        sess.close()
