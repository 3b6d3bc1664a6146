"""The SQLite index (apsw): schema, ordered migrations, sqlite-vec loading, row I/O.

Tables follow OpenClaw's (``meta``, ``files``, ``chunks``, ``chunks_fts``,
``chunks_vec``, ``embedding_cache``) plus ``chunks_fts_seg``, memdesk's
CJK-segmented keyword index. ``chunks.rid`` is the rowid shared by the FTS and
vec0 tables, so a chunk's rows are found without joins on text ids.

The index is disposable: anything that looks corrupt raises ``IndexCorrupt`` and
the engine rebuilds from the Markdown files.

This is the only module that writes SQL for memdesk's index (with ``sqlite.py``, the
only ones importing apsw). Every public method maps apsw's exceptions to memdesk
errors (``sqlite.mapped``): ``IndexCorrupt`` for a damaged file or schema,
``StoreError``/``IndexBusy`` for the machine, ``QueryRejected`` for a refused
statement; callers never see apsw.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple, cast

import apsw
import numpy as np

from memdesk.core import errors, messages
from memdesk.core.base.sqlite import (
    BUSY_TIMEOUT_MS,
    ENVIRONMENT_ERRORS,
    environment_error,
    mapped,
    maps_errors,
)

log = logging.getLogger(__name__)

SCHEMA_VERSION = 6
_TABLE_RE = re.compile(r"CREATE (?:VIRTUAL )?TABLE IF NOT EXISTS (\w+)")
META_KEY = "memdesk_index_meta_v1"
# Set while some chunks are keyword-indexed but not embedded yet (a sync writes
# the keyword index first); a sync that finds it set embeds what is missing.
VECTORS_PENDING_KEY = "memdesk_vectors_pending"
# The format of the chunks' stored MMR tokens once every chunk carries them in it (a
# sync fills in the ones an older memdesk wrote without, ``indexer.sync_files``).
MMR_TOKENS_KEY = "memdesk_mmr_tokens"
SEG_TOKENIZER = "porter unicode61 remove_diacritics 2"


def encode_window_vectors(matrix: np.ndarray) -> bytes:
    """A chunk's window vectors (count x dims) in stored form: per row a float32 scale and
    the row as int8 (``round(x / scale)``, scale = max |x| / 127). A quarter of float32's
    bytes; a window's cosine moves by 2e-4 on average, 1.3e-3 at most (LoCoMo's windows
    against its chunk vectors; what that does to the rankings: docs/quality.md)."""
    rows = np.ascontiguousarray(matrix, dtype=np.float32)
    scale = np.abs(rows).max(axis=1, keepdims=True) / 127.0
    scale[scale == 0] = 1.0
    quantized = np.clip(np.round(rows / scale), -127, 127).astype(np.int8)
    out = np.empty((rows.shape[0], 4 + rows.shape[1]), dtype=np.uint8)
    out[:, :4] = scale.astype("<f4").view(np.uint8)
    out[:, 4:] = quantized.view(np.uint8)
    return out.tobytes()


def decode_window_vectors(blob: bytes, count: int) -> np.ndarray | None:
    """The float32 rows of ``encode_window_vectors``' form, or None when ``blob`` is not
    ``count`` such rows."""
    if count <= 0 or len(blob) % count or len(blob) // count <= 4:
        return None
    raw = np.frombuffer(blob, dtype=np.uint8).reshape(count, -1)
    scale = raw[:, :4].copy().view("<f4")
    decoded: np.ndarray = raw[:, 4:].view(np.int8).astype(np.float32) * scale
    return decoded


# Ordered migrations: index i brings the schema from version i to i+1. Virtual
# tables live here too so that a fresh database and a migrated one are identical.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """CREATE TABLE IF NOT EXISTS files (
            path TEXT PRIMARY KEY, source TEXT NOT NULL DEFAULT 'memory', hash TEXT NOT NULL,
            mtime INTEGER NOT NULL, size INTEGER NOT NULL)""",
        """CREATE TABLE IF NOT EXISTS chunks (
            rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
            source TEXT NOT NULL DEFAULT 'memory', start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL, hash TEXT NOT NULL, model TEXT NOT NULL,
            text TEXT NOT NULL, updated_at INTEGER NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS idx_chunks_path ON chunks(path)",
        "CREATE INDEX IF NOT EXISTS idx_chunks_source ON chunks(source)",
        """CREATE TABLE IF NOT EXISTS embedding_cache (
            provider TEXT NOT NULL, model TEXT NOT NULL, provider_key TEXT NOT NULL,
            hash TEXT NOT NULL, embedding BLOB NOT NULL, dims INTEGER NOT NULL,
            updated_at INTEGER NOT NULL, PRIMARY KEY (provider, model, provider_key, hash))""",
        "CREATE INDEX IF NOT EXISTS idx_embedding_cache_updated_at ON embedding_cache(updated_at)",
        """CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
            text, id UNINDEXED, path UNINDEXED, source UNINDEXED, model UNINDEXED,
            start_line UNINDEXED, end_line UNINDEXED)""",
    ),
    (
        # v2: per-file index status, so failed files show why and are retried only
        # when they change; and the CJK-segmented keyword index.
        "ALTER TABLE files ADD COLUMN status TEXT NOT NULL DEFAULT 'indexed'",
        "ALTER TABLE files ADD COLUMN reason TEXT",
        f"""CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts_seg USING fts5(
            text, tokenize='{SEG_TOKENIZER}', content='', contentless_delete=1)""",
    ),
    (
        # v3: document frequencies of the segmented index, to drop query terms whose
        # BM25 idf FTS5 clamps to ~0 (they cost time and cannot change the ranking).
        "CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts_seg_vocab USING fts5vocab(chunks_fts_seg, row)",
    ),
    (
        # v4: each chunk's MMR token set as ids, written by the sync after its keyword
        # phase, so that a search does not tokenize the texts it diversifies (NULL until
        # then, and in chunks an older memdesk wrote: those are tokenized at search time).
        "ALTER TABLE chunks ADD COLUMN mmr_tokens BLOB",
        # The ids those token sets are written in: assigned once, never reused.
        "CREATE TABLE IF NOT EXISTS mmr_vocab (id INTEGER PRIMARY KEY, token TEXT NOT NULL UNIQUE)",
    ),
    (
        # v5: what a user cannot set back. A note rewritten with the same size and its
        # mtime restored (cp -p, rsync -t, touch -r, a restore) kept (mtime, size) and
        # was never re-indexed; its status change time and inode change all the same.
        # checked_at (ns, taken before the file was read) finds a file written again in
        # the same timestamp tick as the version indexed ("racy", as git calls it).
        # NULL in rows an older memdesk wrote: those files are re-hashed once, and
        # re-indexed only if their content differs.
        "ALTER TABLE files ADD COLUMN ctime INTEGER",
        "ALTER TABLE files ADD COLUMN inode INTEGER",
        "ALTER TABLE files ADD COLUMN checked_at INTEGER",
    ),
    (
        # v6: a chunk's passage-window vectors, pooled from the chunk's own forward pass
        # ("late chunking", ``index/windows.py``), so they belong to the chunk text (its
        # hash), not to the window text: one row per chunk, the windows in the order
        # ``windows.line_windows`` lists them, as int8 (``encode_window_vectors``). ``embedder``
        # is the embedder's provider key.
        """CREATE TABLE IF NOT EXISTS window_vectors (
            embedder TEXT NOT NULL, hash TEXT NOT NULL, count INTEGER NOT NULL,
            vectors BLOB NOT NULL, PRIMARY KEY (embedder, hash))""",
        # The windows an older memdesk embedded as texts of their own sat in the
        # embedding cache under their text's hash, about nine rows per dialog chunk: every
        # row whose hash is no chunk's goes (the new windows are pooled again by the
        # next sync, ``windows.VERSION`` having changed).
        "DELETE FROM embedding_cache WHERE hash NOT IN (SELECT hash FROM chunks)",
    ),
)
assert len(MIGRATIONS) == SCHEMA_VERSION


