"""Bringing the index up to date: incremental sync, safe rebuilds, damage repair.

The indexer (``indexer.sync_files``) writes the changed files; this module decides
whether an index can be synced in place or must be rebuilt (a changed model or
chunking, a damaged file), waits its turn while another process writes, and says
what happened in a ``SyncReport``.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from memdesk.core import errors
from memdesk.core.embed.embedder import Embedder
from memdesk.core.history import History
from memdesk.core.index import indexer, windows
from memdesk.core.index.connections import IndexFiles
from memdesk.core.index.status import CancelledFn, FileFailure, ProgressFn, SyncProgress, SyncReport
from memdesk.core.index.store import Store
from memdesk.core.openclaw.ids import FTS_ONLY_MODEL

log = logging.getLogger(__name__)

T = TypeVar("T")

# How long a sync keeps retrying while another process writes (beyond SQLite's own
# busy timeout per statement): long enough for another first index to finish.
BUSY_RETRY_SECONDS = 120.0


@dataclasses.dataclass(frozen=True)
class SyncSource:
    """What is indexed and how: the notes, the embedder, the chunking."""

    workspace: Path
    extra_paths: tuple[Path | str, ...]
    embedder: Embedder | None
    chunk_params: indexer.ChunkParams | None  # None: derived from the embedder's context
    embed_lock: threading.RLock
    history: History | None = None  # where each changed note's version is kept

    @property
    def params(self) -> indexer.ChunkParams:
        return self.chunk_params or indexer.chunk_params_for(self.embedder)

    def wanted_meta(self) -> dict[str, object]:
        """The model and chunking record an index built from this source carries."""
        params = self.params
        ident = self.embedder.identity if self.embedder is not None else None
        return {
            "provider": ident.provider if ident else "none",
            "model": ident.model if ident else FTS_ONLY_MODEL,
            "provider_key": ident.provider_key if ident else "",
            "dims": ident.dims if ident else None,
            "chunk_tokens": params.tokens,
            "chunk_overlap": params.overlap,
            "fts_seg_tokenizer": "cjk-bigram+" + "porter",
            # Windows live in their own rows (``Store.window_vectors``): an index cut with
            # other windows (or none) is synced in place, embedding the windows it lacks
            # (``windows_changed``), not rebuilt.
            "passage_windows": windows.VERSION,
        }


def windows_changed(meta: Mapping[str, object], wanted: Mapping[str, object]) -> bool:
    """True when ``meta`` differs from ``wanted`` in its passage windows alone.

    Chunks, keyword index and chunk vectors stay valid then; the windows' vectors are
    found by their chunk's hash, so the sync only embeds the chunks' windows missing.
    """
    key = "passage_windows"
    return meta.get(key) != wanted.get(key) and {k: v for k, v in meta.items() if k != key} == {
        k: v for k, v in wanted.items() if k != key
    }


def retry_while_busy(run: Callable[[], T], cancelled: CancelledFn | None) -> T:
    """``run()`` again while another writer holds the index, for up to ``BUSY_RETRY_SECONDS``.

    SQLite answers some lock conflicts at once instead of waiting in the busy
    handler (a read snapshot gone stale under another writer, WAL set-up), so a
    second writer also waits here for its turn. A sync is idempotent: running it
    again after a rolled-back attempt is safe.
    """
    deadline = time.monotonic() + BUSY_RETRY_SECONDS
    while True:
        try:
            return run()
        except errors.IndexBusy:
            if time.monotonic() >= deadline or (cancelled is not None and cancelled()):
                raise
            log.info("index busy: another writer holds it; waiting for its turn")
            time.sleep(0.25)


def sync(
    index: IndexFiles,
    source: SyncSource,
    *,
    rebuild: bool,
    paths: Sequence[str] | None,
    progress: ProgressFn | None,
    cancelled: CancelledFn | None,
    verify: bool = False,
) -> SyncReport:
    """One sync with the embedder as it is.

    A rebuild indexes into a fresh database next to the old one (seeding its
    embedding cache from it) and swaps it in at the end, so a crash or cancel
    mid-rebuild leaves the old index in use. A damaged index (found by a search,
    at open, or by ``verify``'s full check of every page) is moved aside and
    rebuilt from the notes; ``SyncReport.repaired`` says why.
    """
    start = time.perf_counter()

    def watched(step: SyncProgress) -> None:
        if step.phase == "keyword":  # the notes' text is searchable in the fresh index now
            index.damaged_at_open = None
        if progress is not None:
            progress(step)

    with index.sync_lock:
        index.remove_stale_rebuilds()
        writer = index.writer()
        wanted = source.wanted_meta()
        damage = index.damage
        # A file damaged at open was already replaced by a fresh one: report the repair.
        replaced_at_open = index.damaged_at_open
        meta: dict[str, object] | None = None
        files_known = 0
        try:
            meta = writer.get_meta()
            files_known = writer.counts()[0]
        except errors.IndexCorrupt as exc:
            damage = str(exc)
        if damage is None and verify:
            damage = writer.integrity_problem()
        if damage is not None:
            writer = index.reset_damaged(damage)
            meta, files_known = None, 0
        # An index with notes but no model record cannot say what its vectors are.
        windows_only = meta is not None and windows_changed(meta, wanted)
        needs_rebuild = (
            rebuild
            or (meta is not None and meta != wanted and not windows_only)
            or (meta is None and files_known > 0)
        )
        if meta is None and files_known == 0 and not needs_rebuild:
            with writer.transaction():
                writer.set_meta(wanted)
        elif windows_only and not needs_rebuild:
            with writer.transaction():
                writer.set_meta(wanted)
                if source.embedder is not None:
                    writer.set_vectors_pending(True)  # the new windows are embedded below
        if needs_rebuild:

            def fill(fresh: Store) -> indexer.SyncStats:
                with fresh.transaction():
                    fresh.set_meta(wanted)
                return sync_into(fresh, source, None, watched, cancelled)

            stats = index.rebuild(fill)
            rebuilt = True
        else:
            try:
                stats = sync_into(writer, source, paths, watched, cancelled)
            except errors.IndexCorrupt as exc:
                damage = str(exc)
                writer = index.reset_damaged(damage)
                with writer.transaction():
                    writer.set_meta(wanted)
                stats = sync_into(writer, source, None, watched, cancelled)
            rebuilt = damage is not None or replaced_at_open is not None
        index.damaged_at_open = None
        files, chunks = index.writer().counts()
    return SyncReport(
        files=files,
        chunks=chunks,
        embedded=stats.embedded,
        cache_hits=stats.cache_hits,
        removed=stats.removed,
        seconds=time.perf_counter() - start,
        mode="hybrid" if source.embedder is not None else "fts",
        indexed_paths=tuple(stats.indexed_paths),
        removed_paths=tuple(stats.removed_paths),
        failures=tuple(FileFailure(p, r) for p, r in stats.failures),
        skipped=tuple(FileFailure(s.path, s.reason) for s in stats.skipped),
        rebuilt=rebuilt,
        repaired=damage or replaced_at_open,
    )


def sync_into(
    store: Store,
    source: SyncSource,
    only: Sequence[str] | None,
    progress: ProgressFn | None,
    cancelled: CancelledFn | None,
) -> indexer.SyncStats:
    """The indexer over ``store``, its progress as ``SyncProgress``."""
    files_total = 0

    def report(done: int, total: int, chunks: int, path: str, phase: str) -> None:
        nonlocal files_total
        if progress is None:
            return
        if phase in ("embed", "windows"):  # done/total count chunks here
            progress(SyncProgress(files_total, files_total, chunks, path, phase, done, total))
        else:
            files_total = total
            progress(SyncProgress(done, total, chunks, path, phase))

    return indexer.sync_files(
        store,
        source.workspace,
        extra_paths=source.extra_paths,
        embedder=source.embedder,
        params=source.params,
        only=only,
        progress=report,
        cancelled=cancelled,
        embed_lock=source.embed_lock,
        history=source.history,
    )
