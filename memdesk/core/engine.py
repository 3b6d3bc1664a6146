"""The facade the GUI and CLI use: one workspace, its index and its embedder.

The work lives in the packages: ``core/index/`` syncs and repairs the index
(``sync.py``, ``connections.py``, ``status.py``), ``core/search/`` fetches the
candidate pool (``pool.py`` over the ``keyword.py`` and ``vector.py`` legs) and
ranks it (``ranking.py``). The engine holds what they share: the connections, the
current embedder and the locks.

Threading contract: ``sync`` is the only writer and may run on a worker thread;
``fetch_candidates``/``search``/``status`` use a separate read connection (WAL) and
may run concurrently with it. Embedder calls are serialised by a lock because a
llama.cpp context is not re-entrant.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memdesk.core import errors, paths
from memdesk.core.embed import embedder as embedder_mod
from memdesk.core.embed.loader import ModelSpec, load_embedder
from memdesk.core.embed.openclaw_recipe import OverContext
from memdesk.core.history import History
from memdesk.core.history import shared as history_shared
from memdesk.core.index import indexer, recipe_cache, workspace
from memdesk.core.index import sync as sync_mod
from memdesk.core.index.connections import IndexFiles
from memdesk.core.index.status import (
    CancelledFn,
    FileFailure,
    IndexStatus,
    ProgressFn,
    SyncProgress,
    SyncReport,
    file_states,
    read_status,
)
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.core.messages import of as message_of
from memdesk.core.search import clock as clock_mod
from memdesk.core.search import decay_gap as decay_gap_mod
from memdesk.core.search import filters as filters_mod
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import pool, profiles, ranking
from memdesk.core.search import settings as settings_mod
from memdesk.core.search.keyword import MemdeskOptions
from memdesk.core.search.profiles import runner_common as profile_common
from memdesk.core.search.vector import Scope, VectorLeg

__all__ = [
    "CancelledFn",
    "Engine",
    "FileFailure",
    "IndexStatus",
    "MemdeskOptions",
    "ModelSpec",
    "ProgressFn",
    "Scope",
    "SearchResult",
    "SyncProgress",
    "SyncReport",
    "load_embedder",
]

log = logging.getLogger(__name__)

# Rows each leg fetches when a search filter is set (OpenClaw's own cap): the filter
# drops the rest of the workspace afterwards, so the folder's notes must be in the pool.
FILTERED_POOL = 200


class _MainIndexReads:
    """The main index's embedding cache, read under the read lock one call at a time
    (a profile's background build must not hold that lock while it embeds)."""

    def __init__(self, files: IndexFiles) -> None:
        self._files = files

    def cached_embeddings(self, provider: str, model: str, provider_key: str, hashes: Sequence[str]) -> Any:
        with self._files.read_lock:
            return self._files.reader().cached_embeddings(provider, model, provider_key, hashes)


@dataclasses.dataclass(frozen=True)
class SearchResult:
    pool: hits_mod.CandidatePool
    hits: tuple[hits_mod.Hit, ...]
    settings: settings_mod.SearchSettings


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
        history: bool = True,
    ) -> None:
        """``chunk_params`` fixes the chunking (e.g. OpenClaw's 400/80 for a parity run)
        instead of deriving it from the embedder's context. ``history``: keep every
        version of every note the sync sees (``core/history``); off for evaluation corpora."""
        root = Path(workspace_dir).expanduser()
        if not root.is_dir():
            # A Message: the window shows it in its language (a recent workspace since deleted).
            raise errors.WorkspaceError(
                msg(QT_TRANSLATE_NOOP("core", "{path}: workspace folder does not exist"), path=str(root))
            )
        self.workspace = root.resolve()
        self.extra_paths = tuple(extra_paths)
        self.db_path = Path(db_path) if db_path else paths.index_path_for(self.workspace)
        self._embedder = embedder
        self._fallback_reason = fallback_reason if embedder is None else None
        self.embed_lock = threading.RLock()  # llama.cpp contexts are not re-entrant
        self._index = IndexFiles(self.db_path)
        self._vectors = VectorLeg()
        self._last_sync: dt.datetime | None = None
        self._chunk_params = chunk_params
        # Each OpenClaw profile's own index (``RankingProfile.new_runner``), by profile
        # name, built on its first search.
        self._runners: dict[str, Any] = {}
        self._recipe_cache = recipe_cache.RecipeCache(recipe_cache.path_for(self.db_path))
        self._embedding = False  # a sync is in its embedding phase
        self._keeps_history = history
        # The workspace's default clock (``clock.default_clock``), read once per sync (a
        # sync of named paths moves it without a read when it can), whether it is a dated
        # note's day, and the wall-clock day it was read on (a plan's day may come).
        self._default_clock: tuple[dt.date | None] | None = None
        self._clock_dated = False
        self._clock_read_on: dt.date | None = None
        # The workspace's listing, kept between full syncs while a watcher reports every
        # change (``watched``); None: listed on the next read.
        self._watched = False
        self._kept: workspace.KeptListing | None = None
        self._kept_generation = 0  # moved by every sync's end: a listing read across it is not kept
        self._kept_lock = threading.Lock()
        self._in_step = False  # every sync since a full one completed (``_after_sync``)
        self._preparing: set[str] = set()  # profiles whose index a background job builds
        self._frozen = False  # the workspace does not change (``freeze_profile_indexes``)
        self._index.writer()

    @classmethod
    def open(
        cls,
        workspace_dir: Path,
        *,
        model: ModelSpec = "auto",
        db_path: Path | None = None,
        extra_paths: Sequence[Path | str] = (),
        history: bool = True,
    ) -> Engine:
        emb, reason = load_embedder(model)
        return cls(
            workspace_dir,
            embedder=emb,
            db_path=db_path,
            extra_paths=extra_paths,
            fallback_reason=reason,
            history=history,
        )

    def close(self) -> None:
        self._index.close()
        self._recipe_cache.close()

    def pin_agent_settings(self, settings: profile_common.AgentSettings) -> None:
        """The OpenClaw profiles use these agent settings instead of reading this
        machine's ``openclaw.json`` (replays of recordings, tests)."""
        self._runners = {
            p.name: runner
            for p in profiles.ALL
            if (runner := p.new_runner(self.workspace, settings, self._recipe_cache)) is not None
        }

    def _runner(self, profile: profiles.RankingProfile) -> Any:
        """``profile``'s own index of this workspace (None: the profile uses the main index)."""
        if profile.name not in self._runners:
            runner = profile.new_runner(self.workspace, None, self._recipe_cache)
            if runner is not None:
                runner.frozen = self._frozen
            self._runners[profile.name] = runner
        return self._runners[profile.name]

    def freeze_profile_indexes(self) -> None:
        """Promise that the workspace will not change while this engine is open (an
        evaluation over an imported corpus): the OpenClaw profiles then stop listing
        and checking every file on each search (seconds per query over 5,000 notes)."""
        self._frozen = True
        for runner in self._runners.values():
            if runner is not None:
                runner.frozen = True

    # -- the OpenClaw profiles' own indexes, ahead of their first search ------------------
    def profiles_to_prepare(self, selected: str | None = None) -> list[str]:
        """The OpenClaw profiles worth indexing in the background once the main index is
        complete: the one in use (``selected``) and the one of the release the user's
        OpenClaw setup is in, if OpenClaw is installed. Not every registered profile:
        each embeds the whole workspace again (with e5, nothing is shared with the main
        index: docs/performance.md), as much work as the main index's own vectors, for a
        release the user may never run."""
        names: list[str] = []
        if self._embedder is None:
            return names
        if selected:
            with contextlib.suppress(ValueError):
                profile = profiles.get(selected)
                if profile.openclaw_layout is not None:
                    names.append(profile.name)
        from memdesk.core.agent import config as agent_config

        try:
            setup = agent_config.discover()
        except (errors.MemdeskError, OSError) as exc:
            log.info("OpenClaw setup not read (%s): no profile index ahead of use", exc)
            setup = None
        if setup is not None and setup.installed:
            names.append(profiles.for_layout(setup.layout).name)
        return list(dict.fromkeys(names))

    def will_prepare(self, name: str) -> None:
        """Say (before its job starts) that ``prepare_profile(name)`` is coming: searches
        that must not wait (``wait_for_model=False``) run that profile keyword-only until
        it is done, instead of embedding the same chunks beside it."""
        self._preparing.add(profiles.get(name).name)

    def preparing(self, name: str) -> bool:
        return profiles.get(name).name in self._preparing

    def profile_failure(self, name: str) -> OverContext | None:
        """Why profile ``name``'s own index holds nothing, once it was built: that
        release's reindex fails on a chunk over the model's context (the agent's memory
        search finds nothing, and so does the profile's). None when it has no own index,
        is not built yet, or was built whole."""
        runner = self._runners.get(profiles.get(name).name)
        failure = getattr(runner, "failure", None)
        return failure if isinstance(failure, OverContext) else None

    def prepared_all(self) -> None:
        """No profile index is being built any more (its job ended, perhaps before its turn)."""
        self._preparing.clear()

    def prepare_profile(
        self,
        name: str,
        *,
        progress: profile_common.ProgressFn | None = None,
        cancelled: CancelledFn | None = None,
    ) -> dict[str, Any]:
        """Build profile ``name``'s own index now (a background job), reusing every vector
        it can; returns where its vectors came from (``runner_common.Reuse``, cumulative
        for this engine) and whether anything was built."""
        profile = profiles.get(name)
        self._preparing.add(profile.name)
        try:
            runner = self._runner(profile)
            if runner is None or self._embedder is None:
                return {"built": False}
            built = runner.prepare(
                self._embedder,
                _MainIndexReads(self._index),
                self.embed_lock,
                progress=progress,
                cancelled=cancelled,
            )
            return {"built": built, **runner.reuse.to_json()}
        finally:
            self._preparing.discard(profile.name)

    @property
    def _oc4(self) -> Any:
        """The openclaw-2026.4 profile's runner, once built (tests look into it)."""
        return self._runners.get(settings_mod.OPENCLAW_2026_4)

    def corrupt_copy(self) -> Path | None:
        """The newest damaged index moved aside, if any."""
        return self._index.corrupt_copy()

    # -- embedder ------------------------------------------------------------------
    @property
    def embedder(self) -> embedder_mod.Embedder | None:
        return self._embedder

    @property
    def chunk_params(self) -> indexer.ChunkParams:
        """The chunking this engine's index uses: the one fixed at construction, else the
        one the indexer derives from the embedder's context (``chunk_params_for``)."""
        return self._chunk_params or indexer.chunk_params_for(self._embedder)

    @property
    def fallback_reason(self) -> str | None:
        return self._fallback_reason

    def set_model(self, model: ModelSpec) -> None:
        """Swap the embedder; the next ``sync`` re-embeds, reusing the cache."""
        emb, reason = load_embedder(model)
        self.set_embedder(emb, reason)

    def set_embedder(self, emb: embedder_mod.Embedder | None, reason: str | None = None) -> None:
        with self._index.sync_lock, self.embed_lock:
            self._embedder = emb
            self._fallback_reason = reason if emb is None else None

    @property
    def mode(self) -> hits_mod.Mode:
        return "hybrid" if self._embedder is not None else "fts"

    @property
    def history(self) -> History | None:
        """Every version of every note of this workspace (None: not kept, or its store
        cannot be opened)."""
        return history_shared.for_workspace(self.workspace) if self._keeps_history else None

    def _source(self) -> sync_mod.SyncSource:
        return sync_mod.SyncSource(
            self.workspace,
            self.extra_paths,
            self._embedder,
            self._chunk_params,
            self.embed_lock,
            self.history,
        )

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
        Another process writing makes it wait its turn (``sync.retry_while_busy``).
        """

        def tracked(step: SyncProgress) -> None:
            self._embedding = step.phase == "embed"
            if progress is not None:
                progress(step)

        def once(only: Sequence[str] | None) -> SyncReport:
            try:
                return sync_mod.sync(
                    self._index,
                    self._source(),
                    rebuild=rebuild,
                    paths=only,
                    progress=tracked,
                    cancelled=cancelled,
                    verify=verify,
                )
            finally:
                self._embedding = False

        def degrading() -> SyncReport:
            try:
                return once(paths)
            except errors.EmbedderUnavailable as exc:
                if self._embedder is None:
                    raise
                log.warning("%s; keyword-only search", exc)
                self.set_embedder(None, message_of(exc))
                return once(None)

        try:
            report = sync_mod.retry_while_busy(degrading, cancelled)
        except BaseException:
            self._after_sync(None if rebuild else paths, completed=False)
            raise
        self._after_sync(None if rebuild else paths, completed=True)
        self._last_sync = dt.datetime.now(dt.UTC)
        self._vectors.invalidate()
        return report

    # -- the listing a watcher keeps ------------------------------------------------------
    @property
    def watched(self) -> bool:
        return self._watched

    @watched.setter
    def watched(self, on: bool) -> None:
        """Whether a file watcher reports every change of the workspace to ``sync(paths=)``
        (the app's session while its watcher runs). Then the listing is kept between full
        syncs, updated from the paths each sync was named, and the status, the file
        states and the clock read it instead of listing the workspace and stat'ing every
        note: a save costs what changed. A full ``sync()`` (start, F5, the session's
        periodic scan, a lost watcher event) lists again; so does turning this off."""
        with self._kept_lock:
            self._watched = on
            self._kept, self._kept_generation = None, self._kept_generation + 1

    def listing(self) -> workspace.Scan:
        """The workspace's notes and skipped paths: kept while ``watched``, else listed now."""
        with self._kept_lock:
            kept, generation = self._kept, self._kept_generation
        if kept is not None:
            return kept.scan
        scan = workspace.scan_memory_files(self.workspace, self.extra_paths)
        with self._kept_lock:
            # Kept only if no sync ended meanwhile: its changes may be missing from ``scan``.
            if self._watched and generation == self._kept_generation:
                self._kept = workspace.KeptListing.of(self.workspace, scan)
        return scan

    def listed_rels(self) -> tuple[str, ...]:
        """The notes' workspace-relative paths, in listing order (``listing``)."""
        kept = self._kept_listing()
        if kept is not None:
            return tuple(kept.notes)
        return tuple(workspace.rel_path(self.workspace, p) for p in self.listing().files)

    def _after_sync(self, named: Sequence[str] | None, *, completed: bool) -> None:
        """Bring the kept listing and the clock in line with what a sync was told changed
        (``named``; None: anything may have). The index matches the notes the listing
        names only after a full sync that completed, and as long as every later sync
        did: after a sync that stopped (cancelled, failed) the status stats every note
        again, until the next full one."""
        found = (
            {}
            if named is None
            else {r: workspace.note_at(self.workspace, r, self.extra_paths) for r in named}
        )
        today = dt.date.today()
        with self._kept_lock:
            self._kept_generation += 1
            self._in_step = completed and (self._in_step or named is None)
            kept, clock = self._kept, self._default_clock
            if named is None:
                self._kept, self._default_clock = None, None  # read again on their next use
                return
            if kept is not None:
                self._kept = kept.changed(self.workspace, found)
            if clock is not None and self._clock_dated and self._clock_read_on == today:
                changes = [(rel, note is not None) for rel, note in found.items()]
                self._default_clock = clock_mod.after_changes(clock[0], changes, today=today)
            else:
                self._default_clock = None

    # -- clock -------------------------------------------------------------------------
    def default_clock(self) -> dt.date | None:
        """The workspace's own clock: the day of its newest dated note, else of its
        newest write (``clock.default_clock``); None for a workspace without notes.
        Read again after a full sync; a sync of named paths moves it from those alone
        (``clock.after_changes``) when it can."""
        today = dt.date.today()
        with self._kept_lock:
            cached, generation = self._default_clock, self._kept_generation
        if cached is None or self._clock_read_on != today:
            files = self.listing().files
            dated = clock_mod.newest_dated(self.workspace, files, today=today)
            cached = (
                dated if dated is not None else clock_mod.default_clock(self.workspace, files, today=today),
            )
            with self._kept_lock:
                if generation == self._kept_generation:  # else a sync ended meanwhile: read next time
                    self._default_clock, self._clock_dated, self._clock_read_on = (
                        cached,
                        dated is not None,
                        today,
                    )
        return cached[0]

    def clock(self, now: dt.date | dt.datetime | None = None) -> dt.date | dt.datetime | None:
        """The clock a search runs at: ``now`` when given, else the workspace's own
        (read only then: it lists the workspace after each sync)."""
        return clock_mod.resolve(now, None if now is not None else self.default_clock())

    # -- search ------------------------------------------------------------------------
    def search(
        self,
        query: str,
        settings: settings_mod.SearchSettings,
        *,
        scope: Scope = "all",
        now: dt.date | dt.datetime | None = None,
        filters: filters_mod.SearchFilter = filters_mod.NO_FILTER,
    ) -> SearchResult:
        """``now`` None: the workspace's clock (``default_clock``)."""
        now = self.clock(now)
        found = self.fetch_candidates(query, settings, scope=scope, now=now, filters=filters)
        return SearchResult(pool=found, hits=tuple(ranking.rank(found, settings, now=now)), settings=settings)

    def decay_gap(
        self,
        pool: hits_mod.CandidatePool,
        settings: settings_mod.SearchSettings,
        *,
        scope: Scope = "all",
        now: dt.date | dt.datetime | None = None,
        filters: filters_mod.SearchFilter = filters_mod.NO_FILTER,
        wait_for_model: bool = True,
    ) -> decay_gap_mod.DecayGap | None:
        """For an agent profile's ``pool`` ranked under ``settings``: the notes memdesk's
        own profile finds for the same question that the agent's decay hides
        (``decay_gap.hidden_by_decay``); None for memdesk's profile or no decay."""
        if profiles.get(settings.profile).openclaw_layout is None or not settings.clamped().decay:
            return None
        now = self.clock(now)
        mine = settings_mod.SearchSettings.defaults(settings_mod.MEMDESK)
        found = self.fetch_candidates(
            pool.query,
            mine,
            scope=scope,
            mode=pool.mode,
            now=now,
            filters=filters,
            wait_for_model=wait_for_model,
        )
        hits = ranking.rank(found, mine, now=now)
        return decay_gap_mod.hidden_by_decay(hits, pool, settings, now=now)

    def fetch_candidates(
        self,
        query: str,
        settings: settings_mod.SearchSettings,
        *,
        scope: Scope = "all",
        mode: hits_mod.Mode | None = None,
        wait_for_model: bool = True,
        now: dt.date | dt.datetime | None = None,
        filters: filters_mod.SearchFilter = filters_mod.NO_FILTER,
    ) -> hits_mod.CandidatePool:
        """Run the keyword and vector legs once; ``ranking.rank`` does the rest in memory.

        ``mode`` forces one leg ("fts": keyword only, as with no model; "vector":
        embeddings only, as with no FTS) for evaluation; by default it is the
        engine's mode. With ``wait_for_model=False`` (the GUI) a search while the
        embedding model is still loading runs keyword-only instead of waiting, and so
        does one while a sync embeds notes: the query's own embedding would share the
        cores with the indexer's batches (tens of ms to seconds instead of a few), and
        the vectors are still arriving anyway. The GUI runs the query again after the sync.
        ``now`` is the clock of profiles that rank while fetching (openclaw-2026.9
        applies decay inside its pipeline; None: the workspace's clock).
        ``filters`` keeps only the candidates of the folders and days it names, before
        any ranking; with a filter each leg fetches its widest pool, so a folder's
        notes are not crowded out by the rest of the workspace.
        """
        settings = settings.clamped()
        now = self.clock(now)
        q = query.strip()[: pool.MAX_QUERY_CHARS]
        limit = settings.candidate_pool_size
        if filters.active:
            limit = max(limit, FILTERED_POOL)
        timings: dict[str, float] = {"pool_size": float(limit)}
        mode = self.mode if mode is None or self._embedder is None else mode
        model_loading = not wait_for_model and mode != "fts" and not getattr(self._embedder, "loaded", True)
        if model_loading:
            mode = "fts"
        embedder_busy = not wait_for_model and mode != "fts" and self.embedder_busy
        if not wait_for_model and mode != "fts" and profiles.get(settings.profile).name in self._preparing:
            embedder_busy = True  # its own index is being embedded: keyword-only meanwhile
        if embedder_busy:
            mode = "fts"
        if not q:
            return hits_mod.CandidatePool(
                query=q, mode=mode, profile=settings.profile, candidates=(), timings_ms=timings
            )
        notice = self._index_notes_after_damage() if self._index.damaged_at_open else None
        with self._index.read_lock:
            try:
                legs = pool.Legs(
                    store=self._index.reader(),
                    workspace=self.workspace,
                    embedder=self._embedder,
                    vectors=self._vectors,
                    generation=self._index.generation,
                    on_embedder_failed=self._embedder_failed,
                )
                profile = profiles.get(settings.profile)
                cands = profile.fetch(
                    profiles.FetchRequest(
                        legs=legs,
                        query=q,
                        limit=limit,
                        scope=scope,
                        mode=mode,
                        timings=timings,
                        embed_lock=self.embed_lock,
                        now=now,
                        options=self.memdesk_options,
                        runner=self._runner(profile),
                    )
                )
            except errors.IndexCorrupt as exc:
                # Never an empty answer that looks like "no matches": say so, and let the
                # next sync rebuild the index.
                self._index.damage = str(exc)
                log.warning("index damaged, found during a search: %s", exc)
                raise errors.IndexCorrupt(
                    f"the index is damaged ({exc}); it is being rebuilt from the notes"
                ) from exc
        if filters.active:
            cands = filters.apply(cands, self.workspace)
        return hits_mod.CandidatePool(
            query=q,
            mode=mode,
            profile=settings.profile,
            candidates=tuple(cands),
            query_terms=legs.keyword_terms,
            keyword_asked=legs.keyword_asked,
            timings_ms=timings,
            model_loading=model_loading,
            embedder_busy=embedder_busy,
            notice=notice or legs.notice,
            index_failed=legs.index_failed,
        )

    @property
    def embedder_busy(self) -> bool:
        """True while a sync is in its embedding phase (keyword index committed, vectors coming)."""
        return self._embedding

    def _index_notes_after_damage(self) -> str | None:
        """The index was found damaged at open and a fresh, empty one took its place:
        index the notes' text into it now, keyword index first (vectors follow with the
        next sync), so this search answers from the notes instead of "no matches".

        Returns the one line to show with the results. When a sync is already running
        (the GUI's, at start) it does the same work: the search does not wait for it.
        """
        reason = self._index.damaged_at_open
        if reason is None or not self._index.sync_lock.acquire(blocking=False):
            return (
                f"the index was damaged ({reason}); it is being rebuilt from the notes, "
                "so results may be incomplete"
                if reason
                else None
            )
        try:
            keyword_in = threading.Event()

            def progress(step: SyncProgress) -> None:
                if step.phase == "keyword":
                    keyword_in.set()

            # Cancelled once the keyword index is in: embedding waits for the next sync.
            with contextlib.suppress(errors.Cancelled):
                self.sync(progress=progress, cancelled=keyword_in.is_set)
        finally:
            self._index.sync_lock.release()
        if self._embedder is not None:
            return (
                f"the index was damaged ({reason}); its keyword index was rebuilt from the notes, "
                "vectors follow with the next sync"
            )
        return f"the index was damaged ({reason}) and rebuilt from the notes"

    def _embedder_failed(self, exc: errors.EmbedderUnavailable) -> None:
        log.warning("%s; keyword-only search", exc)
        # Plain assignments, not set_embedder: its sync lock could be held by a
        # rebuild waiting for the read lock this search holds.
        self._fallback_reason = message_of(exc)
        self._embedder = None

    # -- status ---------------------------------------------------------------------------
    def status(self, *, verify: bool = False) -> IndexStatus:
        """Counts, mode and health; ``verify`` also reads every page of the index."""
        return read_status(
            self._index,
            self.workspace,
            self.extra_paths,
            self._embedder,
            self._fallback_reason,
            self._last_sync,
            verify=verify,
            kept=self._kept_listing(),
        )

    def _kept_listing(self) -> workspace.KeptListing | None:
        """The kept listing when the status may trust it (``watched``, and the index in
        step with it: ``_after_sync``); None: list and stat."""
        if not (self._watched and self._in_step):
            return None
        self.listing()
        return self._kept

    def file_states(self) -> dict[str, tuple[str, str]]:
        """rel path -> ("indexed" | "pending" | "failed", reason) for every listed file."""
        return file_states(self._index, self.workspace, self.extra_paths, kept=self._kept_listing())

    def read_note(self, rel: str) -> str:
        return workspace.read_note(workspace.resolve_note(self.workspace, rel, self.extra_paths))
