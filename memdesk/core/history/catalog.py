"""The version store's SQLite file: its schema, and setting a damaged file aside.

One file per workspace in the data dir (``paths.history_path_for``). Content lives in
the same file as the catalog (table ``blobs``), so a version's row and its content are
committed in one transaction: a crash mid-write leaves both or neither, never a row
pointing at missing or half-written content.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from pathlib import Path

from memdesk.core import errors
from memdesk.core.base import sqlite

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
# The store's SQLite files besides the database itself.
_SIDECARS = ("-wal", "-shm", "-journal")

SCHEMA = (
    # Key/value: the schema's version lives in PRAGMA user_version; here the retention
    # policy, whether the baseline was taken, the badge's starting point.
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, seen INTEGER)",
    # Content, addressed by its sha256. ``base``: the blob this one is a zstd delta
    # against (NULL: compressed on its own); ``depth``: how many bases lie beneath it.
    """CREATE TABLE IF NOT EXISTS blobs (
        id INTEGER PRIMARY KEY,
        digest BLOB NOT NULL UNIQUE,
        size INTEGER NOT NULL,
        base INTEGER REFERENCES blobs(id),
        depth INTEGER NOT NULL,
        data BLOB NOT NULL)""",
    # One row per version. ``blob`` NULL: content not kept (``reason`` says why);
    # ``sha``: the content's digest when it was seen but not kept (a binary file), so
    # an unchanged one is not recorded again.
    """CREATE TABLE IF NOT EXISTS versions (
        id INTEGER PRIMARY KEY,
        note INTEGER NOT NULL REFERENCES notes(id),
        at INTEGER NOT NULL,
        source TEXT NOT NULL,
        size INTEGER NOT NULL,
        blob INTEGER REFERENCES blobs(id),
        sha BLOB,
        reason TEXT)""",
    "CREATE INDEX IF NOT EXISTS versions_by_note ON versions(note, at)",
    "CREATE INDEX IF NOT EXISTS versions_by_time ON versions(at)",
    "CREATE INDEX IF NOT EXISTS versions_by_blob ON versions(blob)",
    "CREATE INDEX IF NOT EXISTS blobs_by_base ON blobs(base)",
)


def open_catalog(path: Path) -> sqlite.Connection:
    """The store at ``path``, created if missing; a damaged file is set aside (renamed,
    one log line) and an empty store started in its place. Notes are never touched."""
    try:
        return _open(path)
    except errors.IndexCorrupt as exc:
        set_aside(path, str(exc))
        return _open(path)


def _open(path: Path) -> sqlite.Connection:
    conn = sqlite.connect(path)
    try:
        conn.setbusytimeout(sqlite.BUSY_TIMEOUT_MS)
        sqlite.rows(conn, "PRAGMA journal_mode=WAL", where=path)
        # NORMAL in WAL mode: a commit survives the process being killed; only a power
        # loss may drop the last commits, never leave the file inconsistent.
        sqlite.rows(conn, "PRAGMA synchronous=NORMAL", where=path)
        found = int(sqlite.rows(conn, "PRAGMA user_version", where=path)[0][0])
        if found > SCHEMA_VERSION:
            raise errors.StoreError(f"{path}: made by a newer memdesk (schema {found}); not changed")
        with conn:
            for statement in SCHEMA:
                sqlite.rows(conn, statement, where=path)
            if found < SCHEMA_VERSION:
                sqlite.rows(conn, f"PRAGMA user_version = {SCHEMA_VERSION}", where=path)
        # A file whose pages are damaged may still open: read each table once.
        for table in ("meta", "notes", "blobs", "versions"):
            sqlite.rows(conn, f"SELECT count(*) FROM {table}", where=path)
    except BaseException:
        conn.close()
        raise
    return conn


def set_aside(path: Path, why: str) -> Path:
    """Rename the damaged store (and its SQLite sidecars) beside itself, for a post-mortem."""
    aside = path.with_name(f"{path.name}.damaged-{time.time_ns()}")
    for suffix in ("", *_SIDECARS):
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    log.warning("the version store %s was damaged (%s): set aside as %s, a new one started", path, why, aside)
    return aside
