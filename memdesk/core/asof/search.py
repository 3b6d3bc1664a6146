"""Searching memory as it was on a day: the snapshot's own index, the normal engine.

``open_snapshot`` brings the day's folder up to date (``snapshot.materialize``),
copies into its index the live index's vectors of every chunk and passage window
whose text the live index already embedded (so only text that differs from
everything the live index has seen is embedded), syncs it with the normal indexer
and returns a ``Snapshot``: searches there run with the normal engine and profile,
at that day's clock, and each hit says which version it came from and whether its
note differs now.

The first search of a day need not wait for the embedding: with ``embed=False`` the
sync stops once the snapshot's notes are keyword-searchable (vectors copied from the
live index are in; the chunks that differ that day are still to embed), searches run
keyword-only and say so (``Snapshot.pending``), and ``Snapshot.finish`` embeds the rest
(from another thread) after which they are hybrid. Embedding the changed chunks and
their passage windows is where a new day's first search spent its time (tens of
seconds for a few dozen changed notes on two cores).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from memdesk.core import engine as engine_mod
from memdesk.core import errors
from memdesk.core.asof import snapshot
from memdesk.core.asof.snapshot import NoteVersion
from memdesk.core.history import History
from memdesk.core.index import workspace
from memdesk.core.index.store import Store
from memdesk.core.openclaw import chunking as oc_chunking
from memdesk.core.search import filters as filters_mod
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import ranking
from memdesk.core.search import settings as settings_mod

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class AsOfHit:
    """A hit of an as-of search: the version its note was on that day, and whether the
    note's content now differs from it (or the note is gone)."""

    hit: hits_mod.Hit
    version: NoteVersion
    changed_since: bool

    def to_json(self) -> dict[str, Any]:
        """``Hit.to_json`` plus ``as_of`` (the version: id, time, source) and ``changed_since``."""
        return self.hit.to_json() | {"as_of": self.version.to_json(), "changed_since": self.changed_since}


@dataclasses.dataclass(frozen=True)
class AsOfResult:
    day: dt.date
    result: engine_mod.SearchResult
    hits: tuple[AsOfHit, ...]


@dataclasses.dataclass(frozen=True)
class Differences:
    """How the notes of the snapshot and those of the workspace now differ."""

    changed: tuple[str, ...]  # in both, other content now
    gone: tuple[str, ...]  # in the snapshot, no longer in the workspace
    new: tuple[str, ...]  # in the workspace now, not in the snapshot

    @property
    def count(self) -> int:
        return len(self.changed) + len(self.gone) + len(self.new)

    def to_json(self) -> dict[str, list[str]]:
        return {"changed": list(self.changed), "gone": list(self.gone), "new": list(self.new)}


