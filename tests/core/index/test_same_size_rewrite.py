"""A change the sync must not miss for good (issue 22): a note rewritten with the same
byte count and its modification time put back (``cp -p``, ``rsync -t``, ``touch -r``,
a restore), and a note written again in the same timestamp tick as the version indexed.

Real files, the real index (apsw, FTS5, sqlite-vec) and keyword search.
"""

from __future__ import annotations

import os
import pathlib
import time
from pathlib import Path
from typing import Any

import pytest

from memdesk.core import engine
from memdesk.core.index import indexer
from memdesk.core.index.store import Store
from memdesk.core.search.settings import SearchSettings
from tests.fakes import HashEmbedder

MEMDESK = SearchSettings.defaults("memdesk")
NOTE = "memory/note.md"


def _workspace(root: Path) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory\n\nNothing about the topic here.\n", encoding="utf-8")
    (root / NOTE).write_text("# Note\n\nThe gateway listens on alphaport today.\n", encoding="utf-8")
    return root


def _paths(eng: engine.Engine, query: str) -> list[str]:
    """The notes whose indexed text has the word (keyword matches, not vector neighbours)."""
    return [h.path for h in eng.search(query, MEMDESK).hits if h.text_score and query in h.text]


def _rewrite_keeping_mtime(path: Path, old: str, new: str) -> None:
    """What ``cp -p`` / ``touch -r`` leave: other bytes, same size, the old mtime."""
    st = path.stat()
    text = path.read_text(encoding="utf-8")
    assert len(old.encode()) == len(new.encode()) and old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = path.stat()
    assert (after.st_mtime_ns, after.st_size) == (st.st_mtime_ns, st.st_size)


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """No racy window: these tests show the ctime/inode check alone finds the change
    (files written a moment ago are otherwise re-hashed anyway)."""
    monkeypatch.setattr(indexer, "RACY_NS", 0)


