"""The facade the GUI and CLI use: one workspace, its index and its embedder.

Threading contract: ``sync`` is the only writer and may run on a worker thread;
``fetch_candidates``/``search``/``status`` use a separate read connection (WAL) and
may run concurrently with it. Embedder calls are serialised by a lock because a
llama.cpp context is not re-entrant.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import importlib.util
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import apsw
import numpy as np

from memdesk.core import errors, paths
from memdesk.core.embed import embedder as embedder_mod
from memdesk.core.index import indexer, workspace
from memdesk.core.index.store import Store, remove_index_files, swap_in
from memdesk.core.openclaw import keyword_search as oc_kw
from memdesk.core.openclaw import profile_2026_9
from memdesk.core.openclaw import text as oc_text
from memdesk.core.search import dates, lexical, ranking
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import settings as settings_mod

Scope = Literal["all", "shared"]  # "shared" = a group chat: no MEMORY.md / memory.md
ProgressFn = Callable[["SyncProgress"], None]
CancelledFn = Callable[[], bool]


@dataclasses.dataclass(frozen=True)
class SyncProgress:
    """Reported after each file, then after each group of chunks embedded, during ``Engine.sync``.

    Phases: "scan", "index" (a file's chunks and keyword index written), "keyword"
    (every changed file is keyword-searchable now), "embed" (``embedded`` of
    ``to_embed`` chunks have their vectors), "finish".
    """

    files_done: int
    files_total: int
    chunks_done: int
    path: str  # workspace-relative path just handled ("" at start/end)
    phase: str
    embedded: int = 0
    to_embed: int = 0


@dataclasses.dataclass(frozen=True)
class FileFailure:
    path: str
    reason: str


@dataclasses.dataclass(frozen=True)
class SyncReport:
    """What one sync did; ``to_json`` is the ``memdesk index --json`` contract."""

    files: int
    chunks: int
    embedded: int
    cache_hits: int
    removed: int
    seconds: float
    mode: hits_mod.Mode
    indexed_paths: tuple[str, ...] = ()
    removed_paths: tuple[str, ...] = ()
    failures: tuple[FileFailure, ...] = ()
    skipped: tuple[FileFailure, ...] = ()  # paths discovery passed over (symlinks, odd names...)
    rebuilt: bool = False
    repaired: str | None = None  # the damage that made this sync rebuild the index

    def to_json(self) -> dict[str, object]:
        return {
            "files": self.files,
            "chunks": self.chunks,
            "embedded": self.embedded,
            "cache_hits": self.cache_hits,
            "removed": self.removed,
            "seconds": round(self.seconds, 3),
            "mode": self.mode,
            "failures": [dataclasses.asdict(f) for f in self.failures],
            "skipped": [dataclasses.asdict(f) for f in self.skipped],
        }


@dataclasses.dataclass(frozen=True)
class IndexStatus:
    """``memdesk status`` and the GUI status bar."""

    workspace: str
    files: int
    chunks: int
    dirty_files: tuple[str, ...]
    db_path: str
    db_bytes: int
    embedder: dict[str, object] | None
    dims: int | None
    fts_available: bool
    vector_available: bool  # sqlite-vec loaded (else numpy scan)
    mode: hits_mod.Mode
    fallback_reason: str | None
    failures: tuple[FileFailure, ...] = ()
    last_sync: dt.datetime | None = None
    skipped: tuple[FileFailure, ...] = ()
    damage: str | None = None  # why the index is being rebuilt, if it was found damaged
    corrupt_copy: str | None = None  # where the last damaged index was moved aside


@dataclasses.dataclass(frozen=True)
class SearchResult:
    pool: hits_mod.CandidatePool
    hits: tuple[hits_mod.Hit, ...]
    settings: settings_mod.SearchSettings


log = logging.getLogger(__name__)

SNIPPET_UTF16 = 700
OC4 = settings_mod.OPENCLAW_2026_4  # OpenClaw's snippet length
MAX_QUERY_CHARS = 10_000  # longer queries are cut: nobody types more, and FTS work stays bounded
ModelSpec = Path | str | None
# How long a sync keeps retrying while another process writes (beyond SQLite's own
# busy timeout per statement): long enough for another first index to finish.
BUSY_RETRY_SECONDS = 120.0
# sqlite-vec's exact scan costs ~1 µs per 384-dim vector on a laptop core; past this
# many chunks the vector leg scans an in-memory copy of chunks_vec with numpy
# instead (BLAS, ~10x faster; 1.5 KB of RAM per chunk). sqlite-vec stays the store.
IN_MEMORY_VECTORS_FROM = 20_000


def load_embedder(model: ModelSpec) -> tuple[embedder_mod.Embedder | None, str | None]:
    """Resolve ``model`` to an embedder, or (None, why not) for FTS-only mode.

    ``"auto"`` is the default built model in the models dir; ``None``/``"none"``
    means FTS-only on purpose; anything else is a GGUF path. Never raises for a
    bad model: the caller degrades to FTS-only and shows the reason.
    """
    if model is None or (isinstance(model, str) and model.lower() == "none"):
        return None, "no embedding model selected (FTS-only by choice)"
    path: Path | None
    if isinstance(model, str) and model == "auto":
        try:
            from memdesk.core.embed.models import registry

            path = registry.find_default_model(paths.models_dir())
        except ImportError:
            path = None
        if path is None:
            return None, "no embedding model built yet (run: memdesk model build)"
    else:
        path = Path(model).expanduser()
    if importlib.util.find_spec("llama_cpp") is None:
        return None, "llama-cpp-python is not installed"
    try:
        from memdesk.core.embed import gguf_embedder

        # Lazy: the header is checked now, the weights load on first use, so
        # opening a workspace (status, keyword search, the window) never waits.
        return gguf_embedder.GgufEmbedder(path, lazy=True), None
    except errors.EmbedderUnavailable as exc:
        log.warning("%s", exc)
        return None, str(exc)


@dataclasses.dataclass(frozen=True)
class MemdeskOptions:
    """The memdesk profile's departures from OpenClaw, each switchable for ablation.

    ``docs/quality.md`` measures each one; the defaults are the measured best.
    """

    segmented_index: bool = True  # CJK uni+bigram index (False: OpenClaw's unicode61 table)
    or_terms: bool = True  # OR the query terms (False: AND, as OpenClaw)
    stop_words: bool = True  # drop stop words from keyword queries
    complete_vector: bool = True  # a keyword-only hit gets its real cosine, not 0
    complete_text: bool = False  # a vector-only hit gets its real BM25, not 0
    # "saturate": r / (1 + r) as OpenClaw (with OR queries r is a sum over matched
    # terms, so strong multi-term matches approach 1); "max": r / best r in the pool.
    # Saturation measured better on every dev set (docs/quality.md).
    text_norm: str = "saturate"


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def _optional_str(value: object | None) -> str | None:
    return None if value is None else str(value)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


class Engine:
    """One workspace's index and embedder. See the module docstring for threading."""

    memdesk_options = MemdeskOptions()

    def __init__(
        self,
        workspace_dir: Path,
        *,
        embedder: embedder_mod.Embedder | None,
        db_path: Path | None = None,
        extra_paths: Sequence[Path | str] = (),
        fallback_reason: str | None = None,
        chunk_params: indexer.ChunkParams | None = None,
    ) -> None:
        """``chunk_params`` fixes the chunking (e.g. OpenClaw's 400/80 for a parity run)
        instead of deriving it from the embedder's context."""
        root = Path(workspace_dir).expanduser()
        if not root.is_dir():
            raise errors.WorkspaceError(f"{root}: workspace folder does not exist")
        self.workspace = root.resolve()
        self.extra_paths = tuple(extra_paths)
        self.db_path = Path(db_path) if db_path else paths.index_path_for(self.workspace)
        self._embedder = embedder
        self._fallback_reason = fallback_reason if embedder is None else None
        self._sync_lock = threading.RLock()
        self._read_lock = threading.RLock()
        self.embed_lock = threading.RLock()  # llama.cpp contexts are not re-entrant
        self._writer: Store | None = None
        self._reader: Store | None = None
        self._generation = 0
        self._reader_generation = -1
        self._vec_cache: tuple[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
        self._last_sync: dt.datetime | None = None
        # Why the index must be rebuilt, when a read found it damaged; the next sync does.
        self._damage: str | None = None
        self._chunk_params = chunk_params
        self._oc9: profile_2026_9.Runner | None = None  # the openclaw-2026.9 profile's own index
        self._open_writer()

    @classmethod
    def open(
        cls,
        workspace_dir: Path,
        *,
        model: ModelSpec = "auto",
        db_path: Path | None = None,
        extra_paths: Sequence[Path | str] = (),
    ) -> Engine:
        emb, reason = load_embedder(model)
        return cls(
            workspace_dir, embedder=emb, db_path=db_path, extra_paths=extra_paths, fallback_reason=reason
        )

    # -- connections -----------------------------------------------------------
    def _open_writer(self) -> Store:
        if self._writer is not None and not self._writer.is_current():
            self._reopen_swapped(writer=True)
        if self._writer is None:
            try:
                self._writer = Store(self.db_path)
            except errors.IndexCorrupt as exc:
                # The index is disposable: move the damaged file aside and start over.
                log.warning("%s; rebuilding from the Markdown files", exc)
                self._discard_corrupt()
                self._writer = Store(self.db_path)
        return self._writer

    def _discard_corrupt(self) -> None:
        """Move the damaged index aside (kept for a post-mortem; only the newest copy
        stays) so a fresh one can be built from the notes."""
        aside = self.db_path.with_name(self.db_path.name + f".corrupt-{time.time_ns()}")
        with contextlib.suppress(OSError):
            self.db_path.replace(aside)
            log.warning("the damaged index was moved to %s", aside)
        remove_index_files(self.db_path)
        self._generation += 1
        copies = sorted(self.db_path.parent.glob(self.db_path.name + ".corrupt-*"), key=_mtime)
        for old in copies[:-1]:
            with contextlib.suppress(OSError):
                old.unlink()

    def corrupt_copy(self) -> Path | None:
        """The newest damaged index moved aside, if any."""
        copies = sorted(self.db_path.parent.glob(self.db_path.name + ".corrupt-*"), key=_mtime)
        return copies[-1] if copies else None

    def _reset_damaged(self, reason: str) -> Store:
        """Replace a damaged index by an empty one (under the sync lock)."""
        log.warning("index damaged (%s); rebuilding it from the notes", reason)
        with self._read_lock:
            for store in (self._writer, self._reader):
                if store is not None:
                    store.close()
            self._writer = self._reader = None
            self._discard_corrupt()
        self._damage = None
        return self._open_writer()
        self._generation += 1

    def _reopen_swapped(self, *, writer: bool) -> None:
        """Another process swapped a rebuilt index in (or moved a damaged one aside):
        our connections still see the old file, and writes into it would be lost.

        The writer is only replaced from the sync path (it holds the sync lock), the
        reader from the read path (it holds the read lock).
        """
        log.info("%s was replaced by another process; reopening it", self.db_path.name)
        with self._read_lock:
            if writer and self._writer is not None:
                self._writer.close()
                self._writer = None
            if self._reader is not None:
                self._reader.close()
                self._reader = None
            self._vec_cache = None

    def _read(self) -> Store:
        if self._reader is not None and not self._reader.is_current():
            self._reopen_swapped(writer=False)
        if self._reader is None or self._reader_generation != self._generation:
            if self._reader is not None:
                self._reader.close()
            self._reader = Store(self.db_path)
            self._reader_generation = self._generation
        return self._reader

    def close(self) -> None:
        for store in (self._reader, self._writer):
            if store is not None:
                store.close()
        self._reader = self._writer = None

    # -- embedder ------------------------------------------------------------------
    @property
    def embedder(self) -> embedder_mod.Embedder | None:
        return self._embedder

    @property
    def fallback_reason(self) -> str | None:
        return self._fallback_reason

    def set_model(self, model: ModelSpec) -> None:
        """Swap the embedder; the next ``sync`` re-embeds, reusing the cache."""
        emb, reason = load_embedder(model)
        self.set_embedder(emb, reason)

    def set_embedder(self, emb: embedder_mod.Embedder | None, reason: str | None = None) -> None:
        with self._sync_lock, self.embed_lock:
            self._embedder = emb
            self._fallback_reason = reason if emb is None else None

    @property
    def mode(self) -> hits_mod.Mode:
        return "hybrid" if self._embedder is not None else "fts"

    def _wanted_meta(self) -> dict[str, object]:
        params = self._chunk_params or indexer.chunk_params_for(self._embedder)
        ident = self._embedder.identity if self._embedder is not None else None
        return {
            "provider": ident.provider if ident else "none",
            "model": ident.model if ident else indexer.FTS_ONLY_MODEL,
            "provider_key": ident.provider_key if ident else "",
            "dims": ident.dims if ident else None,
            "chunk_tokens": params.tokens,
            "chunk_overlap": params.overlap,
            "fts_seg_tokenizer": "cjk-bigram+" + "porter",
        }

    # -- sync ------------------------------------------------------------------------
    def sync(
        self,
        *,
        rebuild: bool = False,
        paths: Sequence[str] | None = None,
        progress: ProgressFn | None = None,
        cancelled: CancelledFn | None = None,
        verify: bool = False,
    ) -> SyncReport:
        """Bring the index up to date; a changed model or chunking means a safe rebuild.

        The model loads lazily, on the first text to embed; if llama.cpp cannot
        load it after all, the engine degrades to keyword-only search (with the
        reason) and syncs again, as it would have had the model failed at open.
        """
        # SQLite answers some lock conflicts at once instead of waiting in the busy
        # handler (a read snapshot gone stale under another writer, WAL set-up), so a
        # second writer also waits here for its turn. A sync is idempotent: running it
        # again after a rolled-back attempt is safe.
        deadline = time.monotonic() + BUSY_RETRY_SECONDS
        while True:
            try:
                return self._sync_degrading(
                    rebuild=rebuild, paths=paths, progress=progress, cancelled=cancelled, verify=verify
                )
            except errors.IndexBusy:
                if time.monotonic() >= deadline or (cancelled is not None and cancelled()):
                    raise
                log.info("index busy: another writer holds it; waiting for its turn")
                time.sleep(0.25)

    def _sync_degrading(
        self,
        *,
        rebuild: bool,
        paths: Sequence[str] | None,
        progress: ProgressFn | None,
        cancelled: CancelledFn | None,
        verify: bool,
    ) -> SyncReport:
        """``_sync``, degrading to keyword-only when llama.cpp refuses the model."""
        try:
            return self._sync(
                rebuild=rebuild, paths=paths, progress=progress, cancelled=cancelled, verify=verify
            )
        except errors.EmbedderUnavailable as exc:
            if self._embedder is None:
                raise
            log.warning("%s; keyword-only search", exc)
            self.set_embedder(None, str(exc))
            return self._sync(
                rebuild=rebuild, paths=None, progress=progress, cancelled=cancelled, verify=verify
            )

    def _sync(
        self,
        *,
        rebuild: bool,
        paths: Sequence[str] | None,
        progress: ProgressFn | None,
        cancelled: CancelledFn | None,
        verify: bool = False,
    ) -> SyncReport:
        """``sync`` with the embedder as it is.

        A rebuild indexes into a fresh database next to the old one (seeding its
        embedding cache from it) and swaps it in at the end, so a crash or cancel
        mid-rebuild leaves the old index in use. A damaged index (found by a search,
        at open, or by ``verify``'s full check of every page) is moved aside and
        rebuilt from the notes; ``SyncReport.repaired`` says why.
        """
        start = time.perf_counter()
        with self._sync_lock:
            self._remove_stale_rebuilds()
            writer = self._open_writer()
            wanted = self._wanted_meta()
            damage = self._damage
            meta: dict[str, object] | None = None
            try:
                meta = writer.get_meta()
                files_known = writer.counts()[0]
            except (apsw.CorruptError, apsw.NotADBError, errors.IndexCorrupt) as exc:
                damage = str(exc)
            if damage is None and verify:
                damage = writer.integrity_problem()
            if damage is not None:
                writer = self._reset_damaged(damage)
                meta, files_known = None, 0
            # An index with notes but no model record cannot say what its vectors are.
            needs_rebuild = (
                rebuild or (meta is not None and meta != wanted) or (meta is None and files_known > 0)
            )
            if meta is None and files_known == 0 and not needs_rebuild:
                with writer.transaction():
                    writer.set_meta(wanted)
            if needs_rebuild:
                stats = self._rebuild(wanted, progress, cancelled)
                rebuilt = True
            else:
                try:
                    stats = self._sync_into(writer, paths, progress, cancelled)
                except (apsw.CorruptError, apsw.NotADBError) as exc:
                    damage = str(exc)
                    writer = self._reset_damaged(damage)
                    with writer.transaction():
                        writer.set_meta(wanted)
                    stats = self._sync_into(writer, None, progress, cancelled)
                rebuilt = damage is not None
            files, chunks = self._open_writer().counts()
        self._last_sync = dt.datetime.now(dt.UTC)
        self._vec_cache = None
        return SyncReport(
            files=files,
            chunks=chunks,
            embedded=stats.embedded,
            cache_hits=stats.cache_hits,
            removed=stats.removed,
            seconds=time.perf_counter() - start,
            mode=self.mode,
            indexed_paths=tuple(stats.indexed_paths),
            removed_paths=tuple(stats.removed_paths),
            failures=tuple(FileFailure(p, r) for p, r in stats.failures),
            skipped=tuple(FileFailure(s.path, s.reason) for s in stats.skipped),
            rebuilt=rebuilt,
            repaired=damage,
        )

    def _sync_into(
        self,
        store: Store,
        only: Sequence[str] | None,
        progress: ProgressFn | None,
        cancelled: CancelledFn | None,
    ) -> indexer.SyncStats:
        files_total = 0

        def report(done: int, total: int, chunks: int, path: str, phase: str) -> None:
            nonlocal files_total
            if progress is None:
                return
            if phase == "embed":  # done/total count chunks here
                progress(SyncProgress(files_total, files_total, chunks, path, phase, done, total))
            else:
                files_total = total
                progress(SyncProgress(done, total, chunks, path, phase))

        return indexer.sync_files(
            store,
            self.workspace,
            extra_paths=self.extra_paths,
            embedder=self._embedder,
            params=self._chunk_params or indexer.chunk_params_for(self._embedder),
            only=only,
            progress=report,
            cancelled=cancelled,
            embed_lock=self.embed_lock,
        )

    def _rebuild(
        self, wanted: dict[str, object], progress: ProgressFn | None, cancelled: CancelledFn | None
    ) -> indexer.SyncStats:
        self._remove_stale_rebuilds()
        # The builder's pid is in the name, so a leftover of a killed rebuild is known
        # for one at once (``_remove_stale_rebuilds``).
        tmp = self.db_path.with_name(f"{self.db_path.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        fresh = Store(tmp)
        try:
            fresh.copy_cache_from(self.db_path)
            with fresh.transaction():
                fresh.set_meta(wanted)
            stats = self._sync_into(fresh, None, progress, cancelled)
            fresh.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except BaseException:
            fresh.close()
            remove_index_files(tmp)
            raise
        fresh.close()
        with self._read_lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None
            if self._reader is not None:
                self._reader.close()
                self._reader = None
            swap_in(tmp, self.db_path)
            self._generation += 1
        self._open_writer()
        return stats

    def _remove_stale_rebuilds(self, idle_seconds: float = 600.0) -> None:
        """Delete half-built indexes (and their -wal/-shm) left by a killed rebuild.

        One whose builder process is gone goes at once; one whose name carries no pid,
        or whose pid now belongs to another process, once untouched for ten minutes
        (a live rebuild writes its files continuously).
        """
        now = time.time()
        prefix = self.db_path.name + ".tmp-"
        for path in self.db_path.parent.glob(prefix + "*"):
            if path.name.endswith(("-wal", "-shm", "-journal")):
                continue
            pid = path.name[len(prefix) :].split("-", 1)[0]
            try:
                stale = (pid.isdigit() and not _process_alive(int(pid))) or (
                    now - path.stat().st_mtime > idle_seconds
                )
            except OSError:
                continue
            if stale:
                remove_index_files(path)
                log.info("removed %s, left by a rebuild that did not finish", path.name)

    # -- search ------------------------------------------------------------------------
    def search(
        self,
        query: str,
        settings: settings_mod.SearchSettings,
        *,
        scope: Scope = "all",
        now: dt.date | dt.datetime | None = None,
    ) -> SearchResult:
        pool = self.fetch_candidates(query, settings, scope=scope, now=now)
        return SearchResult(pool=pool, hits=tuple(ranking.rank(pool, settings, now=now)), settings=settings)

    def fetch_candidates(
        self,
        query: str,
        settings: settings_mod.SearchSettings,
        *,
        scope: Scope = "all",
        mode: hits_mod.Mode | None = None,
        wait_for_model: bool = True,
        now: dt.date | dt.datetime | None = None,
    ) -> hits_mod.CandidatePool:
        """Run the keyword and vector legs once; ``ranking.rank`` does the rest in memory.

        ``mode`` forces one leg ("fts": keyword only, as with no model; "vector":
        embeddings only, as with no FTS) for evaluation; by default it is the
        engine's mode. With ``wait_for_model=False`` (the GUI) a search while the
        embedding model is still loading runs keyword-only instead of waiting.
        ``now`` is the clock of profiles that rank while fetching (openclaw-2026.9
        applies decay inside its pipeline).
        """
        settings = settings.clamped()
        q = query.strip()[:MAX_QUERY_CHARS]
        limit = settings.candidate_pool_size
        timings: dict[str, float] = {"pool_size": float(limit)}
        mode = self.mode if mode is None or self._embedder is None else mode
        model_loading = not wait_for_model and mode != "fts" and not getattr(self._embedder, "loaded", True)
        if model_loading:
            mode = "fts"
        empty = hits_mod.CandidatePool(
            query=q, mode=mode, profile=settings.profile, candidates=(), timings_ms=timings
        )
        if not q:
            return empty
        with self._read_lock:
            try:
                store = self._read()
                if settings.profile == settings_mod.OPENCLAW_2026_4:
                    cands = self._fetch_openclaw(store, q, limit, scope, mode, timings)
                elif settings.profile == settings_mod.OPENCLAW_2026_9:
                    cands = self._fetch_openclaw_2026_9(store, q, scope, mode, timings, now)
                else:
                    cands = self._fetch_memdesk(store, q, limit, scope, mode, timings)
            except (apsw.CorruptError, apsw.NotADBError, apsw.SQLError, errors.IndexCorrupt) as exc:
                if isinstance(exc, apsw.SQLError) and "no such" not in str(exc):
                    raise  # a query bug, not a damaged schema
                # Never an empty answer that looks like "no matches": say so, and let the
                # next sync rebuild the index.
                self._damage = str(exc)
                log.warning("index damaged, found during a search: %s", exc)
                raise errors.IndexCorrupt(
                    f"the index is damaged ({exc}); it is being rebuilt from the notes"
                ) from exc
        return hits_mod.CandidatePool(
            query=q,
            mode=mode,
            profile=settings.profile,
            candidates=tuple(cands),
            query_terms=lexical.highlight_terms(q),
            timings_ms=timings,
            model_loading=model_loading,
        )

    def _embed_query(self, q: str, timings: dict[str, float]) -> np.ndarray | None:
        if self._embedder is None:
            return None
        t0 = time.perf_counter()
        # No embed lock: queries have their own llama.cpp context, so a search never
        # waits for the indexer's batch.
        try:
            vec = np.asarray(self._embedder.embed_query(q), dtype=np.float32)
        except errors.EmbedderUnavailable as exc:  # the lazy load failed: keyword-only
            log.warning("%s; keyword-only search", exc)
            # Plain assignments, not set_embedder: its sync lock could be held by a
            # rebuild waiting for the read lock this search holds.
            self._fallback_reason = str(exc)
            self._embedder = None
            return None
        timings["embed_ms"] = (time.perf_counter() - t0) * 1000
        if not np.any(vec):
            return None  # OpenClaw skips the vector leg for an all-zero query vector
        if not np.all(np.isfinite(vec)):
            log.warning("the embedding model returned a non-finite query vector; keyword results only")
            return None
        return vec

    def _vector_leg(
        self, store: Store, qvec: np.ndarray, limit: int, scope: Scope, timings: dict[str, float]
    ) -> list[tuple[int, float]]:
        t0 = time.perf_counter()
        if store.vec_available and store.chunk_count_bound() < IN_MEMORY_VECTORS_FROM:
            out = store.vector_search(qvec, limit, shared_only=scope == "shared")
        else:
            out = self._numpy_vector_search(store, qvec, limit, scope)
        timings["vector_ms"] = (time.perf_counter() - t0) * 1000
        return out

    def _numpy_vectors(self, store: Store) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        assert self._embedder is not None
        key = (self._generation, store.data_version())
        if self._vec_cache is None or self._vec_cache[0] != key:
            ident = self._embedder.identity
            vectors = (
                store.vec_table_vectors()
                if store.vec_available
                else store.all_vectors(ident.provider, ident.model, ident.provider_key)
            )
            self._vec_cache = (key, vectors)
        return self._vec_cache[1]

    def _numpy_vector_search(
        self, store: Store, qvec: np.ndarray, limit: int, scope: Scope
    ) -> list[tuple[int, float]]:
        """Exact cosine scan in numpy when sqlite-vec cannot load: same ranking."""
        rids, shared, matrix = self._numpy_vectors(store)
        if matrix.size == 0:
            return []
        sims = matrix @ qvec
        if scope == "shared":
            sims = np.where(shared, sims, -np.inf)
        k = min(limit, len(sims))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(int(rids[i]), float(sims[i])) for i in top if np.isfinite(sims[i])]

    def _candidate(
        self, row: tuple[object, ...], profile: str, vector: float | None, text: float | None
    ) -> hits_mod.Candidate:
        cid, path, source, start, end, body = row
        body_s = str(body)
        return hits_mod.Candidate(
            chunk_id=str(cid),
            path=str(path),
            source=str(source),
            start_line=int(start),  # type: ignore[call-overload]
            end_line=int(end),
            text=body_s,  # type: ignore[call-overload]
            snippet=oc_text.truncate_utf16_safe(body_s, SNIPPET_UTF16),
            vector_score=vector,
            text_score=text,
            date=dates.decay_date(str(path), profile=profile, workspace=self.workspace, source=str(source)),
        )

    # OpenClaw profile ------------------------------------------------------------------
    def _fetch_openclaw(
        self, store: Store, q: str, limit: int, scope: Scope, mode: str, timings: dict[str, float]
    ) -> list[hits_mod.Candidate]:
        def in_scope(path: str) -> bool:
            return scope == "all" or workspace.is_shared_scope(path)

        # Fetch a little more when filtering by scope afterwards, so the pool stays full.
        extra = 0 if scope == "all" else self._root_chunk_count(store)
        if mode == "fts":
            t0 = time.perf_counter()
            rows = oc_kw.fts_only_candidates(store.conn, q, limit + extra)
            timings["keyword_ms"] = (time.perf_counter() - t0) * 1000
            return [
                self._candidate(
                    (r.id, r.path, r.source, r.start_line, r.end_line, r.text), OC4, None, r.score
                )
                for r in rows
                if in_scope(r.path)
            ]  # the whole union: OpenClaw sorts all per-keyword hits before cutting
        model = self._embedder.identity.model if self._embedder else indexer.FTS_ONLY_MODEL
        t0 = time.perf_counter()
        kw_rows = (
            []
            if mode == "vector"
            else [
                r for r in oc_kw.search_keyword(store.conn, q, limit + extra, model=model) if in_scope(r.path)
            ][:limit]
        )
        timings["keyword_ms"] = (time.perf_counter() - t0) * 1000
        qvec = self._embed_query(q, timings)
        vec_hits = self._vector_leg(store, qvec, limit, scope, timings) if qvec is not None else []
        rows = store.chunk_rows([rid for rid, _ in vec_hits])
        by_id: dict[str, hits_mod.Candidate] = {}
        order: list[str] = []
        for rid, sim in vec_hits:
            if rid in rows:
                cand = self._candidate(rows[rid], OC4, sim, None)
                by_id[cand.chunk_id] = cand
                order.append(cand.chunk_id)
        for r in kw_rows:
            if r.id in by_id:
                by_id[r.id] = dataclasses.replace(by_id[r.id], text_score=r.text_score)
            else:
                by_id[r.id] = self._candidate(
                    (r.id, r.path, r.source, r.start_line, r.end_line, r.text), OC4, None, r.text_score
                )
                order.append(r.id)
        return [by_id[i] for i in order]

    def _fetch_openclaw_2026_9(
        self,
        store: Store,
        q: str,
        scope: Scope,
        mode: str,
        timings: dict[str, float],
        now: dt.date | dt.datetime | None,
    ) -> list[hits_mod.Candidate]:
        """OpenClaw 2026.9's whole pipeline over its own index of this workspace.

        The candidates come back ranked (``Candidate.ranked``); ``ranking.rank`` only
        applies the release's minScore/maxResults selection.
        """
        from memdesk.core.openclaw import v2026_9

        if self._oc9 is None:
            self._oc9 = profile_2026_9.Runner(self.workspace)
        t0 = time.perf_counter()
        base = self._embedder if mode != "fts" else None
        searcher = self._oc9.searcher(base, store, self.embed_lock)
        qvec = self._oc9.query_vector(q, self.embed_lock) if base is not None else None
        timings["keyword_ms"] = (time.perf_counter() - t0) * 1000
        timings["pool_size"] = float(v2026_9.CANDIDATE_UNIVERSE)
        kind, ranked = searcher.ranked(
            q,
            now_ms=dates.as_utc_datetime(now).timestamp() * 1000,
            query_vec=qvec,
            vector_only=mode == "vector",
        )
        out = []
        for pos, r in enumerate(ranked, 1):
            if scope != "all" and not workspace.is_shared_scope(r.path):
                continue
            chunk = searcher.index.by_id.get(r.id)
            text = chunk.text if chunk is not None else r.snippet
            out.append(
                hits_mod.Candidate(
                    chunk_id=r.id,
                    path=r.path,
                    source=r.source,
                    start_line=r.start_line,
                    end_line=r.end_line,
                    text=text,
                    snippet=r.snippet,
                    vector_score=r.vector_score if kind != "fts" else None,
                    text_score=r.text_score if r.keyword_hit else None,
                    date=dates.decay_date(
                        r.path,
                        profile=settings_mod.OPENCLAW_2026_9,
                        workspace=self.workspace,
                        source=r.source,
                    ),
                    importance=r.importance,
                    project_key=r.project_key,
                    ranked=hits_mod.RankedParts(
                        score=r.score,
                        merged=r.content_score if kind == "hybrid" else r.score,
                        decay=r.decay,
                        importance_multiplier=r.importance_mult,
                        project_multiplier=r.project_mult,
                        pre_mmr_rank=r.pre_mmr_rank or pos,
                        mmr_rank=pos if kind == "hybrid" and r.exact == 0 else None,
                        keyword_hit=r.keyword_hit,
                        exact_path=r.exact,
                    ),
                )
            )
        return out

    def _root_chunk_count(self, store: Store) -> int:
        return int(
            store.conn.execute(
                "SELECT count(*) FROM chunks WHERE path IN ('MEMORY.md', 'memory.md')"
            ).fetchall()[0][0]
        )

    # memdesk profile -------------------------------------------------------------------
    def _fetch_memdesk(
        self, store: Store, q: str, limit: int, scope: Scope, mode: str, timings: dict[str, float]
    ) -> list[hits_mod.Candidate]:
        """Both legs over memdesk's segmented keyword index; see ``MemdeskOptions``.

        A keyword-only hit gets its real cosine (cheap, and it shows the user how
        close the vector leg came); a vector-only hit's BM25 stays 0 unless
        ``complete_text`` asks for it (measured: no gain, real cost).
        """
        opts = self.memdesk_options
        table = "chunks_fts_seg" if opts.segmented_index else "chunks_fts"
        terms: list[str] = []
        if mode != "vector":
            terms = (
                lexical.query_terms(q) if opts.stop_words else lexical.query_terms(q, stop_words=frozenset())
            )
            if not opts.segmented_index:
                terms = list(oc_text.word_tokens(q))
        if len(terms) > 1 and opts.segmented_index:
            # FTS5 clamps the idf of a term found in half the chunks or more to 1e-6:
            # such a term cannot change the BM25 order, yet it makes FTS5 score nearly
            # every row. Leave it out unless nothing else is left.
            total, freq = store.document_frequencies(terms)
            kept = [t for t in terms if 2 * freq.get(t, 0) < total]
            terms = kept or terms
        expr = lexical.fts_match_expression(terms, joiner=" OR " if opts.or_terms else " AND ")
        scope_sql = "" if scope == "all" else " AND c.path NOT IN ('MEMORY.md', 'memory.md')"
        t0 = time.perf_counter()
        kw: list[tuple[int, float]] = []
        if expr is not None:
            kw = [
                (int(r), -float(s))
                for r, s in store.conn.execute(
                    f"SELECT f.rowid, bm25({table}) AS s FROM {table} f "
                    f"JOIN chunks c ON c.rid = f.rowid WHERE {table} MATCH ?"
                    f"{scope_sql} ORDER BY s LIMIT ?",
                    (expr, limit),
                )
            ]
        timings["keyword_ms"] = (time.perf_counter() - t0) * 1000
        qvec = self._embed_query(q, timings) if mode != "fts" else None
        vec = self._vector_leg(store, qvec, limit, scope, timings) if qvec is not None else []
        vec_scores = dict(vec)
        kw_scores = dict(kw)
        order = [rid for rid, _ in vec] + [rid for rid, _ in kw if rid not in vec_scores]
        t0 = time.perf_counter()
        if opts.complete_vector and qvec is not None:
            missing = [rid for rid in order if rid not in vec_scores]
            vec_scores.update(self._cosines(store, qvec, missing))
        if opts.complete_text and expr is not None:
            missing = [rid for rid in order if rid not in kw_scores]
            # One rowid-constrained MATCH per chunk: FTS5 seeks each doclist to that
            # rowid, far cheaper than scoring every match and filtering.
            for rid in missing:
                for (score,) in store.conn.execute(
                    f"SELECT bm25({table}) FROM {table} WHERE {table} MATCH ? AND rowid = ?", (expr, rid)
                ):
                    kw_scores[rid] = -float(score)
        timings["complete_ms"] = (time.perf_counter() - t0) * 1000
        best = max((s for s in kw_scores.values()), default=0.0)
        rows = store.chunk_rows(order)
        out: list[hits_mod.Candidate] = []
        for rid in order:
            if rid not in rows:
                continue
            text_score: float | None = None
            if expr is not None:
                raw = kw_scores.get(rid, 0.0)
                if opts.text_norm == "saturate":
                    text_score = raw / (1.0 + raw) if raw > 0 else 0.0
                else:
                    text_score = raw / best if best > 0 else 0.0
            vector_score = vec_scores.get(rid) if qvec is not None else None
            cand = self._candidate(rows[rid], "memdesk", vector_score, text_score)
            if vector_score is None and qvec is not None and opts.complete_vector:
                # The completion found no vector: the chunk is not embedded yet.
                cand = dataclasses.replace(cand, keyword_only=True)
            out.append(cand)
        return out

    def _cosines(self, store: Store, qvec: np.ndarray, rids: Sequence[int]) -> dict[int, float]:
        if not rids:
            return {}
        out: dict[int, float] = {}
        in_memory = self._vec_cache is not None and self._vec_cache[0] == (
            self._generation,
            store.data_version(),
        )
        if not in_memory and self._embedder is not None:
            # The embedding cache is a plain B-tree keyed by content hash: one join
            # fetches every vector (vec0 would need a look-up per rowid).
            ident = self._embedder.identity
            found = store.cached_vectors_for(rids, ident.provider, ident.model, ident.provider_key)
            out.update((rid, float(vec @ qvec)) for rid, vec in found.items())
            rest = [rid for rid in rids if rid not in out]
            if rest and store.vec_available and store.has_vec_table():
                for rid in rest:
                    for (blob,) in store.conn.execute(
                        "SELECT embedding FROM chunks_vec WHERE rowid = ?", (int(rid),)
                    ):
                        out[int(rid)] = float(np.frombuffer(blob, dtype=np.float32) @ qvec)
            return out
        all_rids, _, matrix = self._numpy_vectors(store)
        wanted = np.asarray(rids, dtype=np.int64)
        # chunks_vec rowids are chunk rids: find each wanted rid's row by binary search.
        order = np.argsort(all_rids)
        pos = np.searchsorted(all_rids, wanted, sorter=order)
        pos = np.clip(pos, 0, len(all_rids) - 1)
        rows = order[pos]
        found = all_rids[rows] == wanted
        sims = matrix[rows[found]] @ qvec
        for rid, sim in zip(wanted[found].tolist(), sims.tolist(), strict=True):
            out[int(rid)] = float(sim)
        return out

    # -- status ---------------------------------------------------------------------------
    def status(self, *, verify: bool = False) -> IndexStatus:
        """Counts, mode and health; ``verify`` also reads every page of the index."""
        with self._read_lock:
            try:
                store = self._read()
                files, chunks = store.counts()
                damage = self._damage or (store.integrity_problem() if verify else None)
            except (apsw.CorruptError, apsw.NotADBError, apsw.SQLError, errors.IndexCorrupt) as exc:
                self._damage = str(exc)
                return self._damaged_status(str(exc))
            dirty = indexer.dirty_files(store, self.workspace, self.extra_paths)
            failures = tuple(
                FileFailure(p, r[4] or "") for p, r in store.file_rows().items() if r[3] == "failed"
            )
            vec_ok, vec_err = store.vec_available, store.vec_error
            size = store.size_bytes()
        skipped = tuple(
            FileFailure(s.path, s.reason)
            for s in workspace.scan_memory_files(self.workspace, self.extra_paths).skipped
        )
        ident = self._embedder.identity if self._embedder is not None else None
        reason = self._fallback_reason if ident is None else None
        if ident is not None and not vec_ok:
            reason = f"vectors use a numpy scan: {vec_err}"
        return IndexStatus(
            workspace=str(self.workspace),
            files=files,
            chunks=chunks,
            dirty_files=tuple(dirty),
            db_path=str(self.db_path),
            db_bytes=size,
            embedder=ident.to_json() if ident else None,
            dims=ident.dims if ident else None,
            fts_available=True,
            vector_available=vec_ok,
            mode=self.mode,
            fallback_reason=reason,
            failures=failures,
            last_sync=self._last_sync,
            skipped=skipped,
            damage=damage,
            corrupt_copy=_optional_str(self.corrupt_copy()),
        )

    def _damaged_status(self, damage: str) -> IndexStatus:
        return IndexStatus(
            workspace=str(self.workspace),
            files=0,
            chunks=0,
            dirty_files=(),
            db_path=str(self.db_path),
            db_bytes=0,
            embedder=self._embedder.identity.to_json() if self._embedder is not None else None,
            dims=self._embedder.identity.dims if self._embedder is not None else None,
            fts_available=True,
            vector_available=False,
            mode=self.mode,
            fallback_reason=self._fallback_reason,
            damage=damage,
            corrupt_copy=_optional_str(self.corrupt_copy()),
        )

    def file_states(self) -> dict[str, tuple[str, str]]:
        """rel path -> ("indexed" | "pending" | "failed", reason) for every listed file."""
        with self._read_lock:
            store = self._read()
            known = store.file_rows()
            dirty = set(indexer.dirty_files(store, self.workspace, self.extra_paths))
        out: dict[str, tuple[str, str]] = {}
        for path in workspace.list_memory_files(self.workspace, self.extra_paths):
            rel = workspace.rel_path(self.workspace, path)
            row = known.get(rel)
            if rel in dirty or row is None:
                out[rel] = ("pending", "changed since the last index")
            elif row[3] == "failed":
                out[rel] = ("failed", row[4] or "could not be indexed")
            else:
                out[rel] = ("indexed", "")
        return out

    def read_note(self, rel: str) -> str:
        return workspace.read_note(workspace.resolve_note(self.workspace, rel, self.extra_paths))