class Snapshot:
    """Memory as it was at the end of ``day``, indexed and ready to search."""

    def __init__(
        self,
        live: engine_mod.Engine,
        day: dt.date,
        built: snapshot.Materialized,
        engine: engine_mod.Engine,
        report: engine_mod.SyncReport | None,
        reused: int,
        pending: int = 0,
    ) -> None:
        self.live = live
        self.day = day
        self.when = snapshot.end_of_day(day)
        self.folder = built.folder
        self.versions = dict(built.versions)
        self.skipped = dict(built.skipped)
        self.engine = engine
        self.report = report  # None while the snapshot's sync has not ended (``pending``)
        self.reused = reused  # vectors copied from the live index (and other snapshots)
        # Chunk texts still to embed: while any is, searches are keyword-only (a chunk
        # without its vector would lose to every chunk that has one).
        self.pending = pending
        self._finish_lock = threading.Lock()
        self._notes = self._listed()
        self.differences = self.compare()

    @property
    def notes(self) -> int:
        """How many notes the snapshot indexes (memory files, as in the workspace)."""
        return len(self._notes)

    def _listed(self) -> set[str]:
        root = self.engine.workspace
        return {workspace.rel_path(root, p) for p in workspace.list_memory_files(root)}

    def compare(self) -> Differences:
        """What differs between the snapshot's notes and the workspace's now (read from disk)."""
        then = self._notes
        root = self.live.workspace
        now = {
            workspace.rel_path(root, p): p for p in workspace.list_memory_files(root, self.live.extra_paths)
        }
        changed = [n for n in sorted(then) if n in now and self._differs(n, now[n])]
        gone = sorted(n for n in then if n not in now)
        new = sorted(n for n in now if n not in then)
        return Differences(tuple(changed), tuple(gone), tuple(new))

    def _differs(self, note: str, path: Path | None) -> bool:
        version = self.versions.get(note)
        if path is None or version is None or version.digest is None:
            return True
        try:
            if path.stat().st_size != version.size:
                return True
            return workspace.content_hash(workspace.read_bytes(path)) != version.digest
        except OSError:
            return True  # unreadable now: not the version it was

    def changed_since(self, note: str) -> bool:
        """Whether ``note``'s content now differs from its version in the snapshot."""
        # Not ``resolve_note``: it lists the whole workspace, once per hit. Discovery
        # skips symlinks, so a note reached through one is no note now either.
        try:
            path: Path | None = workspace.confined(self.live.workspace, note)
        except errors.MemdeskError:
            path = None
        if path is not None and not path.is_file():
            path = None  # gone (or no longer a file)
        return self._differs(note, path)

    def mark(self, hits: Iterable[hits_mod.Hit]) -> tuple[AsOfHit, ...]:
        """Each hit with its note's version and whether the note changed since."""
        changed: dict[str, bool] = {}
        out = []
        for hit in hits:
            version = self.versions.get(hit.path)
            if version is None:  # cannot be: every indexed note was written from a version
                continue
            if hit.path not in changed:
                changed[hit.path] = self.changed_since(hit.path)
            out.append(AsOfHit(hit, version, changed[hit.path]))
        return tuple(out)

    def search(
        self,
        query: str,
        settings: settings_mod.SearchSettings,
        *,
        scope: engine_mod.Scope = "all",
        now: dt.date | dt.datetime | None = None,
        filters: filters_mod.SearchFilter = filters_mod.NO_FILTER,
    ) -> AsOfResult:
        """The normal search over the snapshot, its clock at the snapshot's day (or
        ``now``); keyword-only while chunks are still to embed (``pending``)."""
        clock = self.engine.clock(now or self.day)
        mode: hits_mod.Mode | None = "fts" if self.pending else None
        found = self.engine.fetch_candidates(
            query, settings, scope=scope, mode=mode, now=clock, filters=filters
        )
        result = engine_mod.SearchResult(
            pool=found, hits=tuple(ranking.rank(found, settings, now=clock)), settings=settings
        )
        return AsOfResult(self.day, result, self.mark(result.hits))

    @property
    def complete(self) -> bool:
        """Whether every chunk of the snapshot has its vector (searches are hybrid)."""
        return not self.pending

    def finish(
        self,
        *,
        progress: engine_mod.ProgressFn | None = None,
        cancelled: engine_mod.CancelledFn | None = None,
    ) -> engine_mod.SyncReport:
        """Embed what ``open_snapshot(embed=False)`` left (the chunks that differ that
        day, then their passage windows); searches are hybrid once the chunks are done.
        Safe beside searches from another thread; a cancelled finish keeps the vectors
        made so far (the next one embeds the rest)."""

        def watched(step: engine_mod.SyncProgress) -> None:
            if step.phase == "windows":
                self.pending = 0  # every chunk's vector is committed: hybrid from here on
            if progress is not None:
                progress(step)

        with self._finish_lock:
            report = self.engine.sync(progress=watched, cancelled=cancelled)
            self.report, self.pending = report, 0
            return report

    def to_json(self) -> dict[str, Any]:
        """The day, its end, how many notes it had and how they differ now, the notes
        whose content the history did not keep, and how many chunks are still to embed
        (``memdesk search --as-of``, MCP)."""
        return {
            "day": self.day.isoformat(),
            "at": self.when.isoformat(),
            "notes": self.notes,
            "pending_chunks": self.pending,
            "differ_now": self.differences.count,
            "differences": self.differences.to_json(),
            "not_kept": self.skipped,
        }

    def close(self) -> None:
        self.engine.close()


