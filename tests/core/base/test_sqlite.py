"""SQLite's door: URIs for any path, private files, and snapshots of a database another process owns."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import apsw
import pytest

from memdesk.core import errors
from memdesk.core.base import sqlite


def _listing(folder: Path) -> dict[str, tuple[int, bytes]]:
    return {p.name: (stat.S_IMODE(p.stat().st_mode), p.read_bytes()) for p in folder.iterdir()}


def _db(path: Path, journal: str = "WAL", rows: int = 3) -> None:
    conn = apsw.Connection(str(path))
    conn.execute(f"PRAGMA journal_mode={journal}")
    conn.execute("CREATE TABLE t(x)")
    conn.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(rows)])
    conn.close()


@pytest.mark.parametrize("name", ["a#b?c%d", "100%25 sure", "sp ace & ünï", "q?mode=rw"])
def test_uri_reads_a_path_with_uri_characters(tmp_path: Path, name: str) -> None:
    folder = tmp_path / name
    folder.mkdir()
    _db(folder / "x#1.sqlite", journal="DELETE")
    conn = sqlite.connect(sqlite.uri(folder / "x#1.sqlite", mode="ro"), readonly=True, uri=True)
    try:
        assert sqlite.rows(conn, "SELECT COUNT(*) FROM t") == [(3,)]
    finally:
        conn.close()
    assert sorted(p.name for p in folder.iterdir()) == ["x#1.sqlite"]


def test_uri_quotes_the_path_and_keeps_parameters(tmp_path: Path) -> None:
    made = sqlite.uri(tmp_path / "a#b?c%d" / "db", mode="ro")
    assert made.startswith("file:///") and made.endswith("/a%23b%3Fc%25d/db?mode=ro")


def test_connect_creates_owner_only_files_under_umask_000(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        conn = sqlite.connect(tmp_path / "own.sqlite")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE t(x)")
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
        conn.close()
    finally:
        os.umask(old)
    assert modes == {"own.sqlite": 0o600, "own.sqlite-wal": 0o600, "own.sqlite-shm": 0o600}


def test_snapshot_reads_committed_wal_frames_and_touches_nothing(tmp_path: Path, memdesk_home: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    db = folder / "agent.sqlite"
    _db(db)
    writer = apsw.Connection(str(db))  # the agent, still running
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("INSERT INTO t VALUES (99)")
    before = _listing(folder)
    assert "agent.sqlite-wal" in before
    conn = sqlite.snapshot(db)
    try:
        assert sqlite.rows(conn, "SELECT COUNT(*), MAX(x) FROM t") == [(4, 99)]
    finally:
        conn.close()
    assert _listing(folder) == before
    writer.execute("INSERT INTO t VALUES (100)")
    again = sqlite.snapshot(db)  # a new commit: a new copy
    assert sqlite.rows(again, "SELECT COUNT(*) FROM t") == [(5,)]
    again.close()
    writer.close()
    # Nothing of the agent's data stays in memdesk's data dir.
    assert not [p for p in memdesk_home.iterdir() if p.name.startswith("agent-db-")]


def test_snapshot_of_a_closed_wal_database_creates_no_wal_or_shm(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    _db(folder / "agent.sqlite")
    before = _listing(folder)
    assert list(before) == ["agent.sqlite"]
    conn = sqlite.snapshot(folder / "agent.sqlite")
    assert sqlite.rows(conn, "SELECT COUNT(*) FROM t") == [(3,)]
    conn.close()
    assert _listing(folder) == before


def test_snapshot_copies_again_when_the_database_changes_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "agent.sqlite"
    _db(db, journal="DELETE")
    copies: list[str] = []
    real_copy = sqlite._copy_file

    def copy_while_the_agent_writes(source: str, target: str) -> None:
        real_copy(source, target)
        copies.append(source)
        if len(copies) == 1:  # the agent commits during the first copy
            conn = apsw.Connection(str(db))
            conn.execute("INSERT INTO t VALUES (7)")
            conn.close()

    monkeypatch.setattr(sqlite, "_copy_file", copy_while_the_agent_writes)
    conn = sqlite.snapshot(db)
    assert sqlite.rows(conn, "SELECT COUNT(*) FROM t") == [(4,)]
    conn.close()
    assert len(copies) == 2
    sqlite.snapshot(db).close()  # unchanged since: the cached copy, no new one
    assert len(copies) == 2


def test_snapshot_of_a_missing_or_unreadable_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(errors.StoreError, match="no such database"):
        sqlite.snapshot(tmp_path / "none.sqlite")
    (tmp_path / "junk.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(errors.IndexCorrupt):
        sqlite.snapshot(tmp_path / "junk.sqlite")


def test_snapshot_into_an_unwritable_data_dir_says_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "agent.sqlite"
    _db(db)
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the data dir should be", encoding="utf-8")
    monkeypatch.setenv("MEMDESK_HOME", str(blocker / "home"))
    with pytest.raises(errors.StoreError, match="MEMDESK_HOME"):
        sqlite.snapshot(db)
