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

SCHEMA_VERSION = 3
BUSY_TIMEOUT_MS = 5_000
# The store's SQLite files besides the database itself.
_SIDECARS = ("-wal", "-shm", "-journal")
# The digest's indexed prefix, as an expression (a query must spell it the same way for
# SQLite to use the index): 4 bytes tell 10,000 contents apart but for a rare collision,
# which the full digest, compared next, settles.
DIGEST_KEY = "substr(digest, 1, 4)"

# Every byte of a row counts: 10,000 versions of a note cost their deltas (~100 bytes
# each for a small edit) plus these rows, so there are no indexes a lookup can do
# without (a period's changes and pruning scan the versions instead: 100,000 rows in
# tens of milliseconds) and the digest is found through an index of its first 4 bytes
# (an expression index: nothing but the digest itself is stored in the row).
SCHEMA = (
    # Key/value: the retention policy, whether the baseline was taken, when it was last
    # pruned. The schema's version lives in PRAGMA user_version.
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, seen INTEGER)",
    # Content, addressed by its sha256 (``DIGEST_KEY``: the indexed part). ``back``:
    # how many ids back the blob is that this one is a zstd delta against (its base, id
    # - back; NULL: a keyframe, compressed on its own); ``depth``: deltas between it and
    # its keyframe; ``room``: the bytes of deltas its chain may still take (its
    # keyframe's size times ``blobs.CHAIN_RATIO``, less the deltas' bytes so far).
    """CREATE TABLE IF NOT EXISTS blobs (
        id INTEGER PRIMARY KEY,
        digest BLOB NOT NULL,
        size INTEGER NOT NULL,
        back INTEGER,
        depth INTEGER NOT NULL,
        room INTEGER NOT NULL,
        data BLOB NOT NULL)""",
    f"CREATE INDEX IF NOT EXISTS blobs_by_key ON blobs({DIGEST_KEY})",
    # One row per version. ``blob`` NULL: content not kept (``reason`` says why);
    # ``sha``: the content's digest when it was seen but not kept (a binary file), so
    # an unchanged one is not recorded again. ``source``: its index in
    # ``version.CAPTURED_SOURCES``. ``size``: NULL when the content is kept (its
    # blob's size is the version's). ``added``/``removed``: distinct lines
    # new in it / gone from the version before (NULL when either is not text).
    # Kept in a note's order (WITHOUT ROWID, keyed by note, time, id): a timeline, a
    # note's latest version and the one before a version are ranges of the table itself,
    # with no index beside it (20 bytes a version). ``id`` is given by the store
    # (``meta``'s "last_version" + 1), unique and never reused.
    """CREATE TABLE IF NOT EXISTS versions (
        note INTEGER NOT NULL,
        at INTEGER NOT NULL,
        id INTEGER NOT NULL,
        source INTEGER NOT NULL,
        size INTEGER,
        blob INTEGER,
        sha BLOB,
        reason TEXT,
        added INTEGER,
        removed INTEGER,
        PRIMARY KEY (note, at, id)) WITHOUT ROWID""",
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
        # Short: a capture waits this long for another process's write, then is logged and
        # skipped; a save or a sync never waits on the history for long.
        conn.setbusytimeout(BUSY_TIMEOUT_MS)
        sqlite.rows(conn, "PRAGMA journal_mode=WAL", where=path)
        # NORMAL in WAL mode: a commit survives the process being killed; only a power
        # loss may drop the last commits, never leave the file inconsistent.
        sqlite.rows(conn, "PRAGMA synchronous=NORMAL", where=path)
        found = int(sqlite.rows(conn, "PRAGMA user_version", where=path)[0][0])
        if found > SCHEMA_VERSION:
            raise errors.StoreError(f"{path}: made by a newer memdesk (schema {found}); not changed")
        if 0 < found < SCHEMA_VERSION:
            # Only development builds wrote schemas 1 and 2 (other columns and indexes).
            raise errors.IndexCorrupt(f"{path}: written by a development version of memdesk (schema {found})")
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
