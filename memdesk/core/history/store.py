"""``History``: every version of every note of one workspace, kept in memdesk's data dir.

One SQLite file per workspace (``catalog``): the catalog of versions and their content
(``blobs``: zstd, deduplicated by sha256, deltas against the version before) in one
transaction per capture. Thread-safe: one connection, one lock; other processes (the
CLI, ``memdesk mcp``) open their own and SQLite's WAL and busy timeout order them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from memdesk.core import errors, messages, paths
from memdesk.core.base import sqlite
from memdesk.core.history import catalog, codec, gitlog
from memdesk.core.history.blobs import Blobs, keyframe_room
from memdesk.core.history.retention import Retention, to_prune
from memdesk.core.history.version import (
    BASELINE,
    CAPTURED_AGENT_SOURCES,
    CAPTURED_SOURCES,
    DELETED,
    DISK,
    GIT,
    SourceCount,
    Version,
    from_micros,
    to_micros,
    utc,
)

log = logging.getLogger(__name__)

# A version whose content is kept has its size in its blob's row only.
_COLUMNS = "v.id, n.path, v.at, v.source, coalesce(v.size, b.size), b.digest, v.reason, v.added, v.removed"
_FROM = "versions v JOIN notes n ON n.id = v.note LEFT JOIN blobs b ON b.id = v.blob"
_GIT_NOTES_CACHED = 8
# memdesk's announced writes (``History.expect``): one ``meta`` row per note being written.
_EXPECT = "expect:"
# How long an announced write stands: a save takes milliseconds; one whose writer
# died before capturing it must not claim the note's later changes.
EXPECT_SECONDS = 60


def _code(source: str) -> int:
    """A source as the catalog keeps it: its place in ``CAPTURED_SOURCES`` (0 and 1,
    memdesk and disk, the usual ones, take no byte at all in an SQLite row)."""
    return CAPTURED_SOURCES.index(source)


P = ParamSpec("P")
R = TypeVar("R")


def _repairing(method: Callable[Concatenate[History, P], R]) -> Callable[Concatenate[History, P], R]:
    """Run ``method``; if the store turns out damaged, set it aside, start a new one
    and run it again there (outside a batch: a batch's caller is told, then goes on)."""

    @functools.wraps(method)
    def wrapper(self: History, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(self, *args, **kwargs)
        except errors.IndexCorrupt as exc:
            if self._batching:
                raise
            self._start_afresh(str(exc))
            return method(self, *args, **kwargs)

    return cast("Callable[Concatenate[History, P], R]", wrapper)


def _version(row: Any) -> Version:
    vid, note, at, source, size, digest, reason, added, removed = row
    return Version(
        id=str(vid),
        note=str(note),
        at=from_micros(int(at)),
        source=CAPTURED_SOURCES[int(source)],
        size=int(size),
        digest=None if digest is None else bytes(digest).hex(),
        reason=None if reason is None else messages.loads(str(reason)),
        added=None if added is None else int(added),
        removed=None if removed is None else int(removed),
    )


class History:
    """The version store of the workspace at ``root``."""

    def __init__(self, root: Path, path: Path) -> None:
        self.root = Path(root)
        self.path = Path(path)
        self._lock = threading.RLock()
        self._conn = catalog.open_catalog(self.path)
        self._blobs = Blobs(self._conn, self.path)
        self._batching = 0  # depth of batch()
        # Git versions' contents by note, newest notes last: {note: {version id: bytes}}.
        self._git: OrderedDict[str, dict[str, bytes | None]] = OrderedDict()
        # The notes of the git tree ``at`` last read: {(note, version id): bytes}.
        self._git_tree: dict[tuple[str, str], bytes | None] = {}
        # The notes commits changed in the period ``changes`` last read, likewise.
        self._git_period: dict[tuple[str, str], bytes | None] = {}

    # -- writing ----------------------------------------------------------------------
    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Captures inside are one transaction (a sync's many notes: one commit)."""
        with self._lock:
            self._batching += 1
            try:
                with self._writing():
                    yield
            except errors.IndexCorrupt as exc:
                if self._batching == 1:
                    self._start_afresh(str(exc))
                raise
            finally:
                self._batching -= 1

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """One write transaction, or a savepoint inside the one open (a capture in a
        batch: its own failure undoes only itself). The outermost is taken IMMEDIATE:
        a transaction that read first and wrote second would fail at once, busy handler
        or not, when another process wrote in between (two processes capturing)."""
        with self._lock:
            nested = self._conn.in_transaction
            self._run("SAVEPOINT history_write" if nested else "BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                with contextlib.suppress(errors.MemdeskError):
                    if nested:
                        self._run("ROLLBACK TO history_write")
                        self._run("RELEASE history_write")
                    else:
                        self._run("ROLLBACK")
                raise
            self._run("RELEASE history_write" if nested else "COMMIT")

    def _run(self, sql: str) -> None:
        sqlite.rows(self._conn, sql, where=self.path)

    def _start_afresh(self, why: str) -> None:
        """The store is damaged: set it aside and go on in a new, empty one (its first
        sync takes a new baseline). Notes are never touched."""
        with self._lock:
            with contextlib.suppress(Exception):
                self._conn.close()
            catalog.set_aside(self.path, why)
            self._conn = catalog.open_catalog(self.path)
            self._blobs = Blobs(self._conn, self.path)

    @_repairing
    def capture(
        self,
        note: str,
        data: bytes | None,
        *,
        source: str,
        at: datetime | None = None,
        reason: str | None = None,
        size: int | None = None,
    ) -> Version | None:
        """Record ``note``'s content ``data`` as a new version; None when it equals the
        note's latest version (nothing recorded).

        ``source``: one of ``version.CAPTURED_SOURCES``. ``reason``: the content is not
        kept (a binary file, one over the size limit), only its size (``size``, or
        ``len(data)``) and digest. ``data`` None with ``source="deleted"``: the note is gone.
        """
        if source not in CAPTURED_SOURCES:
            raise ValueError(f"unknown history source {source!r}")
        if source == DELETED:
            data, reason, size = (
                None,
                reason or messages.msg(messages.QT_TRANSLATE_NOOP("core", "deleted")),
                0,
            )
        elif data is None and reason is None:
            raise ValueError("a version without content needs a reason")
        when = to_micros(utc(at))
        sha = None if data is None else codec.digest(data)
        with self._writing():
            claimed = self._claim_expected(note, sha)
            if claimed is not None and source == DISK:
                source = claimed  # memdesk's own write, read by a sync before its writer captured it
            note_id = self._note_id(note)
            latest = sqlite.rows(
                self._conn,
                "SELECT v.source, coalesce(v.size, b.size), v.blob, v.sha, v.reason, b.digest FROM versions v "
                "LEFT JOIN blobs b ON b.id = v.blob WHERE v.note = ? ORDER BY v.at DESC, v.id DESC LIMIT 1",
                (note_id,),
                where=self.path,
            )
            last = latest[0] if latest else None
            if last is not None and self._same(
                (CAPTURED_SOURCES[int(last[0])], *last[1:]), source, sha, reason, size
            ):
                return None
            blob, added, removed = None, None, None
            previous = None if last is None or last[2] is None else int(last[2])
            before = None if previous is None else self._blobs.read(previous)
            if data is not None and reason is None:
                blob = self._blobs.put(data, sha or codec.digest(data), previous, before)
                added, removed = codec.line_changes(before, data)
            elif source == DELETED and before is not None:
                added, removed = codec.line_changes(before, b"")
            vid = self._last_version() + 1
            self._set_meta("last_version", str(vid))
            sqlite.rows(
                self._conn,
                "INSERT INTO versions(note, at, id, source, size, blob, sha, reason, added, removed) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    note_id,
                    when,
                    vid,
                    _code(source),
                    None if blob is not None else len(data) if data is not None else int(size or 0),
                    blob,
                    sha if blob is None else None,
                    None if reason is None else messages.dumps(reason),
                    added,
                    removed,
                ),
                where=self.path,
            )
            row = sqlite.rows(
                self._conn,
                f"SELECT {_COLUMNS} FROM {_FROM} WHERE v.note = ? AND v.at = ? AND v.id = ?",
                (note_id, when, vid),
            )
        return _version(row[0])

    @_repairing
    def expect(self, note: str, data: bytes, *, source: str) -> None:
        """memdesk is about to write ``data`` to ``note`` and will capture it from
        ``source`` once written (``captures.saved``). A sync that reads the file between
        the write and that capture would record it from the disk; the bytes announced
        here make that capture ``source``'s. Stands until a capture of these bytes,
        ``forget_expected``, or ``EXPECT_SECONDS``; kept in the store, so a sync of
        another process (the app while ``memdesk mcp`` appends) sees it too."""
        if source not in CAPTURED_SOURCES:
            raise ValueError(f"unknown history source {source!r}")
        with self._writing():
            value = f"{codec.digest(data).hex()} {source} {to_micros(utc())}"
            self._set_meta(_EXPECT + note, value)

    @_repairing
    def forget_expected(self, note: str) -> None:
        """The write ``expect`` announced did not happen (the save failed)."""
        with self._writing():
            sqlite.rows(self._conn, "DELETE FROM meta WHERE key = ?", (_EXPECT + note,), where=self.path)

    def _claim_expected(self, note: str, sha: bytes | None) -> str | None:
        """The source of the write ``expect`` announced for ``note`` when ``sha`` is its
        bytes (the announcement is then used up); None otherwise. A stale one is dropped."""
        key = _EXPECT + note
        found = sqlite.rows(self._conn, "SELECT value FROM meta WHERE key = ?", (key,), where=self.path)
        if not found:
            return None
        digest, source, micros = str(found[0][0]).split(" ")
        fresh = to_micros(utc()) - int(micros) <= EXPECT_SECONDS * 1_000_000
        if fresh and (sha is None or sha.hex() != digest):
            return None  # another change came first: the announced write is still to come
        sqlite.rows(self._conn, "DELETE FROM meta WHERE key = ?", (key,), where=self.path)
        return source if fresh and source in CAPTURED_SOURCES else None

    @staticmethod
    def _same(last: Any, source: str, sha: bytes | None, reason: str | None, size: int | None) -> bool:
        """Whether a capture repeats the note's latest version (so it is not recorded)."""
        last_source, last_size, _blob, last_sha, last_reason, last_digest = last
        if source == DELETED or last_source == DELETED:
            return source == DELETED and last_source == DELETED
        if sha is not None:
            known = bytes(last_digest) if last_digest is not None else (bytes(last_sha) if last_sha else None)
            return known == sha
        # Content neither read nor kept (a file over the limit): its size and reason.
        return last_sha is None and last_digest is None and last_size == size and last_reason is not None

    def _last_version(self) -> int:
        """The highest version id given so far (0 in a new store)."""
        found = sqlite.rows(self._conn, "SELECT value FROM meta WHERE key = 'last_version'", where=self.path)
        return int(found[0][0]) if found else 0

    def _note_id(self, note: str) -> int:
        found = sqlite.rows(self._conn, "SELECT id FROM notes WHERE path = ?", (note,), where=self.path)
        if found:
            return int(found[0][0])
        sqlite.rows(self._conn, "INSERT INTO notes(path) VALUES (?)", (note,), where=self.path)
        return int(self._conn.last_insert_rowid())

    # -- the baseline ---------------------------------------------------------------------
    @_repairing
    def needs_baseline(self) -> bool:
        """True until the workspace's notes as first seen were kept (``take_baseline``)."""
        return self._meta("baseline") is None

    def take_baseline(self, notes: Iterable[tuple[str, bytes | None, str | None, int]]) -> int:
        """Keep each ``(note, data, reason, size)`` as its first version (source
        "baseline"), one transaction; returns how many were recorded."""
        count = 0
        with self.batch():
            for note, data, reason, size in notes:
                if self.capture(note, data, source=BASELINE, reason=reason, size=size) is not None:
                    count += 1
            self._set_meta("baseline", str(self._last_version()))
        return count

    # -- reading -----------------------------------------------------------------------
    @_repairing
    def timeline(self, note: str, *, git: bool = True) -> list[Version]:
        """Every version of ``note``, newest first; its commits too when ``git``."""
        with self._lock:
            found = [
                _version(r)
                for r in sqlite.rows(
                    self._conn,
                    f"SELECT {_COLUMNS} FROM {_FROM} WHERE n.path = ? ORDER BY v.at DESC, v.id DESC",
                    (note,),
                    where=self.path,
                )
            ]
        if git:
            found.extend(self._git_versions(note))
            found.sort(key=lambda v: v.at, reverse=True)
        return found

    @_repairing
    def notes(self) -> list[str]:
        """Every note the store has a version of, deleted ones included."""
        with self._lock:
            return [str(r[0]) for r in sqlite.rows(self._conn, "SELECT path FROM notes ORDER BY path")]

    @_repairing
    def content(self, version: Version) -> bytes | None:
        """The bytes of ``version``; None when not kept (binary, too large, deleted) or
        no longer readable."""
        if version.source == GIT:
            return self._git_content(version)
        if version.digest is None:
            return None
        with self._lock:
            found = sqlite.rows(
                self._conn,
                "SELECT b.id FROM versions v JOIN notes n ON n.id = v.note JOIN blobs b ON b.id = v.blob "
                "WHERE n.path = ? AND v.at = ? AND v.id = ?",
                (version.note, to_micros(version.at), int(version.id)),
                where=self.path,
            )
            if not found:
                return None
            data = self._blobs.read(int(found[0][0]))
        if data is None:
            log.warning("version %s of %s in %s could not be read back", version.id, version.note, self.path)
        return data

    @_repairing
    def previous(self, version: Version) -> Version | None:
        """The version of the same note before ``version`` (on its own timeline: a
        commit's previous is the commit before it)."""
        if version.source == GIT:
            older = [v for v in self._git_versions(version.note) if v.at < version.at]
            return max(older, key=lambda v: v.at, default=None)
        with self._lock:
            found = sqlite.rows(
                self._conn,
                f"SELECT {_COLUMNS} FROM {_FROM} WHERE n.path = ? AND (v.at < ? OR (v.at = ? AND v.id < ?)) "
                "ORDER BY v.at DESC, v.id DESC LIMIT 1",
                (version.note, to_micros(version.at), to_micros(version.at), int(version.id)),
                where=self.path,
            )
        return _version(found[0]) if found else None

    def changes(self, since: datetime, until: datetime | None = None, *, git: bool = True) -> list[Version]:
        """Every version captured in ``[since, until)``, oldest first (baselines left out);
        with ``git``, each note a commit of the workspace's repository changed in the
        period too (source "git", read only)."""
        found = self._captured_changes(since, until)
        if git:
            found.extend(self._git_changes(since, until))
            found.sort(key=lambda v: v.at)  # stable: captured versions keep their id order
        return found

    @_repairing
    def _captured_changes(self, since: datetime, until: datetime | None) -> list[Version]:
        end = to_micros(utc(until)) if until is not None else 2**62
        with self._lock:
            return [
                _version(r)
                for r in sqlite.rows(
                    self._conn,
                    f"SELECT {_COLUMNS} FROM {_FROM} WHERE v.at >= ? AND v.at < ? AND v.source != ? "
                    "ORDER BY v.at, v.id",
                    (to_micros(utc(since)), end, _code(BASELINE)),
                    where=self.path,
                )
            ]

    def summarize(
        self, since: datetime, until: datetime | None = None, *, git: bool = True
    ) -> list[SourceCount]:
        """Per note and source, the versions of ``changes(since, until)`` counted, in note
        order then source name, without reading each version: the Changes view's list
        (``changes`` builds 100,000 ``Version`` objects on 2,000 notes x 50 versions)."""
        counted = self._captured_counts(since, until)
        if git:
            per_note: dict[str, list[datetime]] = {}
            for version in self._git_changes(since, until):
                per_note.setdefault(version.note, []).append(version.at)
            counted += [
                SourceCount(note, GIT, len(ats), min(ats), max(ats)) for note, ats in per_note.items()
            ]
        return sorted(counted, key=lambda c: (c.note, c.source))  # sources by name, not by code

    @_repairing
    def _captured_counts(self, since: datetime, until: datetime | None) -> list[SourceCount]:
        end = to_micros(utc(until)) if until is not None else 2**62
        with self._lock:
            rows = sqlite.rows(
                self._conn,
                "SELECT n.path, v.source, count(*), min(v.at), max(v.at) FROM versions v "
                "JOIN notes n ON n.id = v.note WHERE v.at >= ? AND v.at < ? AND v.source != ? "
                "GROUP BY v.note, v.source",
                (to_micros(utc(since)), end, _code(BASELINE)),
                where=self.path,
            )
        return [
            SourceCount(
                str(path), CAPTURED_SOURCES[int(code)], int(n), from_micros(int(a)), from_micros(int(b))
            )
            for path, code, n, a, b in rows
        ]

    def note_changes(
        self, note: str, since: datetime, until: datetime | None = None, *, git: bool = True
    ) -> list[Version]:
        """``note``'s versions of ``changes(since, until)``, oldest first: the versions
        of one row of ``summarize``, read when it is opened."""
        start, end = utc(since), utc(until) if until is not None else None
        found = [
            v
            for v in self.timeline(note, git=False)
            if v.source != BASELINE and v.at >= start and (end is None or v.at < end)
        ]
        found.sort(key=lambda v: (v.at, int(v.id)))
        if git:
            found.extend(v for v in self._git_changes(since, until) if v.note == note)
            found.sort(key=lambda v: v.at)
        return found

    def at(self, when: datetime, *, git: bool = False) -> dict[str, Version]:
        """For each note, its version current at ``when`` (notes deleted by then left
        out). With ``git``, a note the store has no version of by then (memdesk had not
        seen it yet) is taken from the last commit of the workspace's repository made
        by then, when there is one: notes are what ``is_note`` accepts there."""
        found = self._captured_at(when)
        if git:
            known = self._known_by(when)
            for version in self._git_at(utc(when)):
                if version.note not in known:
                    found[version.note] = version
        return found

    @_repairing
    def _captured_at(self, when: datetime) -> dict[str, Version]:
        with self._lock:
            rows = sqlite.rows(
                self._conn,
                f"SELECT {_COLUMNS} FROM (SELECT *, row_number() OVER "
                "(PARTITION BY note ORDER BY at DESC, id DESC) AS nth FROM versions WHERE at <= ?) v "
                "JOIN notes n ON n.id = v.note LEFT JOIN blobs b ON b.id = v.blob WHERE v.nth = 1",
                (to_micros(utc(when)),),
                where=self.path,
            )
        current = (_version(r) for r in rows)
        return {v.note: v for v in current if v.source != DELETED}

    @_repairing
    def _known_by(self, when: datetime) -> set[str]:
        """Notes with a captured version (deleted ones too) at or before ``when``."""
        with self._lock:
            rows = sqlite.rows(
                self._conn,
                "SELECT DISTINCT n.path FROM versions v JOIN notes n ON n.id = v.note WHERE v.at <= ?",
                (to_micros(utc(when)),),
                where=self.path,
            )
        return {str(r[0]) for r in rows}

    def _git_at(self, when: datetime) -> list[Version]:
        tree = gitlog.tree_at(self.root, when)
        if tree is None:
            return []
        sha, committed, files = tree
        files = [f for f in files if is_note(f.path)]
        contents = gitlog.blob_contents(self.root, sorted({f.blob for f in files}))
        versions: list[Version] = []
        with self._lock:
            self._git_tree = {}  # the last tree asked for is kept, for ``content``
            for f in files:
                data = contents.get(f.blob)
                vid = f"git:{sha}"
                self._git_tree[(f.path, vid)] = data
                versions.append(
                    Version(
                        id=vid,
                        note=f.path,
                        at=committed,
                        source=GIT,
                        size=f.size,
                        digest=None if data is None else codec.digest(data).hex(),
                        reason=None,
                    )
                )
        return versions

    # -- the tree's badge ----------------------------------------------------------------
    @_repairing
    def mark_seen(self, note: str) -> None:
        """The user has looked at ``note`` as it is now."""
        with self._writing():
            note_id = self._note_id(note)
            sqlite.rows(self._conn, "UPDATE notes SET seen = ? WHERE id = ?", (self._last_version(), note_id))

    @_repairing
    def unseen_agent_changes(self) -> set[str]:
        """Notes changed by anything but memdesk since the user last looked at them
        (``mark_seen``), or since the baseline for notes never looked at."""
        with self._lock:
            start = int(self._meta("baseline") or 0)
            rows = sqlite.rows(
                self._conn,
                "SELECT DISTINCT n.path FROM versions v JOIN notes n ON n.id = v.note "
                f"WHERE v.id > coalesce(n.seen, ?) AND v.source IN ({','.join('?' * len(CAPTURED_AGENT_SOURCES))})",
                (start, *(_code(s) for s in CAPTURED_AGENT_SOURCES)),
                where=self.path,
            )
        return {str(r[0]) for r in rows}

    # -- retention -----------------------------------------------------------------------
    @property
    def retention(self) -> Retention:
        return Retention.loads(self._meta("retention"))

    @_repairing
    def set_retention(self, policy: Retention) -> None:
        with self._writing():
            self._set_meta("retention", policy.dumps())

    @_repairing
    def prune(self, now: datetime | None = None) -> int:
        """Drop the versions the retention policy no longer keeps, and content no version
        needs; returns how many versions were dropped."""
        policy = self.retention
        with self._writing():
            rows = [
                (int(a), int(b), int(c))
                for a, b, c in sqlite.rows(self._conn, "SELECT id, note, at FROM versions")
            ]
            drop = to_prune(iter(rows), policy, utc(now))
            keys = {vid: (note, at) for vid, note, at in rows}
            for vid in drop:  # by the table's key: a delete by id alone would scan it
                note, at = keys[vid]
                sqlite.rows(
                    self._conn, "DELETE FROM versions WHERE note = ? AND at = ? AND id = ?", (note, at, vid)
                )
            self._drop_unused_blobs()
        return len(drop)

    def prune_if_due(self, now: datetime | None = None, every: timedelta = timedelta(days=1)) -> int:
        """``prune`` at most once per ``every`` (a sync calls it; most days it does nothing)."""
        current = utc(now)
        last = self._meta("pruned_at")
        if last is not None and current - from_micros(int(last)) < every:
            return 0
        dropped = self.prune(current)
        with self._writing():
            self._set_meta("pruned_at", str(to_micros(current)))
        return dropped

    def _drop_unused_blobs(self) -> None:
        """Delete content no version refers to; a delta built on it is re-encoded on
        that content's own base first, so every other content stays readable."""
        bases: dict[int, int | None] = {}
        children: dict[int, list[int]] = {}
        for blob_id, base_id in sqlite.rows(self._conn, "SELECT id, id - back FROM blobs", where=self.path):
            bases[int(blob_id)] = None if base_id is None else int(base_id)
            if base_id is not None:
                children.setdefault(int(base_id), []).append(int(blob_id))
        used = {
            int(r[0])
            for r in sqlite.rows(self._conn, "SELECT DISTINCT blob FROM versions WHERE blob IS NOT NULL")
        }
        # Oldest first: a base is older than what is built on it, so by the time a blob
        # is dropped, its own base is one that stays.
        for blob in sorted(set(bases) - used):
            base = bases[blob]
            base_data = None if base is None else self._blobs.read(base)
            for child in children.pop(blob, []):
                data = self._blobs.read(child)
                if data is None:
                    continue
                frame = codec.compress(data, base_data)
                if base_data is None:
                    sql = "UPDATE blobs SET data = ?, back = NULL, depth = 0, room = ? WHERE id = ?"
                    params: tuple[object, ...] = (frame, keyframe_room(frame), child)
                    bases[child] = None
                else:
                    sql = "UPDATE blobs SET data = ?, back = id - ?, depth = max(depth - 1, 1) WHERE id = ?"
                    params = (frame, base, child)
                    bases[child] = base
                    children.setdefault(int(base or 0), []).append(child)
                sqlite.rows(self._conn, sql, params, where=self.path)
            sqlite.rows(self._conn, "DELETE FROM blobs WHERE id = ?", (blob,), where=self.path)
            self._blobs.cache.drop(blob)

    # -- git --------------------------------------------------------------------------------
    def _git_versions(self, note: str) -> list[Version]:
        commits = gitlog.note_commits(self.root, note)
        contents = gitlog.blob_contents(self.root, sorted({c.blob for c in commits if c.blob}))
        versions: list[Version] = []
        kept: dict[str, bytes | None] = {}
        for commit in commits:
            data = contents.get(commit.blob) if commit.blob else None
            version = self._git_version(note, commit.sha, commit.at, data)
            kept[version.id] = data
            versions.append(version)
        with self._lock:
            self._git[note] = kept
            self._git.move_to_end(note)
            while len(self._git) > _GIT_NOTES_CACHED:
                self._git.popitem(last=False)
        return versions

    def _git_changes(self, since: datetime, until: datetime | None) -> list[Version]:
        """The notes commits changed in ``[since, until)`` as versions (oldest first),
        their contents kept for ``content``. Notes are what ``is_note`` accepts and any
        other file the store keeps versions of (``USER.md``...)."""
        start, end = utc(since), None if until is None else utc(until)
        changed = gitlog.changes_between(self.root, start, end)
        if not changed:
            return []
        known = set(self.notes())
        changed = [c for c in changed if c.path in known or is_note(c.path)]
        contents = gitlog.blob_contents(self.root, sorted({c.blob for c in changed if c.blob}))
        versions: list[Version] = []
        period: dict[tuple[str, str], bytes | None] = {}
        for c in changed:
            data = contents.get(c.blob) if c.blob else None
            version = self._git_version(c.path, c.sha, c.at, data)
            period[(c.path, version.id)] = data
            versions.append(dataclasses.replace(version, added=c.added, removed=c.removed))
        with self._lock:
            self._git_period = period  # the last period asked for is kept, for ``content``
        return versions

    @staticmethod
    def _git_version(note: str, sha: str, at: datetime, data: bytes | None) -> Version:
        return Version(
            id=f"git:{sha}",
            note=note,
            at=at,
            source=GIT,
            size=0 if data is None else len(data),
            digest=None if data is None else codec.digest(data).hex(),
            reason=None
            if data is not None
            else messages.msg(messages.QT_TRANSLATE_NOOP("core", "deleted in this commit")),
        )

    def _git_content(self, version: Version) -> bytes | None:
        with self._lock:
            for kept in (self._git_tree, self._git_period):
                if (version.note, version.id) in kept:
                    return kept[(version.note, version.id)]
            cached = self._git.get(version.note)
        if cached is None or version.id not in cached:
            self._git_versions(version.note)
            with self._lock:
                cached = self._git.get(version.note, {})
        return cached.get(version.id)

    # -- meta and lifetime -------------------------------------------------------------------
    @_repairing
    def _meta(self, key: str) -> str | None:
        with self._lock:
            found = sqlite.rows(self._conn, "SELECT value FROM meta WHERE key = ?", (key,), where=self.path)
        return str(found[0][0]) if found else None

    def _set_meta(self, key: str, value: str) -> None:
        sqlite.rows(
            self._conn, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value), where=self.path
        )

    def close(self) -> None:
        with self._lock:
            self._blobs.cache.clear()
            self._conn.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def is_note(rel: str) -> bool:
    """A memory note by OpenClaw's layout (``MEMORY.md``, ``memory.md``, ``memory/**/*.md``):
    which files of a git tree ``History.at`` takes."""
    return rel in ("MEMORY.md", "memory.md") or (rel.startswith("memory/") and rel.endswith(".md"))


def open_history(root: Path) -> History:
    """The version store of the workspace at ``root`` (in the data dir, never inside the
    workspace); a damaged store is set aside and a new one started."""
    try:
        return History(root, paths.history_path_for(root))
    except errors.IndexCorrupt as exc:  # damaged in a way only a read showed
        catalog.set_aside(paths.history_path_for(root), str(exc))
        return History(root, paths.history_path_for(root))
