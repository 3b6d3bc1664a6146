"""SQLite's one door for the rest of memdesk: opening connections and mapping errors.

apsw is imported here and in ``store.py`` (memdesk's own index) only; an
import-linter contract in ``pyproject.toml`` enforces it. Modules whose SQL is
OpenClaw's own (the port's keyword search and 2026.9 index, the agent's index read
read-only) or an in-memory FTS5 helper (session transcripts, highlighting) open
their connections here and see ``MemdeskError`` subclasses, never apsw's:

* a damaged file: ``IndexCorrupt``;
* a statement SQLite refuses (an FTS5 query it cannot parse, a missing table):
  ``QueryRejected``;
* the machine (busy, read-only, disk full): a one-line ``StoreError``/``IndexBusy``.

Every URI filename is built by :func:`uri` (a path holding ``#``, ``?`` or ``%`` is
percent-encoded, not cut short). A database memdesk does not own (the agent's) is
read through :func:`snapshot`, which never creates, changes or deletes a file beside
it: not even SQLite's ``-wal``/``-shm``, which a ``mode=ro`` connection creates for a
WAL database in a writable folder, and which cannot be created on a read-only mount.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import shutil
import stat
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar, cast

import apsw

from memdesk.core import errors, paths

Connection = apsw.Connection
Row = tuple[Any, ...]
# How long a writer waits for another process's write lock before giving up with a
# one-line error; batches are small, so a turn rarely takes more than a second.
BUSY_TIMEOUT_MS = 30_000

ENVIRONMENT_ERRORS: tuple[type[apsw.Error], ...] = (
    apsw.BusyError,
    apsw.LockedError,
    apsw.FullError,
    apsw.ReadOnlyError,
    apsw.CantOpenError,
    apsw.PermissionsError,
    apsw.IOError,
)
CORRUPT_ERRORS: tuple[type[apsw.Error], ...] = (apsw.CorruptError, apsw.NotADBError)

P = ParamSpec("P")
R = TypeVar("R")


class Executes(Protocol):
    """Anything that runs one statement and yields its rows: an apsw connection, a
    ``Store`` (which maps errors), the parity runner's in-memory database."""

    def execute(self, sql: str, params: Sequence[Any] = ..., /) -> Iterable[Row]: ...


def environment_error(exc: BaseException, path: Path) -> errors.StoreError:
    """The one-line error for a failure of the machine, not of memdesk or the index."""
    if isinstance(exc, (apsw.BusyError, apsw.LockedError)):
        return errors.IndexBusy(
            f"the index {path.name} is busy: another memdesk process kept it locked for "
            f"{BUSY_TIMEOUT_MS // 1000} s; try again when it has finished"
        )
    if isinstance(exc, apsw.FullError) or getattr(exc, "errno", None) == errno.ENOSPC:
        return errors.StoreError(
            f"the disk holding the index ({path.parent}) is full; free some space and run "
            "memdesk index again (no note was changed)"
        )
    if isinstance(exc, (apsw.ReadOnlyError, apsw.CantOpenError, apsw.PermissionsError)):
        return errors.StoreError(
            f"cannot write the index in {path.parent}: the folder or file is read-only "
            "(set MEMDESK_HOME to a writable folder)"
        )
    return errors.StoreError(f"the index {path} could not be read or written: {exc}")


def mapped(exc: apsw.Error, path: Path | str, *, own_schema: bool = False) -> errors.StoreError:
    """apsw's exception as the memdesk error a caller can act on.

    ``own_schema``: the database is one memdesk built, so "no such table/column"
    means its schema is damaged (``IndexCorrupt``, rebuilt); elsewhere it is a
    refused statement (an FTS5 query naming a column that is not there).
    """
    where = Path(path)
    if isinstance(exc, CORRUPT_ERRORS):
        return errors.IndexCorrupt(f"{where}: index is corrupt ({exc})")
    if isinstance(exc, apsw.SQLError):
        if own_schema and "no such" in str(exc):
            return errors.IndexCorrupt(f"{where}: index schema is damaged ({exc})")
        return errors.QueryRejected(f"{where}: SQLite refused a statement ({exc})")
    if isinstance(exc, ENVIRONMENT_ERRORS):
        return environment_error(exc, where)
    return errors.StoreError(f"{where}: index error ({exc})")


