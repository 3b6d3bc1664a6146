"""A crash mid-write, a damaged blob, a damaged store: the store stays consistent or is
set aside and started afresh, and no note is touched."""

from __future__ import annotations

import hashlib
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memdesk.core import paths
from memdesk.core.base import sqlite
from memdesk.core.history import open_history

T0 = datetime(2026, 3, 1, tzinfo=UTC)
REPO = Path(__file__).resolve().parents[3]

WRITER = textwrap.dedent(
    """
    import random, sys
    from pathlib import Path
    from memdesk.core.history import open_history
    history = open_history(Path(sys.argv[1]))
    rng = random.Random(int(sys.argv[2]))
    lines = [f"line {n}: " + "x" * rng.randrange(20, 90) + "\\n" for n in range(1500)]
    i = 0
    while True:
        lines[rng.randrange(len(lines))] = f"edit {i} " + "y" * rng.randrange(10, 80) + "\\n"
        note = f"memory/{i % 3}.md"
        history.capture(note, "".join(lines).encode(), source="disk")
        i += 1
        print(i, flush=True)
    """
)


def _all_readable(root: Path) -> int:
    """Every version's content reads back with its own digest; returns how many versions."""
    with open_history(root) as history:
        problems = sqlite.rows(history._conn, "PRAGMA integrity_check")
        assert problems == [("ok",)]
        count = 0
        for note in history.notes():
            for version in history.timeline(note, git=False):
                data = history.content(version)
                assert data is not None, version
                assert hashlib.sha256(data).hexdigest() == version.digest
                count += 1
    return count


def test_a_writer_killed_mid_capture_leaves_every_version_readable(
    tmp_path: Path, memdesk_home: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    env = {**os.environ, "MEMDESK_HOME": str(memdesk_home), "PYTHONPATH": str(REPO)}
    total = 0
    for seed, wanted in ((1, 5), (2, 17), (3, 9)):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root), str(seed)], env=env, stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        deadline = time.monotonic() + 120
        while int(proc.stdout.readline() or 0) < wanted and time.monotonic() < deadline:
            pass
        time.sleep(0.003 * seed)  # land somewhere inside a later capture
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        count = _all_readable(root)
        assert count >= total + wanted
        total = count


def test_a_damaged_blob_reads_as_missing_never_as_wrong_bytes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    with open_history(root) as history:
        first = history.capture("MEMORY.md", b"first version\n" * 50, source="disk", at=T0)
        assert first is not None
        sqlite.rows(history._conn, "UPDATE blobs SET data = substr(data, 1, length(data) / 2)")
        history._blobs.cache.clear()
        with caplog.at_level(logging.WARNING):
            assert history.content(first) is None
        assert "could not be read back" in caplog.text
        # The store goes on: the next version does not build on the damaged one.
        second = history.capture(
            "MEMORY.md", b"second version\n" * 50, source="disk", at=T0 + timedelta(hours=1)
        )
        assert second is not None
        history._blobs.cache.clear()
        assert history.content(second) == b"second version\n" * 50


def test_a_damaged_store_is_set_aside_and_started_afresh(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    note = root / "MEMORY.md"
    note.write_bytes(b"# untouched\n")
    store = paths.history_path_for(root)
    store.write_bytes(b"this is not an SQLite database, just damage " * 100)
    with caplog.at_level(logging.WARNING), open_history(root) as history:
        assert history.needs_baseline()
        assert history.capture("MEMORY.md", b"# untouched\n", source="baseline") is not None
    (aside,) = [p for p in store.parent.iterdir() if ".damaged-" in p.name]
    assert aside.read_bytes().startswith(b"this is not an SQLite database")
    assert sum("set aside" in r.getMessage() for r in caplog.records) == 1
    assert note.read_bytes() == b"# untouched\n"
    assert sorted(p.name for p in root.rglob("*")) == ["MEMORY.md", "memory"]


def test_a_store_of_the_previous_schema_is_set_aside_not_crashed_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Schema 2 (development builds only: blobs found by an 8-byte ``key`` column, full
    zstd frames) cannot be read by this one: it is set aside and a new store started."""
    root = tmp_path / "ws"
    root.mkdir()
    store = paths.history_path_for(root)
    store.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite.connect(store)
    for statement in (
        "CREATE TABLE blobs (id INTEGER PRIMARY KEY, key INTEGER NOT NULL, digest BLOB NOT NULL, "
        "size INTEGER NOT NULL, base INTEGER, depth INTEGER NOT NULL, chain INTEGER NOT NULL, "
        "keyframe INTEGER NOT NULL, data BLOB NOT NULL)",
        "CREATE INDEX blobs_by_key ON blobs(key)",
        "INSERT INTO blobs VALUES (1, 7, x'00', 3, NULL, 0, 0, 0, x'28b52ffd')",
        "PRAGMA user_version = 2",
    ):
        sqlite.rows(conn, statement)
    conn.close()
    with caplog.at_level(logging.WARNING), open_history(root) as history:
        assert history.needs_baseline()
        version = history.capture("MEMORY.md", b"# fresh\n" * 20, source="disk")
        assert version is not None
        history._blobs.cache.clear()
        assert history.content(version) == b"# fresh\n" * 20
    assert "schema 2" in caplog.text
    assert [p for p in store.parent.iterdir() if ".damaged-" in p.name]


def test_damage_found_while_open_sets_the_store_aside_too(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    history = open_history(root)
    try:
        for i in range(60):
            history.capture(f"memory/{i}.md", os.urandom(20_000), source="disk", reason="binary")
            history.capture(
                f"memory/t{i}.md", (f"note {i}\n" + os.urandom(8000).hex()).encode(), source="disk"
            )
        sqlite.rows(history._conn, "PRAGMA wal_checkpoint(TRUNCATE)")
        sqlite.rows(history._conn, "PRAGMA cache_size = 1")
        size = history.path.stat().st_size
        with open(history.path, "r+b") as raw:  # damage every page past the first few
            for offset in range(8192, size, 4096):
                raw.seek(offset)
                raw.write(b"\xde\xad" * 2048)
        with caplog.at_level(logging.WARNING):
            found = history.timeline("memory/t30.md", git=False)
        assert found == []  # read from the new, empty store
        assert "set aside" in caplog.text
        assert history.capture("memory/t30.md", b"again\n", source="disk") is not None
        assert [p for p in history.path.parent.iterdir() if ".damaged-" in p.name]
    finally:
        history.close()


TWO_WRITERS = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from memdesk.core.history import open_history
    history = open_history(Path(sys.argv[1]))
    while not Path(sys.argv[3]).exists():
        time.sleep(0.001)
    for i in range(150):
        assert history.capture(sys.argv[2], f"{sys.argv[2]} v{i}\\n".encode() * 50, source="disk") is not None
    """
)


def test_two_processes_capturing_at_once_both_keep_every_version(tmp_path: Path, memdesk_home: Path) -> None:
    """Each capture reads the note's latest version, then writes: taken as a read, a
    write after the other process's would fail at once instead of waiting its turn."""
    root = tmp_path / "ws"
    root.mkdir()
    go = tmp_path / "go"
    env = {**os.environ, "MEMDESK_HOME": str(memdesk_home), "PYTHONPATH": str(REPO)}
    open_history(root).close()  # the schema exists before they race
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", TWO_WRITERS, str(root), note, str(go)], env=env, stderr=subprocess.PIPE
        )
        for note in ("memory/a.md", "memory/b.md")
    ]
    time.sleep(1.0)
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
    with open_history(root) as history:
        assert [len(history.timeline(n, git=False)) for n in ("memory/a.md", "memory/b.md")] == [150, 150]