class FileRow(NamedTuple):
    """What the index recorded about one file when it last read it."""

    hash: str
    mtime: int
    size: int
    status: str
    reason: str | None
    ctime: int | None = None
    """``st_ctime_ns``: changes on every write and ``utime``; nobody can set it back."""
    inode: int | None = None
    checked_at: int | None = None
    """Wall clock (ns) just before the file was read for ``hash``."""


def _int(rows: Sequence[tuple[Any, ...]]) -> int:
    """The first value of a one-value query (a count, a pragma): SQLite returns an integer."""
    return int(rows[0][0])


def _varint(data: bytes) -> int:
    """SQLite's big-endian varint at the start of ``data`` (FTS5 records use it)."""
    value = 0
    for i, byte in enumerate(data[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    return value


def _vec_extension_path() -> str | None:
    try:
        import sqlite_vec
    except ImportError:
        return None
    return str(sqlite_vec.loadable_path())


@dataclasses.dataclass(frozen=True)
class KeywordSplit:
    """An OR query over rare and common terms, answered in two stages
    (``Store.keyword_search``). ``expr`` (the whole query) is ``rare OR common`` with
    the rare terms first, so both stages' BM25 sums add the same terms in the same order.
    """

    rare: str  # FTS5 MATCH expression of the rare terms
    common: str  # and of the common ones
    # More than the common terms can add to any row's relevance (-bm25) together.
    common_bound: float
    # The index state (``term_statistics``) the bound was computed in.
    state: tuple[int, int]


class Store:
    """One connection to a workspace index. Create one per thread that uses it."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.vec_error: str | None = None
        self._seg_table: Any = None
        # term_statistics' answers for one state of the index:
        # (state, chunk count, FTS5 row count, term -> (df, token count)).
        self._df_cache: tuple[tuple[int, int], int, int, dict[str, tuple[int, int]]] | None = None
        # token -> id in mmr_vocab, as far as this connection has looked them up
        self._mmr_vocab: dict[str, int] = {}
        if not readonly and not self.path.exists():
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                # Private memories: the file is created owner-only before SQLite opens it
                # (SQLite gives -wal/-shm the same permissions).
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
            except OSError as exc:
                raise errors.StoreError(
                    f"cannot create the index in {self.path.parent}: {exc.strerror or exc}"
                ) from None
        flags = (
            apsw.SQLITE_OPEN_READONLY if readonly else (apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE)
        )
        try:
            self.conn = apsw.Connection(str(self.path), flags=flags)
        except (apsw.CantOpenError, apsw.PermissionsError, apsw.ReadOnlyError) as exc:
            raise environment_error(exc, self.path) from None
        except apsw.Error as exc:
            raise errors.IndexCorrupt(f"{self.path}: cannot open index ({exc})") from exc
        self.conn.setbusytimeout(BUSY_TIMEOUT_MS)
        self.vec_available = self._load_vec()
        self.identity = file_identity(self.path)
        try:
            if not readonly:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
                self._migrate()
            self.conn.execute("SELECT count(*) FROM meta").fetchall()
            self._check_schema()
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            self.close()
            raise errors.IndexCorrupt(f"{self.path}: index is corrupt ({exc})") from exc
        except apsw.SQLError as exc:
            self.close()
            raise errors.IndexCorrupt(f"{self.path}: index schema is damaged ({exc})") from exc
        except ENVIRONMENT_ERRORS as exc:
            self.close()
            raise environment_error(exc, self.path) from None
        except errors.QueryRejected as exc:  # a migration statement refused (transaction() maps)
            self.close()
            raise errors.IndexCorrupt(f"{self.path}: index schema is damaged ({exc.__cause__})") from exc
        except errors.StoreError:
            self.close()
            raise

    # -- setup ---------------------------------------------------------------
    def _load_vec(self) -> bool:
        if os.environ.get("MEMDESK_DISABLE_SQLITE_VEC"):
            self.vec_error = "disabled by MEMDESK_DISABLE_SQLITE_VEC"
            return False
        ext = _vec_extension_path()
        if ext is None:
            self.vec_error = "the sqlite-vec package is not installed"
            return False
        try:
            self.conn.enable_load_extension(True)
            self.conn.load_extension(ext)
            self.conn.enable_load_extension(False)
        except apsw.Error as exc:
            self.vec_error = f"sqlite-vec failed to load: {exc}"
            log.warning("%s; vector search falls back to a numpy scan", self.vec_error)
            return False
        return True

    def _migrate(self) -> None:
        def version() -> int:
            found = _int(self.conn.execute("PRAGMA user_version").fetchall())
            if found > SCHEMA_VERSION:
                raise errors.IndexCorrupt(
                    f"{self.path}: index schema v{found} is newer than this memdesk (v{SCHEMA_VERSION})"
                )
            return found

        # The version is read again under the write lock: two processes opening a new
        # index both see v0 first, and the one that waited must not replay the other's
        # CREATE statements (it used to report the fresh index as damaged).
        while version() < SCHEMA_VERSION:
            with self.transaction():
                current = version()
                if current >= SCHEMA_VERSION:
                    break
                for statement in MIGRATIONS[current]:
                    self.conn.execute(statement)
                self.conn.execute(f"PRAGMA user_version = {current + 1}")
            log.info("migrated %s to schema v%d", self.path.name, current + 1)

    def _check_schema(self) -> None:
        """Every table the schema version promises exists (a dropped ``chunks`` table once
        raised on every command instead of being rebuilt)."""
        version = _int(self.conn.execute("PRAGMA user_version").fetchall())
        wanted = {name for step in MIGRATIONS[:version] for sql in step for name in _TABLE_RE.findall(sql)}
        present = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = sorted(wanted - present)
        if missing:
            raise errors.IndexCorrupt(f"{self.path}: index schema is damaged (missing {', '.join(missing)})")

    @maps_errors
    def integrity_problem(self) -> str | None:
        """What ``PRAGMA quick_check`` finds wrong (damaged pages anywhere), or None.

        It reads the whole file, so it runs on explicit ``index``/``status`` commands,
        not on every incremental sync.
        """
        try:
            rows = [str(r[0]) for r in self.conn.execute("PRAGMA quick_check(5)")]
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            return str(exc)
        if rows == ["ok"]:
            return None
        problems = [p for row in rows for p in row.splitlines() if p.strip()]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return problems[0] + more

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction that takes the write lock up front (``BEGIN IMMEDIATE``).

        A deferred one that reads first and then writes cannot wait for another
        process's lock (SQLite answers BUSY at once to avoid a deadlock); an
        immediate one waits up to ``BUSY_TIMEOUT_MS``, so two writers take turns.
        Nested calls are savepoints. Environment failures become one-line
        ``StoreError``s (busy, read-only, disk full), as every apsw error is mapped.
        """
        try:
            if self.conn.in_transaction:
                try:
                    with self.conn:
                        yield
                except BaseException:
                    self._mmr_vocab.clear()  # ids given out in the rolled-back savepoint
                    raise
                return
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._mmr_vocab.clear()
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
        except apsw.Error as exc:
            self._mmr_vocab.clear()
            if self.conn.in_transaction:
                with contextlib.suppress(apsw.Error):
                    self.conn.execute("ROLLBACK")
            raise mapped(exc, self.path, own_schema=True) from exc

    def is_current(self) -> bool:
        """False once the file at ``path`` is another one than this connection opened
        (another process swapped a rebuilt index in, or moved a damaged one aside)."""
        return file_identity(self.path) == self.identity

    # -- meta -----------------------------------------------------------------
    @maps_errors
    def get_meta(self) -> dict[str, Any] | None:
        """The index's model and chunking identity; None for a brand-new index.

        An unreadable row raises ``IndexCorrupt``: adopting it would rank one model's
        vectors against another's query vectors.
        """
        rows = self.conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchall()
        if not rows:
            return None
        try:
            value = json.loads(cast(str, rows[0][0]))
        except (ValueError, TypeError):  # ValueError: not JSON, or bytes that are not UTF-8
            value = None
        if not isinstance(value, dict):
            raise errors.IndexCorrupt(f"{self.path}: the index's model record is unreadable")
        return value

    @maps_errors
    def set_meta(self, meta: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
            (META_KEY, json.dumps(meta, sort_keys=True)),
        )

    # -- files ----------------------------------------------------------------
    @maps_errors
    def file_rows(self, paths: Sequence[str] | None = None) -> dict[str, FileRow]:
        """path -> its ``FileRow`` (hash, mtime_ns, size, status, reason, ctime_ns, inode, checked_at);
        ``paths``: those files' rows alone (a sync of a few changed notes).

        A value of the wrong type (SQLite keeps any value in any column) raises
        ``IndexCorrupt``, so the index is rebuilt rather than every sync failing on it.
        """
        sql = "SELECT path, hash, mtime, size, status, reason, ctime, inode, checked_at FROM files"
        rows = (
            self.conn.execute(sql)
            if paths is None
            else (
                row
                for part in range(0, len(paths), 500)  # under SQLite's bound-variable limit
                for row in self.conn.execute(
                    f"{sql} WHERE path IN ({','.join('?' * len(paths[part : part + 500]))})",
                    tuple(paths[part : part + 500]),
                )
            )
        )
        out: dict[str, FileRow] = {}
        for row in rows:
            if not isinstance(row[0], str) or not isinstance(row[5], str | None):
                raise errors.IndexCorrupt(f"{self.path}: a row of its files table is unreadable")
            out[row[0]] = FileRow(
                row[1], row[2], row[3], row[4], None if row[5] is None else messages.loads(row[5]), *row[6:]
            )
        return out

    @maps_errors
    def file_statuses(self) -> dict[str, tuple[str, str | None]]:
        """path -> (status, reason): what the tree and the status line show of each file,
        without the rest of its row (``file_rows``: a third of the time at 20,000 notes).
        A value of the wrong type raises ``IndexCorrupt``, as in ``file_rows``."""
        out: dict[str, tuple[str, str | None]] = {}
        for path, status, reason in self.conn.execute("SELECT path, status, reason FROM files"):
            if not isinstance(path, str) or not isinstance(reason, str | None):
                raise errors.IndexCorrupt(f"{self.path}: a row of its files table is unreadable")
            out[path] = (status, None if reason is None else messages.loads(reason))
        return out

    @maps_errors
    def upsert_file(
        self,
        path: str,
        *,
        hash: str,
        mtime: int,
        size: int,
        status: str = "indexed",
        reason: str | None = None,
        source: str = "memory",
        ctime: int | None = None,
        inode: int | None = None,
        checked_at: int | None = None,
    ) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO files(path, source, hash, mtime, size, status, reason, ctime, inode, "
            "checked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                path,
                source,
                hash,
                mtime,
                size,
                status,
                None if reason is None else messages.dumps(reason),
                ctime,
                inode,
                checked_at,
            ),
        )

    @maps_errors
    def delete_file(self, path: str) -> None:
        self.delete_chunks_of(path)
        self.conn.execute("DELETE FROM files WHERE path = ?", (path,))

    # -- chunks ---------------------------------------------------------------
    @maps_errors
    def delete_chunks_of(self, path: str) -> int:
        rids = [r[0] for r in self.conn.execute("SELECT rid FROM chunks WHERE path = ?", (path,))]
        self._delete_index_rows(rids)
        self.conn.execute("DELETE FROM chunks WHERE path = ?", (path,))
        return len(rids)

    def _delete_index_rows(self, rids: Sequence[int]) -> None:
        """The keyword and vector rows of these chunks (the chunk rows are the caller's)."""
        vec = bool(rids) and self.has_vec_table()
        for rid in rids:
            self.conn.execute("DELETE FROM chunks_fts WHERE rowid = ?", (rid,))
            self.conn.execute("DELETE FROM chunks_fts_seg WHERE rowid = ?", (rid,))
            if vec:
                self.conn.execute("DELETE FROM chunks_vec WHERE rowid = ?", (rid,))

    @maps_errors
    def insert_chunk(
        self,
        *,
        chunk_id: str,
        path: str,
        source: str,
        start_line: int,
        end_line: int,
        hash: str,
        model: str,
        text: str,
        segmented: str,
        embedding: np.ndarray | None,
        shared: bool,
        mmr_tokens: bytes | None = None,
    ) -> int:
        """``mmr_tokens``: the text's MMR token ids in stored form (None: not stored)."""
        now = int(time.time() * 1000)
        # A chunk inserted again under its id replaces the old row; its keyword and
        # vector rows go too, or FTS5 would keep counting them in BM25's idf.
        self._delete_index_rows(
            [r[0] for r in self.conn.execute("SELECT rid FROM chunks WHERE id = ?", (chunk_id,))]
        )
        self.conn.execute(
            "INSERT OR REPLACE INTO chunks(id, path, source, start_line, end_line, hash, model, text,"
            " updated_at, mmr_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (chunk_id, path, source, start_line, end_line, hash, model, text, now, mmr_tokens),
        )
        rid = self.conn.last_insert_rowid()
        self.conn.execute(
            "INSERT INTO chunks_fts(rowid, text, id, path, source, model, start_line, end_line) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (rid, text, chunk_id, path, source, model, start_line, end_line),
        )
        self.conn.execute("INSERT INTO chunks_fts_seg(rowid, text) VALUES (?, ?)", (rid, segmented))
        if embedding is not None and self.vec_available:
            self.ensure_vec_table(int(embedding.shape[0]))
            self.conn.execute(
                "INSERT INTO chunks_vec(rowid, embedding, shared) VALUES (?, ?, ?)",
                (rid, np.ascontiguousarray(embedding, dtype=np.float32).tobytes(), 1 if shared else 0),
            )
        return rid

    @maps_errors
    def counts(self) -> tuple[int, int]:
        files = _int(self.conn.execute("SELECT count(*) FROM files WHERE status = 'indexed'").fetchall())
        return files, _int(self.conn.execute("SELECT count(*) FROM chunks").fetchall())

    @maps_errors
    def data_version(self) -> int:
        """Changes whenever another connection commits: a cheap "has the index changed?"."""
        return _int(self.conn.execute("PRAGMA data_version").fetchall())

    @maps_errors
    def chunk_count_bound(self) -> int:
        """An upper bound of the chunk count from the rowid index (count(*) scans)."""
        return _int(self.conn.execute("SELECT coalesce(max(rid), 0) FROM chunks").fetchall())

    @maps_errors
    def chunk_rows(self, rids: Sequence[int]) -> dict[int, tuple[Any, ...]]:
        """rid -> (id, path, source, start_line, end_line, text, stored MMR tokens or None)."""
        out: dict[int, tuple[Any, ...]] = {}
        for start in range(0, len(rids), 500):
            part = list(rids[start : start + 500])
            marks = ",".join("?" * len(part))
            for row in self.conn.execute(
                f"SELECT rid, id, path, source, start_line, end_line, text, mmr_tokens FROM chunks "
                f"WHERE rid IN ({marks})",
                part,
            ):
                out[row[0]] = row[1:]
        return out

    @maps_errors
    def root_chunk_count(self) -> int:
        """Chunks of the root MEMORY.md / memory.md (left out of the group-chat scope)."""
        return _int(
            self.conn.execute(
                "SELECT count(*) FROM chunks WHERE path IN ('MEMORY.md', 'memory.md')"
            ).fetchall()
        )

    @maps_errors
    def execute(self, sql: str, params: Sequence[Any] = (), /) -> list[tuple[Any, ...]]:
        """Every row of one statement, errors mapped: for the OpenClaw port's keyword leg,
        whose SQL is OpenClaw's own and so lives with the port (``openclaw/keyword_search.py``)."""
        return self.conn.execute(sql, params).fetchall()

    @maps_errors
    def checkpoint(self) -> None:
        """Fold the WAL into the database file (before a finished rebuild is swapped in)."""
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- memdesk's keyword leg ------------------------------------------------------
    @maps_errors
    def keyword_search(
        self, table: str, expr: str, limit: int, *, shared_only: bool, split: KeywordSplit | None = None
    ) -> list[tuple[int, float]]:
        """(rid, -bm25) of the best ``limit`` matches of an FTS5 expression, best first:
        chunks that exist, and with ``shared_only`` none of the root memory file.

        FTS5 ranks on its own, without a join: joining ``chunks`` for every matching
        row (to check it exists, or its path) reads a text-sized row per match, most
        of the cost at 100k chunks. Instead the FTS query asks for as many extra rows
        as could be dropped, and the few rows returned are checked afterwards. SQLite's
        ORDER BY sorts stably (ties in FTS5's rowid order), so the kept rows and their
        order are those of the join. With ``split`` the rows come from ``keyword_two_stage``
        when it can prove they are the same.
        """
        _check_fts_table(table)
        if limit <= 0:
            return []
        excluded: set[int] = set()
        if shared_only:
            excluded = {
                int(r)
                for (r,) in self.conn.execute(
                    "SELECT rid FROM chunks WHERE path IN ('MEMORY.md', 'memory.md')"
                )
            }
        fetch = limit + len(excluded)
        while True:
            rows = self.keyword_two_stage(table, split, fetch) if split is not None else None
            if rows is None:
                rows = [
                    (int(r), -float(s))
                    for r, s in self.conn.execute(
                        f"SELECT rowid, bm25({table}) AS s FROM {table} WHERE {table} MATCH ? "
                        "ORDER BY s LIMIT ?",
                        (expr, fetch),
                    )
                ]
            wanted = [row for row in rows if row[0] not in excluded]
            rids = [rid for rid, _ in wanted]
            present: set[int] = set()
            for start in range(0, len(rids), 500):
                part = rids[start : start + 500]
                marks = ",".join("?" * len(part))
                present.update(
                    int(r)
                    for (r,) in self.conn.execute(f"SELECT rid FROM chunks WHERE rid IN ({marks})", part)
                )
            kept = [row for row in wanted if row[0] in present]
            if len(kept) >= limit or len(rows) < fetch:
                return kept[:limit]
            # Keyword rows without a chunk (a damaged index): look further down the list.
            fetch = 2 * fetch + (limit - len(kept))

    @maps_errors
    def keyword_two_stage(
        self, table: str, split: KeywordSplit, fetch: int
    ) -> list[tuple[int, float]] | None:
        """The best ``fetch`` rows of ``rare OR common`` without scoring every row of the
        common terms, or None when that cannot be proven (the caller runs the one query).

        A row matching the query matches a rare term, or only common ones. Stage one
        takes the best rows of the rare terms alone (a row without common terms scores
        the same there as in the whole query: BM25 adds 0 for an absent term) and every
        row matching both a rare and a common term, scored by the whole query: FTS5
        walks the common terms' doclists only to count them and to seek the rare rows.
        Rows of common terms alone score less than ``common_bound``: when the
        ``fetch``-th best row so far scores more, none of them can place, and the rows
        kept are exactly the one query's (ties in rowid order, as its sort keeps them).
        """
        _check_fts_table(table)
        select = f"SELECT rowid, bm25({table}) AS s FROM {table} WHERE {table} MATCH ?"
        with self.conn:  # one read transaction: both stages and the check see one state
            score = {
                int(r): -float(s)
                for r, s in self.conn.execute(select + " ORDER BY s LIMIT ?", (split.rare, fetch))
            }
            state = (_int(self.conn.execute("PRAGMA data_version").fetchall()), self.conn.total_changes())
            if state != split.state:
                return None  # the bound is of another state of the index
            score.update(
                (int(r), -float(s))
                for r, s in self.conn.execute(select, (f"({split.rare}) AND ({split.common})",))
            )
        if len(score) < fetch:
            return None
        best = sorted(score.items(), key=lambda row: (-row[1], row[0]))[:fetch]
        return best if split.common_bound < best[-1][1] else None

    @maps_errors
    def keyword_score_of(self, table: str, expr: str, rid: int) -> float | None:
        """-bm25 of one chunk for an FTS5 expression, None when it does not match.

        One rowid-constrained MATCH: FTS5 seeks each doclist to that rowid, far
        cheaper than scoring every match and filtering.
        """
        _check_fts_table(table)
        for (score,) in self.conn.execute(
            f"SELECT bm25({table}) FROM {table} WHERE {table} MATCH ? AND rowid = ?", (expr, rid)
        ):
            return -float(score)
        return None

    # -- vectors ----------------------------------------------------------------
    @maps_errors
    def has_vec_table(self) -> bool:
        return bool(self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec'").fetchall())

    @maps_errors
    def ensure_vec_table(self, dims: int) -> None:
        if self.has_vec_table():
            return
        # Brute-force exact KNN over cosine distance, like OpenClaw's vec_distance_cosine
        # scan; `shared` is a metadata column so group-chat scope filters inside the scan.
        self.conn.execute(
            f"CREATE VIRTUAL TABLE chunks_vec USING vec0("
            f"embedding float[{int(dims)}] distance_metric=cosine, shared integer)"
        )

    @maps_errors
    def vector_search(self, query: np.ndarray, k: int, *, shared_only: bool) -> list[tuple[int, float]]:
        """(rid, cosine similarity) of the k nearest chunks (sqlite-vec)."""
        if not self.has_vec_table() or k <= 0:
            return []
        blob = np.ascontiguousarray(query, dtype=np.float32).tobytes()
        sql = "SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ?"
        if shared_only:
            sql += " AND shared = 1"
        return [(int(r), 1.0 - float(d)) for r, d in self.conn.execute(sql, (blob, int(k)))]

    @maps_errors
    def vec_embedding(self, rid: int) -> np.ndarray | None:
        """One chunk's vector from sqlite-vec (a vec0 point look-up)."""
        for (blob,) in self.conn.execute("SELECT embedding FROM chunks_vec WHERE rowid = ?", (int(rid),)):
            return np.frombuffer(blob, dtype=np.float32)
        return None

    @maps_errors
    def vec_table_vectors(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rids, shared flags, matrix) read from sqlite-vec, for the in-memory scan."""
        if not self.has_vec_table():
            return np.zeros(0, np.int64), np.zeros(0, bool), np.zeros((0, 0), np.float32)
        fast = self._vec_shadow_vectors()
        if fast is not None:
            return fast
        rows = self.conn.execute("SELECT rowid, shared, embedding FROM chunks_vec").fetchall()
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, bool), np.zeros((0, 0), np.float32)
        rids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        shared = np.fromiter((bool(r[1]) for r in rows), dtype=bool, count=len(rows))
        matrix = np.frombuffer(b"".join(cast(bytes, r[2]) for r in rows), dtype=np.float32).reshape(
            len(rows), -1
        )
        return rids, shared, matrix

    def _vec_shadow_vectors(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The vectors straight from vec0's storage tables, or None when their layout is
        not the one expected (then the caller reads through vec0, ~6x slower).

        vec0 keeps vectors in chunks of slots: ``chunks_vec_chunks`` holds each chunk's
        slot count, validity bitmap (LSB first) and int64 rowids, and
        ``chunks_vec_vector_chunks00`` its float32 vectors. Reading a few large blobs
        costs ~3 ms per 1,000 vectors where vec0's row-by-row read costs ~20. Every blob
        size is checked, and the row count against vec0's own rowid table. The matrix
        is filled chunk by chunk, so one storage blob at a time is held beside it.
        """
        try:
            chunks = cast(
                list[tuple[int, int, bytes, bytes]],
                self.conn.execute(
                    "SELECT chunk_id, size, validity, rowids FROM chunks_vec_chunks ORDER BY chunk_id"
                ).fetchall(),
            )
            expected = _int(self.conn.execute("SELECT count(*) FROM chunks_vec_rowids").fetchall())
            root = [
                int(r)
                for (r,) in self.conn.execute(
                    "SELECT rid FROM chunks WHERE path IN ('MEMORY.md', 'memory.md')"
                )
            ]
            layout: list[tuple[int, int, np.ndarray, np.ndarray]] = []
            for chunk_id, size, validity, rowids in chunks:
                if size <= 0 or len(validity) * 8 < size or len(rowids) != 8 * size:
                    return None
                valid = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")[:size].astype(
                    bool
                )
                layout.append((int(chunk_id), int(size), valid, np.frombuffer(rowids, "<i8")[valid]))
            total = sum(len(r) for *_, r in layout)
            if total != expected:
                return None
            if total == 0:
                return np.zeros(0, np.int64), np.zeros(0, bool), np.zeros((0, 0), np.float32)
            matrix: np.ndarray | None = None
            start = 0
            for chunk_id, size, valid, chunk_rids in layout:
                found = self.conn.execute(
                    "SELECT vectors FROM chunks_vec_vector_chunks00 WHERE rowid = ?", (chunk_id,)
                ).fetchall()
                if len(found) != 1 or not isinstance(found[0][0], bytes):
                    return None
                blob = found[0][0]
                if len(blob) % (4 * size):
                    return None
                dims = len(blob) // (4 * size)
                if matrix is None:
                    matrix = np.empty((total, dims), dtype=np.float32)
                elif dims != matrix.shape[1]:
                    return None
                count = len(chunk_rids)
                matrix[start : start + count] = np.frombuffer(blob, "<f4").reshape(size, dims)[valid]
                start += count
        except apsw.SQLError:  # another sqlite-vec storage layout
            return None
        assert matrix is not None
        rids = np.concatenate([r for *_, r in layout]).astype(np.int64)
        # The scope flag is the chunk's path (what the indexer stores in vec0's column).
        shared = ~np.isin(rids, np.array(root, dtype=np.int64))
        return rids, shared, matrix

    @maps_errors
    def cached_vectors_for(
        self, rids: Sequence[int], provider: str, model: str, provider_key: str
    ) -> dict[int, np.ndarray]:
        """rid -> embedding from the embedding cache (one indexed join; the indexer
        always writes the cache, so this covers every embedded chunk)."""
        out: dict[int, np.ndarray] = {}
        for start in range(0, len(rids), 500):
            part = [int(r) for r in rids[start : start + 500]]
            marks = ",".join("?" * len(part))
            for rid, blob in self.conn.execute(
                f"SELECT c.rid, e.embedding FROM chunks c JOIN embedding_cache e "
                f"ON e.provider = ? AND e.model = ? AND e.provider_key = ? AND e.hash = c.hash "
                f"WHERE c.rid IN ({marks})",
                (provider, model, provider_key, *part),
            ):
                out[int(rid)] = np.frombuffer(blob, dtype=np.float32)
        return out

    @maps_errors
    def document_frequencies(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(chunk count, term -> number of chunks containing it) in the segmented index.

        Terms are run through the index's own tokenizer first (porter stemming), and
        a term that tokenizes to several tokens reports its rarest one.
        """
        total, _, stats = self.term_statistics(terms)
        return total, {term: df for term, (df, _) in stats.items()}

    @maps_errors
    def term_statistics(self, terms: Sequence[str]) -> tuple[int, int, dict[str, tuple[int, int]]]:
        """(chunk count, the segmented FTS5 table's own row count, term -> (number of its
        rows containing the term, how many tokens the term is)): the figures FTS5's BM25
        takes its idf from, for one state of the index.

        A term of several tokens reports its rarest token's count (a phrase is no
        more frequent than that).
        """
        import apsw.fts5

        if self._seg_table is None:
            self._seg_table = apsw.fts5.Table(self.conn, "chunks_fts_seg")
        table = self._seg_table
        # fts5vocab counts a term's documents by walking its whole doclist, and count(*)
        # walks an index: ~1 ms each per frequent term at 100k chunks. The answers hold
        # until the index changes (another connection's commit, or this one's writes).
        # One read transaction, so every figure is of the same state.
        with self.conn:
            state = (_int(self.conn.execute("PRAGMA data_version").fetchall()), self.conn.total_changes())
            if self._df_cache is None or self._df_cache[0] != state or len(self._df_cache[3]) > 4096:
                total = _int(self.conn.execute("SELECT count(*) FROM chunks").fetchall())
                self._df_cache = (state, total, self._fts_row_count("chunks_fts_seg"), {})
            _, total, fts_rows, known = self._df_cache
            out: dict[str, tuple[int, int]] = {}
            for term in terms:
                if term in known:
                    out[term] = known[term]
                    continue
                tokens = table.tokenize(term.encode("utf-8"), include_offsets=False, include_colocated=False)
                counts = []
                for token in tokens:
                    row = self.conn.execute(
                        "SELECT doc FROM chunks_fts_seg_vocab WHERE term = ?", (token,)
                    ).fetchall()
                    counts.append(_int(row) if row else 0)
                out[term] = known[term] = (min(counts) if counts else 0, len(counts))
        return total, fts_rows, out

    def term_statistics_state(self) -> tuple[int, int] | None:
        """The index state ``term_statistics``' last answers are of."""
        return None if self._df_cache is None else self._df_cache[0]

    def _fts_row_count(self, table: str) -> int:
        """FTS5's own row count (the N of its BM25 idf): the first varint of the table's
        averages record (``%_data`` row 1), which FTS5 keeps on every insert and delete.
        It can exceed the chunk count: rows of replaced chunks are never matched, but
        still counted."""
        _check_fts_table(table)
        rows = self.conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchall()
        block = rows[0][0] if rows else None
        return _varint(block) if isinstance(block, bytes) and block else 0

    @maps_errors
    def all_vectors(
        self, provider: str, model: str, provider_key: str
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rids, shared flags, matrix) for the numpy fallback scan, from the cache."""
        rows = self.conn.execute(
            # CROSS JOIN keeps chunks outermost: one primary-key look-up per chunk. Left to
            # itself the planner scanned every chunk for each cached vector (minutes at 10k).
            "SELECT c.rid, c.path, e.embedding FROM chunks c CROSS JOIN embedding_cache e "
            "ON e.provider = ? AND e.model = ? AND e.provider_key = ? AND e.hash = c.hash",
            (provider, model, provider_key),
        ).fetchall()
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, bool), np.zeros((0, 0), np.float32)
        rids = np.array([r[0] for r in rows], dtype=np.int64)
        shared = np.array([r[1] not in ("MEMORY.md", "memory.md") for r in rows], dtype=bool)
        matrix = np.stack([np.frombuffer(cast(bytes, r[2]), dtype=np.float32) for r in rows])
        return rids, shared, matrix

    # -- embedding cache ------------------------------------------------------------
    @maps_errors
    def cached_embeddings(
        self, provider: str, model: str, provider_key: str, hashes: Sequence[str]
    ) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 400):  # OpenClaw's look-up group size
            part = unique[start : start + 400]
            marks = ",".join("?" * len(part))
            for h, blob in self.conn.execute(
                f"SELECT hash, embedding FROM embedding_cache WHERE provider = ? AND model = ? "
                f"AND provider_key = ? AND hash IN ({marks})",
                (provider, model, provider_key, *part),
            ):
                out[h] = np.frombuffer(blob, dtype=np.float32).copy()
        return out

    @maps_errors
    def put_embeddings(
        self, provider: str, model: str, provider_key: str, items: dict[str, np.ndarray]
    ) -> None:
        now = int(time.time() * 1000)
        self.conn.executemany(
            "INSERT OR REPLACE INTO embedding_cache(provider, model, provider_key, hash, embedding,"
            " dims, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    provider,
                    model,
                    provider_key,
                    h,
                    np.ascontiguousarray(v, np.float32).tobytes(),
                    int(v.shape[0]),
                    now,
                )
                for h, v in items.items()
            ],
        )

    @maps_errors
    def window_vectors(self, embedder: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """chunk hash -> its windows' vectors (count x dims, float32) for this embedder."""
        out: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 400):
            part = unique[start : start + 400]
            marks = ",".join("?" * len(part))
            for h, count, blob in self.conn.execute(
                f"SELECT hash, count, vectors FROM window_vectors WHERE embedder = ? AND hash IN ({marks})",
                (embedder, *part),
            ):
                decoded = decode_window_vectors(cast(bytes, blob), int(count))
                if decoded is not None:
                    out[str(h)] = decoded
        return out

    @maps_errors
    def stored_window_hashes(self, embedder: str, hashes: Iterable[str]) -> set[str]:
        """Which of these chunk hashes have their window vectors stored."""
        unique = list(dict.fromkeys(hashes))
        out: set[str] = set()
        for start in range(0, len(unique), 400):
            part = unique[start : start + 400]
            marks = ",".join("?" * len(part))
            out.update(
                str(h)
                for (h,) in self.conn.execute(
                    f"SELECT hash FROM window_vectors WHERE embedder = ? AND hash IN ({marks})",
                    (embedder, *part),
                )
            )
        return out

    @maps_errors
    def put_window_vectors(self, embedder: str, items: dict[str, np.ndarray]) -> None:
        """Store each chunk hash's window vectors (count x dims)."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO window_vectors(embedder, hash, count, vectors) VALUES (?, ?, ?, ?)",
            [(embedder, h, int(m.shape[0]), encode_window_vectors(m)) for h, m in items.items()],
        )

    @maps_errors
    def chunk_hashes_without_windows(self, embedder: str) -> list[str]:
        """Hashes of the distinct chunk texts with no window row for this embedder (prose
        chunks, which have no windows, among them), in index order: hashes alone, so a sync
        during the windows phase reads no chunk text it has looked at before
        (``indexer._embed_missing``)."""
        return [
            str(h)
            for (h,) in self.conn.execute(
                "SELECT c.hash FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM window_vectors w "
                "WHERE w.embedder = ? AND w.hash = c.hash) GROUP BY c.hash ORDER BY min(c.rid)",
                (embedder,),
            )
        ]

    @maps_errors
    def chunk_texts_by_hash(self, hashes: Iterable[str]) -> dict[str, str]:
        """chunk hash -> its text, for those of ``hashes`` some chunk has."""
        unique = list(dict.fromkeys(hashes))
        out: dict[str, str] = {}
        for start in range(0, len(unique), 400):
            part = unique[start : start + 400]
            marks = ",".join("?" * len(part))
            for h, text in self.conn.execute(
                f"SELECT hash, text FROM chunks WHERE hash IN ({marks}) GROUP BY hash", tuple(part)
            ):
                out[str(h)] = str(text)
        return out

    @maps_errors
    def copy_cache_from(self, other: Path) -> int:
        """Seed this index's embedding cache from another index file (safe rebuild)."""

        def copy(has_windows: bool) -> int:
            self.conn.execute("INSERT OR IGNORE INTO embedding_cache SELECT * FROM src.embedding_cache")
            copied = int(self.conn.changes())
            if has_windows:
                self.conn.execute("INSERT OR IGNORE INTO window_vectors SELECT * FROM src.window_vectors")
            return copied

        return self._copy_from(other, copy, "the embedding cache")

    @maps_errors
    def copy_embeddings_from(
        self, other: Path, provider: str, model: str, provider_key: str, hashes: Sequence[str]
    ) -> int:
        """Copy the vectors of ``hashes`` (chunk text hashes) this index lacks from another
        index file's embedding cache, with those chunks' passage-window vectors; how many
        rows were copied.

        Unlike ``copy_cache_from`` it takes only what is asked: an index of memory as
        it was on a past day (``core/asof``) reuses the live index's vectors for its
        unchanged text without copying the whole cache.
        """
        unique = list(dict.fromkeys(hashes))
        if not unique or (other.exists() and other.resolve() == self.path.resolve()):
            return 0

        def copy(has_windows: bool) -> int:
            copied = 0
            for start in range(0, len(unique), 400):
                part = unique[start : start + 400]
                marks = ",".join("?" * len(part))
                self.conn.execute(
                    "INSERT OR IGNORE INTO embedding_cache SELECT * FROM src.embedding_cache "
                    f"WHERE provider = ? AND model = ? AND provider_key = ? AND hash IN ({marks})",
                    (provider, model, provider_key, *part),
                )
                copied += int(self.conn.changes())
                if has_windows:  # a chunk's passage windows, stored by its hash
                    self.conn.execute(
                        "INSERT OR IGNORE INTO window_vectors SELECT * FROM src.window_vectors "
                        f"WHERE embedder = ? AND hash IN ({marks})",
                        (provider_key, *part),
                    )
                    copied += int(self.conn.changes())
            return copied

        return self._copy_from(other, copy, "the embeddings")

    def _copy_from(self, other: Path, copy: Callable[[bool], int], what: str) -> int:
        """Run ``copy(has_windows)`` in one transaction with the index file ``other``
        attached as ``src`` (``has_windows``: it has a ``window_vectors`` table); its
        count, or 0 when ``other`` is missing or cannot be read (a warning naming it)."""
        if not other.exists():
            return 0
        try:
            self.conn.execute("ATTACH DATABASE ? AS src", (str(other),))
        except apsw.Error:
            return 0
        try:
            has_windows = bool(
                self.conn.execute("SELECT 1 FROM src.sqlite_master WHERE name = 'window_vectors'").fetchall()
            )
            with self.conn:
                copied = copy(has_windows)
            return copied
        except apsw.Error as exc:
            log.warning("could not reuse %s of %s: %s", what, other, exc)
            return 0
        finally:
            with contextlib.suppress(apsw.Error):
                self.conn.execute("DETACH DATABASE src")

    # -- keyword first, vectors after --------------------------------------------------
    @maps_errors
    def vectors_pending(self) -> bool:
        rows = self.conn.execute("SELECT value FROM meta WHERE key = ?", (VECTORS_PENDING_KEY,)).fetchall()
        return bool(rows) and rows[0][0] == "1"

    @maps_errors
    def set_vectors_pending(self, pending: bool) -> None:
        if pending:
            self.conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')", (VECTORS_PENDING_KEY,)
            )
        else:
            self.conn.execute("DELETE FROM meta WHERE key = ?", (VECTORS_PENDING_KEY,))

    @maps_errors
    def mmr_tokens_format(self) -> int | None:
        """The stored MMR tokens' format every chunk has (``MMR_TOKENS_KEY``), if recorded."""
        rows = self.conn.execute("SELECT value FROM meta WHERE key = ?", (MMR_TOKENS_KEY,)).fetchall()
        return int(str(rows[0][0])) if rows else None

    @maps_errors
    def set_mmr_tokens_format(self, fmt: int | None) -> None:
        """Record that every chunk has stored MMR tokens of format ``fmt`` (None: not known)."""
        if fmt is None:
            self.conn.execute("DELETE FROM meta WHERE key = ?", (MMR_TOKENS_KEY,))
        else:
            self.conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (MMR_TOKENS_KEY, str(fmt))
            )

    @maps_errors
    def mmr_token_ids(self, tokens: Iterable[str]) -> list[int]:
        """The ids of ``tokens`` in the index's MMR vocabulary, new tokens added (inside a
        write transaction). Ids known to this connection are kept until a roll-back."""
        known = self._mmr_vocab
        tokens = list(tokens)
        new = [t for t in dict.fromkeys(tokens) if t not in known]
        for start in range(0, len(new), 500):
            part = new[start : start + 500]
            # Another connection may have added some: the ids are read back, never assumed.
            self.conn.executemany("INSERT OR IGNORE INTO mmr_vocab(token) VALUES (?)", [(t,) for t in part])
            marks = ",".join("?" * len(part))
            for token, found in self.conn.execute(
                f"SELECT token, id FROM mmr_vocab WHERE token IN ({marks})", part
            ):
                known[str(token)] = int(found)
        return [known[t] for t in tokens]

    @maps_errors
    def chunks_without_mmr_tokens(self, fmt: int) -> list[tuple[int, str]]:
        """(rid, text) of chunks whose stored MMR tokens are missing or of another format."""
        header = int(fmt).to_bytes(4, "little", signed=True)  # the format number leads the ids
        return [
            (int(rid), str(text))
            for rid, text in self.conn.execute(
                "SELECT rid, text FROM chunks WHERE mmr_tokens IS NULL OR substr(mmr_tokens, 1, 4) != ?",
                (header,),
            )
        ]

    @maps_errors
    def set_chunk_mmr_tokens(self, rid: int, stored: bytes) -> None:
        self.conn.execute("UPDATE chunks SET mmr_tokens = ? WHERE rid = ?", (stored, rid))

    @maps_errors
    def chunks_missing_vectors(
        self, provider: str, model: str, provider_key: str
    ) -> list[tuple[int, str, str, str]]:
        """(rid, hash, path, text) of chunks with no vector for this embedder, in index order.

        The embedding cache holds every vector the indexer wrote (sqlite-vec or not),
        so "no cache row for the chunk's hash" is "not embedded".
        """
        return [
            (int(rid), str(h), str(path), str(text))
            for rid, h, path, text in self.conn.execute(
                "SELECT c.rid, c.hash, c.path, c.text FROM chunks c WHERE NOT EXISTS ("
                "SELECT 1 FROM embedding_cache e WHERE e.provider = ? AND e.model = ? "
                "AND e.provider_key = ? AND e.hash = c.hash) ORDER BY c.rid",
                (provider, model, provider_key),
            )
        ]

    @maps_errors
    def chunk_texts(self) -> list[tuple[int, str]]:
        """(rid, text) of every chunk, in index order (passage windows are made from it)."""
        return [
            (int(rid), str(text))
            for rid, text in self.conn.execute("SELECT rid, text FROM chunks ORDER BY rid")
        ]

    @maps_errors
    def set_chunk_vectors(self, items: Sequence[tuple[int, np.ndarray, bool]]) -> None:
        """Attach vectors to chunks already written: (rid, embedding, shared) each."""
        if not self.vec_available or not items:
            return
        self.ensure_vec_table(int(items[0][1].shape[0]))
        # vec0 has no INSERT OR REPLACE: drop a stale row first (normally there is none).
        self.conn.executemany("DELETE FROM chunks_vec WHERE rowid = ?", [(int(r),) for r, _, _ in items])
        self.conn.executemany(
            "INSERT INTO chunks_vec(rowid, embedding, shared) VALUES (?, ?, ?)",
            [
                (int(rid), np.ascontiguousarray(vec, dtype=np.float32).tobytes(), 1 if shared else 0)
                for rid, vec, shared in items
            ],
        )

    def size_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                total += os.path.getsize(str(self.path) + suffix)
        return total


FTS_TABLES = ("chunks_fts", "chunks_fts_seg")


def _check_fts_table(table: str) -> None:
    # Table names cannot be bound as parameters: only the two known ones are allowed.
    if table not in FTS_TABLES:
        raise ValueError(f"unknown FTS table {table!r}")


def file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode): tells a file replaced by another process from the one opened."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def remove_index_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(path) + suffix)


def swap_in(new: Path, target: Path) -> None:
    """Replace ``target`` by the finished ``new`` index (both closed, WAL checkpointed)."""
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(target) + suffix)
    os.replace(new, target)
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(new) + suffix)