def maps_errors(method: Callable[P, R]) -> Callable[P, R]:
    """Re-raise apsw's exceptions from a method of memdesk's index store (an object
    with a ``path``) as memdesk errors, its schema being memdesk's own."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except apsw.Error as exc:
            raise mapped(exc, getattr(args[0], "path", "index"), own_schema=True) from exc

    return wrapper


def connect(path: Path | str, *, readonly: bool = False, uri: bool = False) -> Connection:
    """Open (creating unless ``readonly``) an SQLite database; ``":memory:"`` for a private one.

    A database file this creates is owner-only whatever the umask (SQLite gives its
    ``-wal``/``-shm``/``-journal`` the database's permission bits): memdesk's files hold
    private memories, and the README promises they are readable by the user alone.
    """
    flags = apsw.SQLITE_OPEN_READONLY if readonly else (apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE)
    if uri:
        flags |= apsw.SQLITE_OPEN_URI
    elif not readonly and str(path) not in ("", ":memory:"):
        _create_private(Path(path))
    try:
        return apsw.Connection(str(path), flags=flags)
    except apsw.Error as exc:
        raise mapped(exc, path) from None


def _create_private(path: Path) -> None:
    """Create ``path`` empty and 0600 unless it exists (SQLite would follow the umask);
    any other failure is left for SQLite to report in its own words."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError:
        return
    os.close(fd)


def uri(path: Path | str, **params: str) -> str:
    """The SQLite URI filename of ``path`` with query ``params`` (``mode="ro"``, ...).

    SQLite ends the path at ``?`` or ``#`` and decodes ``%HH``, so a folder named
    ``a#b?c%d`` must be percent-encoded: the absolute path is quoted byte by byte (an
    undecodable name byte too), ``/`` kept; ``file://`` + an absolute path leaves the
    authority empty, so a path starting with ``//`` is not taken for a host.
    """
    text = os.path.abspath(os.fspath(path))
    if os.sep != "/":
        text = text.replace(os.sep, "/")
    if not text.startswith("/"):
        text = "/" + text  # a Windows drive: file:///C:/...
    quoted = urllib.parse.quote(os.fsencode(text), safe="/")
    query = urllib.parse.urlencode(params, quote_via=urllib.parse.quote)
    return f"file://{quoted}" + (f"?{query}" if query else "")


# -- reading a database someone else writes -----------------------------------------------
# SQLite's companions of a database file: a WAL database's log, a rollback journal.
_COMPANIONS = ("-wal", "-journal")
SNAPSHOT_ATTEMPTS = 8
# A snapshot folder older than this was left by a killed process: removed on the next read.
_STALE_SNAPSHOT_S = 600.0
_SNAPSHOT_PREFIX = "agent-db-"
_snapshots: dict[str, tuple[tuple[Any, ...], bytes]] = {}
_snapshots_lock = threading.Lock()
_MAX_CACHED = 4


def _signature(path: Path) -> tuple[Any, ...]:
    """What changes when anyone writes the database or its companions: for each, its
    (inode, size, mtime, ctime), or None when absent."""
    out: list[Any] = []
    for suffix in ("", *_COMPANIONS):
        try:
            st = os.stat(str(path) + suffix)
        except FileNotFoundError:
            out.append(None)
            continue
        out.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)