@pytest.mark.usefixtures("settled")
def test_same_size_rewrite_with_the_mtime_put_back_is_dirty_then_reindexed(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    eng = engine.Engine(root, embedder=HashEmbedder(), db_path=tmp_path / "index.sqlite")
    try:
        eng.sync()
        assert _paths(eng, "alphaport") == [NOTE]
        assert eng.status().dirty_files == ()

        _rewrite_keeping_mtime(root / NOTE, "alphaport", "zulu1port")
        assert eng.status().dirty_files == (NOTE,)
        assert eng.file_states()[NOTE][0] == "pending"
        report = eng.sync()
        assert report.indexed_paths == (NOTE,)
        assert _paths(eng, "zulu1port") == [NOTE]
        assert _paths(eng, "alphaport") == []
        assert eng.status().dirty_files == ()
    finally:
        eng.close()


@pytest.mark.usefixtures("settled")
def test_a_file_renamed_over_the_note_with_its_mtime_is_reindexed(tmp_path: Path) -> None:
    """``rsync -t`` writes a temporary file, sets its mtime and renames it over the note."""
    root = _workspace(tmp_path / "ws")
    eng = engine.Engine(root, embedder=None, db_path=tmp_path / "index.sqlite")
    try:
        eng.sync()
        note = root / NOTE
        st = note.stat()
        tmp = root / "memory" / ".note.md.rsync"
        tmp.write_bytes(note.read_bytes().replace(b"alphaport", b"bravoport"))
        os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.replace(tmp, note)
        assert (note.stat().st_mtime_ns, note.stat().st_size) == (st.st_mtime_ns, st.st_size)
        assert eng.status().dirty_files == (NOTE,)
        eng.sync()
        assert _paths(eng, "bravoport") == [NOTE]
    finally:
        eng.close()


class _CoarseStat:
    """A stat as a file system with one-second timestamps reports it (HFS+, many
    network shares; FAT has two): two writes in one second leave the same times."""

    def __init__(self, st: os.stat_result) -> None:
        self._st = st
        self.st_mtime_ns = st.st_mtime_ns // 1_000_000_000 * 1_000_000_000
        self.st_ctime_ns = st.st_ctime_ns // 1_000_000_000 * 1_000_000_000
        self.st_mtime = self.st_mtime_ns / 1e9
        self.st_ctime = self.st_ctime_ns / 1e9

    def __getattr__(self, name: str) -> Any:
        return getattr(self._st, name)


def test_a_rewrite_in_the_same_tick_as_the_indexed_version_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_stat = pathlib.Path.stat

    def coarse_stat(self: Path, *, follow_symlinks: bool = True) -> Any:
        return _CoarseStat(real_stat(self, follow_symlinks=follow_symlinks))

    root = _workspace(tmp_path / "ws")
    note = root / NOTE
    eng = engine.Engine(root, embedder=None, db_path=tmp_path / "index.sqlite")
    try:
        eng.sync()
        monkeypatch.setattr(pathlib.Path, "stat", coarse_stat)
        words = ["bravoport", "charlport", "deltaport", "echo1port"]
        for word in words:
            # Start at the top of a second so the write, the sync and the rewrite share it.
            time.sleep(1 - time.time() % 1 + 0.01)
            note.write_text(f"# Note\n\nThe gateway listens on {word} today.\n", encoding="utf-8")
            eng.sync()
            indexed = note.stat()
            note.write_text("# Note\n\nThe gateway listens on xrayxport today.\n", encoding="utf-8")
            again = note.stat()
            same = (indexed.st_mtime_ns, indexed.st_ctime_ns, indexed.st_size, indexed.st_ino) == (
                again.st_mtime_ns,
                again.st_ctime_ns,
                again.st_size,
                again.st_ino,
            )
            if same:
                break
            eng.sync()  # the second ran out under load: settle and try again
        else:
            pytest.skip(f"could not write twice within one second in {len(words)} tries")
        # Every field the stat has is as recorded: only the racy rule catches this.
        assert eng.status().dirty_files == (NOTE,)
        eng.sync()
        assert _paths(eng, "xrayxport") == [NOTE]
        assert _paths(eng, word) == []
    finally:
        eng.close()


@pytest.mark.usefixtures("settled")
def test_unchanged_files_are_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _workspace(tmp_path / "ws")
    eng = engine.Engine(root, embedder=None, db_path=tmp_path / "index.sqlite")
    try:
        eng.sync()
        reads: list[Path] = []
        real_read = indexer._read

        def counting_read(path: Path, size: int) -> bytes | None:
            reads.append(path)
            return real_read(path, size)

        monkeypatch.setattr(indexer, "_read", counting_read)
        assert eng.sync().indexed_paths == () and reads == []
        assert eng.status().dirty_files == () and reads == []
    finally:
        eng.close()


def test_a_recently_written_file_is_rehashed_not_reindexed(tmp_path: Path) -> None:
    """Inside the racy window a file is read again, but re-indexed only if it changed."""
    root = _workspace(tmp_path / "ws")
    db = tmp_path / "index.sqlite"
    eng = engine.Engine(root, embedder=None, db_path=db)
    try:
        eng.sync()
        store = Store(db)
        before = store.conn.execute("SELECT rid FROM chunks ORDER BY rid").fetchall()
        store.close()
        assert eng.sync().indexed_paths == ()
        store = Store(db)
        assert store.conn.execute("SELECT rid FROM chunks ORDER BY rid").fetchall() == before
        store.close()
    finally:
        eng.close()


@pytest.mark.usefixtures("settled")
def test_an_index_without_the_new_fields_is_migrated_without_a_rebuild(tmp_path: Path) -> None:
    """A schema-v4 index opens as v5 with its chunks; the next sync re-hashes each file
    once, re-indexes none, and from then on finds a same-size rewrite."""
    root = _workspace(tmp_path / "ws")
    db = tmp_path / "index.sqlite"
    eng = engine.Engine(root, embedder=None, db_path=db)
    eng.sync()
    eng.close()
    store = Store(db)
    chunks = store.conn.execute("SELECT rid, id FROM chunks ORDER BY rid").fetchall()
    with store.transaction():  # what memdesk wrote before schema v5
        for column in ("ctime", "inode", "checked_at"):
            store.conn.execute(f"ALTER TABLE files DROP COLUMN {column}")
        store.conn.execute("PRAGMA user_version = 4")
    store.close()

    eng = engine.Engine(root, embedder=None, db_path=db)
    try:
        assert eng.status().dirty_files == ()  # re-hashed: same content, nothing to do
        report = eng.sync()
        assert report.indexed_paths == () and not report.rebuilt
        store = Store(db)
        assert store.conn.execute("SELECT rid, id FROM chunks ORDER BY rid").fetchall() == chunks
        assert store.conn.execute("SELECT count(*) FROM files WHERE ctime IS NULL").fetchall()[0][0] == 0
        store.close()
        _rewrite_keeping_mtime(root / NOTE, "alphaport", "golf1port")
        assert eng.status().dirty_files == (NOTE,)
        eng.sync()
        assert _paths(eng, "golf1port") == [NOTE]
    finally:
        eng.close()


def test_a_file_with_its_mtime_in_the_future_is_not_reread_every_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``touch -d 2030-01-01`` (or a clock skewed share): the racy window is about the last
    change, which the status change time records, not the mtime a user set."""
    root = _workspace(tmp_path / "ws")
    future = time.time_ns() + 3 * 365 * 86_400 * 10**9
    os.utime(root / NOTE, ns=(future, future))
    time.sleep(indexer.RACY_NS / 1e9 + 0.1)  # out of the racy window of that utime
    eng = engine.Engine(root, embedder=None, db_path=tmp_path / "index.sqlite")
    try:
        eng.sync()
        reads: list[Path] = []
        real_read = indexer._read

        def counting_read(path: Path, size: int) -> bytes | None:
            reads.append(path)
            return real_read(path, size)

        monkeypatch.setattr(indexer, "_read", counting_read)
        eng.sync()
        assert reads == []
    finally:
        eng.close()