def open_snapshot(
    live: engine_mod.Engine,
    history: History,
    day: dt.date,
    *,
    progress: engine_mod.ProgressFn | None = None,
    cancelled: engine_mod.CancelledFn | None = None,
    embed: bool = True,
) -> Snapshot:
    """Memory of ``live``'s workspace as it was at the end of ``day``, indexed.

    The snapshot's engine shares the live engine's embedder and its lock (one
    llama.cpp context). Its folder is reused while valid; the least recently used
    folders beyond ``snapshot.MAX_SNAPSHOTS`` are removed. ``embed=False``: back as soon
    as the notes are keyword-searchable, the chunks that differ from every text the
    live index embedded left to ``Snapshot.finish`` (``Snapshot.pending`` counts them);
    the passage windows are left to it too.
    """
    versions = snapshot.versions_at(history, snapshot.end_of_day(day))
    built = snapshot.materialize(live.workspace, day, versions, history.content, cancelled=cancelled)
    snapshot.prune(keep=built.folder)
    eng = engine_mod.Engine(
        built.notes_dir,
        embedder=live.embedder,
        db_path=built.db_path,
        chunk_params=live.chunk_params,  # the live index's chunking: the same chunk texts
        history=False,  # a copy of the past: its notes' versions are the history's already
    )
    eng.embed_lock = live.embed_lock  # llama.cpp's context is not re-entrant
    try:
        reused = reuse_vectors(eng, built.written, sources=[live.db_path, *_other_snapshots(built)])
        if embed or eng.embedder is None:
            return Snapshot(live, day, built, eng, eng.sync(progress=progress, cancelled=cancelled), reused)
        report, pending = _sync_until_embedding(eng, progress, cancelled)
        return Snapshot(live, day, built, eng, report, reused, pending)
    except BaseException:
        eng.close()
        raise


def _sync_until_embedding(
    eng: engine_mod.Engine, progress: engine_mod.ProgressFn | None, cancelled: engine_mod.CancelledFn | None
) -> tuple[engine_mod.SyncReport | None, int]:
    """Sync ``eng`` until its notes are keyword-searchable and every chunk it could
    copy a vector for has it; stop before embedding anything. Returns the sync's report
    when it ran to its end (nothing was left to embed), and how many chunk texts are
    left to embed (0: only passage windows, or nothing, are left)."""
    left: list[int] = []

    def watched(step: engine_mod.SyncProgress) -> None:
        if step.phase == "embed" and not left:
            left.append(step.to_embed)
        elif step.phase == "windows" and not left:
            left.append(0)  # every chunk had its vector: hybrid already, windows later
        if progress is not None and not left:
            progress(step)

    def stop() -> bool:
        return bool(left) or (cancelled is not None and cancelled())

    try:
        return eng.sync(progress=watched, cancelled=stop), 0
    except errors.Cancelled:
        if not left:
            raise  # the caller's cancel, not this stop
    return None, left[0]


def _other_snapshots(built: snapshot.Materialized) -> list[Path]:
    """The indexes of the same workspace's other days: text of that day may be there."""
    stem = built.folder.name[: -len("YYYY-MM-DD")]
    return sorted(
        p / snapshot.INDEX
        for p in built.folder.parent.glob(stem + "*")
        if p != built.folder and (p / snapshot.INDEX).is_file()
    )


def reuse_vectors(eng: engine_mod.Engine, written: dict[str, bytes], *, sources: Sequence[Path]) -> int:
    """Copy into ``eng``'s index the vectors ``sources`` have for the chunks of the notes
    ``written`` and their passage windows (stored by chunk hash); the sync then embeds
    only what none of them had.

    The chunks are cut as the indexer cuts them (same chunker, same parameters), so
    their text hashes are the embedding cache's keys.
    """
    embedder = eng.embedder
    if embedder is None or not written:
        return 0
    params = eng.chunk_params
    hashes: list[str] = []
    for note, data in written.items():
        try:
            text = workspace.decode_note(data, name=note)
        except errors.MemdeskError:
            continue  # the indexer skips it too
        for chunk in oc_chunking.filter_non_empty_chunks(
            oc_chunking.chunk_markdown(text, params.tokens, params.overlap)
        ):
            hashes.append(chunk.hash)  # its passage windows' vectors are stored by it too
    ident = embedder.identity
    store = Store(eng.db_path)
    try:
        copied = 0
        for source in sources:
            copied += store.copy_embeddings_from(
                source, ident.provider, ident.model, ident.provider_key, hashes
            )
    finally:
        store.close()
    log.info("as-of index: %d vectors reused of %d texts", copied, len(set(hashes)))
    return copied