def _copy_file(source: str, target: str) -> None:
    """Copy a regular file (never a FIFO or device: those would block or never end) to
    a new owner-only file. ``OSError`` when the source cannot be read; ``StoreError``
    when the copy cannot be written (memdesk's data dir full or read-only)."""
    src = os.open(source, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(src).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", source)
        try:
            dst = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        except OSError as exc:
            raise _copy_failed(exc, source, target) from None
        try:
            while chunk := os.read(src, 1 << 20):
                view = memoryview(chunk)
                while view:
                    try:
                        written = os.write(dst, view)
                    except OSError as exc:
                        raise _copy_failed(exc, source, target) from None
                    view = view[written:]
        finally:
            os.close(dst)
    finally:
        os.close(src)


def _copy_failed(exc: OSError, source: str, target: str) -> errors.StoreError:
    return errors.StoreError(
        f"cannot copy {source} into memdesk's data dir ({os.path.dirname(os.path.dirname(target))}): "
        f"{exc.strerror or exc}; free some space or set MEMDESK_HOME to a writable folder"
    )


def _snapshot_root() -> Path:
    root = paths.data_dir()
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(root):
            if entry.name.startswith(_SNAPSHOT_PREFIX) and entry.is_dir(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    if now - entry.stat(follow_symlinks=False).st_mtime > _STALE_SNAPSHOT_S:
                        shutil.rmtree(entry.path, ignore_errors=True)
    return root


def _snapshot_bytes(path: Path) -> tuple[tuple[Any, ...], bytes]:
    """The database at ``path`` as one self-contained file's bytes (its WAL's committed
    frames folded in, a hot journal rolled back), from copies that did not change while
    they were taken."""
    sig = _signature(path)
    last_change = ""
    for attempt in range(SNAPSHOT_ATTEMPTS):
        if sig[0] is None:
            raise errors.StoreError(f"{path}: no such database")
        try:
            folder = tempfile.mkdtemp(prefix=_SNAPSHOT_PREFIX, dir=_snapshot_root())  # 0700
        except OSError as exc:
            raise errors.StoreError(
                f"cannot make a private copy of {path} in memdesk's data dir: {exc.strerror or exc} "
                "(set MEMDESK_HOME to a writable folder)"
            ) from None
        try:
            copy = os.path.join(folder, "db.sqlite")
            try:
                _copy_file(str(path), copy)
                for suffix, present in zip(_COMPANIONS, sig[1:], strict=True):
                    if present is not None:
                        with contextlib.suppress(FileNotFoundError):
                            _copy_file(str(path) + suffix, copy + suffix)
            except OSError as exc:
                raise errors.StoreError(f"cannot read the database {path}: {exc.strerror or exc}") from None
            after = _signature(path)
            if after != sig:
                # Written during the copy (a commit, a checkpoint): the copies may not
                # belong together. Take them again.
                last_change, sig = "changed while it was read", after
                time.sleep(0.02 * (attempt + 1))
                continue
            # Our copy, in our folder: opening it read-write lets SQLite recover it (the
            # WAL's committed frames, a hot journal) and fold it into one file.
            conn = connect(copy)
            try:
                rows(conn, "PRAGMA journal_mode=DELETE", where=path)
                data = conn.serialize("main")
            except errors.StoreError:
                raise
            except apsw.Error as exc:
                raise mapped(exc, path) from None
            finally:
                conn.close()
            return sig, bytes(data or b"")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    raise errors.StoreError(f"{path}: the database {last_change} {SNAPSHOT_ATTEMPTS} times; try again")


def snapshot(path: Path | str) -> Connection:
    """A consistent, private, in-memory copy of the database at ``path``, for reading.

    Nothing is created, changed or deleted beside ``path`` (a ``mode=ro`` connection
    would create ``-wal``/``-shm`` for a WAL database and fails on a read-only mount;
    ``immutable=1`` would read torn pages while the owner writes). The file and its
    WAL or journal are copied into a private folder of memdesk's data dir and their
    stat checked unchanged afterwards (else copied again); SQLite recovers the copy as
    after a crash, which keeps exactly the committed transactions, and the result is
    loaded into memory and the folder removed, so the owner's data (the agent's
    database also holds its sessions and credentials) is not left on disk. The bytes
    are cached per stat signature: reading an unchanged database again costs no copy.
    """
    where = Path(path)
    key = os.path.realpath(where)
    with _snapshots_lock:
        cached = _snapshots.get(key)
    if cached is None or cached[0] != _signature(where):
        cached = _snapshot_bytes(where)
        with _snapshots_lock:
            _snapshots.pop(key, None)
            _snapshots[key] = cached
            while len(_snapshots) > _MAX_CACHED:
                _snapshots.pop(next(iter(_snapshots)))
    conn = memory()
    try:
        conn.deserialize("main", cached[1])
    except apsw.Error as exc:
        conn.close()
        raise mapped(exc, where) from None
    return conn


def memory() -> Connection:
    """A private in-memory database (FTS5 and the trigram tokenizer included)."""
    return connect(":memory:")


def rows(conn: Executes, sql: str, params: Sequence[Any] = (), *, where: Path | str = "index") -> list[Row]:
    """Every row of one statement, apsw's errors mapped (see the module docstring)."""
    try:
        return list(conn.execute(sql, params))
    except apsw.Error as exc:
        raise mapped(exc, where) from exc


def each(
    conn: Executes, sql: str, params: Sequence[Any] = (), *, where: Path | str = "index"
) -> Iterator[Row]:
    """The rows of one statement as they come, apsw's errors mapped."""
    try:
        yield from conn.execute(sql, params)
    except apsw.Error as exc:
        raise mapped(exc, where) from exc


Tokenizer = Callable[..., Any]
TOKENIZE_DOCUMENT = apsw.FTS5_TOKENIZE_DOCUMENT


def fts5_tokenizer(conn: Connection, name: str, args: Sequence[str]) -> Tokenizer:
    """One of SQLite's FTS5 tokenizers, callable on UTF-8 bytes (see apsw's docs)."""
    return cast(Tokenizer, conn.fts5_tokenizer(name, list(args)))


def fts5_table(conn: Connection, name: str) -> Any:
    """apsw's view of an FTS5 table (its tokenizer, its vocabulary)."""
    import apsw.fts5

    return apsw.fts5.Table(conn, name)
