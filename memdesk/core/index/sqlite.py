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
"""

from __future__ import annotations

import errno
import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar, cast

import apsw

from memdesk.core import errors

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
    """Open (creating unless ``readonly``) an SQLite database; ``":memory:"`` for a private one."""
    flags = apsw.SQLITE_OPEN_READONLY if readonly else (apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE)
    if uri:
        flags |= apsw.SQLITE_OPEN_URI
    try:
        return apsw.Connection(str(path), flags=flags)
    except apsw.Error as exc:
        raise mapped(exc, path) from None


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
