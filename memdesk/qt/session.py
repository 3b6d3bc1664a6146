"""One open workspace as the GUI sees it: engine, reader thread, sync jobs, watcher, model build.

``Session`` is Qt glue without widgets. It turns the core's blocking calls into
signals: searches run on the reader thread (request ids; stale answers dropped),
index syncs run one at a time on worker threads (later requests are merged and
queued) below the GUI thread's CPU priority, and slider moves re-rank the cached
candidate pool right here on the GUI thread, because ``ranking.rank`` is pure and
takes microseconds. A session opened with its window can hold its model load and
first sync back until the window has painted its first frame.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import gc
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from memdesk.core import engine as engine_mod
from memdesk.core import errors
from memdesk.core.search import decay_gap as decay_gap_mod
from memdesk.core.search import filters as filters_mod
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import profiles, ranking
from memdesk.core.search import settings as settings_mod
from memdesk.qt import jobs, workers
from memdesk.qt import watcher as watcher_mod

log = logging.getLogger(__name__)

T = TypeVar("T")

SEARCH_DEBOUNCE_MS = 150
READER_THREAD_NAME = "memdesk-reader"
SYNC_PROGRESS_INTERVAL = 0.05  # seconds between progress ticks the GUI thread handles
# The longest a held session's jobs wait for release_background (a window that never
# paints, minimised at start, must not keep its notes unindexed).
BACKGROUND_HOLD_S = 2.0
_UNSET = object()
# How often the whole workspace is scanned while the app runs. Between scans a save or
# a watcher event syncs only the paths it names, and the status and tree read the
# listing the engine keeps from them (``Engine.watched``); this scan catches a change
# no event reported (a watcher that could not start, an unwatched network share). At
# 20,000 notes a scan with nothing changed is ~0.3 s of CPU (docs/performance.md).
FULL_SCAN_INTERVAL_MS = 5 * 60_000
# Whether the first model load's modules (llama.cpp's binding and what it imports,
# ~10k objects that live as long as the process) were frozen out of the cyclic
# collector, as app.build_window does with the startup objects: they added ~18 ms to
# every full pass, which holds the GIL and so the window. Once per process.
_model_modules_frozen = False


def _canonical(profile: str) -> str:
    try:
        return profiles.get(profile).name
    except ValueError:
        return profile


@dataclasses.dataclass(frozen=True)
class Results:
    """What the results table shows; ``reranked`` is True when no query ran for it."""

    query: str
    hits: tuple[hits_mod.Hit, ...]
    pool: hits_mod.CandidatePool | None
    settings: settings_mod.SearchSettings
    reranked: bool
    seconds: float = 0.0
    clock: dt.date | dt.datetime | None = None  # the day recency and decay counted from
    # An agent profile: the notes memdesk finds that its decay hides (None: not asked).
    decay_gap: decay_gap_mod.DecayGap | None = None


class Session(QObject):
    """Owns an ``Engine`` and every thread that touches it.

    Signals:
        results_changed(object): a ``Results`` for the current query (also empty ones).
        search_failed(object): the exception a search raised.
        sync_started(): an index job began.
        sync_progress(object): ``engine.SyncProgress`` (throttled).
        sync_finished(object): the ``engine.SyncReport``.
        sync_failed(object): the exception (``errors.Cancelled`` on cancel).
        idle_changed(bool): True when no sync is running or queued.
        snapshot_changed(object): a ``workers.WorkspaceSnapshot`` for tree and status bar.
        files_changed(list): workspace-relative paths the watcher saw change on disk.
        clock_changed(object): the search clock (a ``datetime.date``; None while unknown)
            moved: the user set a day, or the workspace's newest dated note changed.
        model_build_progress(str), model_build_finished(object), model_build_failed(object):
            the background build of the default embedding model.
        model_loading_changed(bool): True while the embedding model loads in the background
            (searches are keyword-only meanwhile).
        keyword_ready(): a sync committed every changed file's keyword index (vectors follow).
        profile_index_progress(str, int, int): an OpenClaw profile's own index is being
            built in the background (profile name, texts with a vector, texts in all).
        profile_index_finished(str): that profile's index is built (or its job ended).
    """

    results_changed = Signal(object)
    search_failed = Signal(object)
    sync_started = Signal()
    sync_progress = Signal(object)
    sync_finished = Signal(object)
    sync_failed = Signal(object)
    idle_changed = Signal(bool)
    snapshot_changed = Signal(object)
    files_changed = Signal(list)
    model_build_progress = Signal(str)
    model_build_finished = Signal(object)
    model_build_failed = Signal(object)
    model_loading_changed = Signal(bool)
    keyword_ready = Signal()
    clock_changed = Signal(object)
    profile_index_progress = Signal(str, int, int)
    profile_index_finished = Signal(str)

    # Internal: cross-thread requests to the reader worker (queued connections).
    _search_requested = Signal(object)
    _snapshot_requested = Signal(int)

    def __init__(
        self,
        engine: engine_mod.Engine,
        *,
        settings: settings_mod.SearchSettings | None = None,
        scope: engine_mod.Scope = "all",
        watch: bool = True,
        hold_background: bool = False,
        full_scan_ms: int = FULL_SCAN_INTERVAL_MS,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._engine = engine
        # Set once the jobs may start their work. A held session (``hold_background``)
        # starts them as usual (is_syncing, is_loading_model) but they wait for
        # ``release_background``, which the window calls after its first frame: drawn
        # beside the model load's imports and the first sync's file scan, that frame
        # waited for the GIL and a core: 150-280 ms in quiet runs, 50-135 ms without them.
        self._background_released = threading.Event()
        if not hold_background:
            self._background_released.set()
        self._settings = settings or settings_mod.SearchSettings()
        self._scope: engine_mod.Scope = scope
        self._query = ""
        self._searches = jobs.RequestGate()
        self._snapshots = jobs.RequestGate()
        self._pool: hits_mod.CandidatePool | None = None
        self._pool_request: workers.SearchRequest | None = None
        self._pool_clock: dt.date | dt.datetime | None = None  # the clock the pool was fetched at
        self._memdesk_hits: tuple[hits_mod.Hit, ...] | None = None  # for the decay line
        # The day the user set (None: follow the workspace's newest dated note) and the
        # workspace's own clock as the last status read found it.
        self._clock_override: dt.date | None = None
        self._default_clock: dt.date | None = None
        self._filters = filters_mod.NO_FILTER
        self._results: Results | None = None
        self.fetch_count = 0  # searches sent to SQLite/embedder (tests assert re-ranks add none)
        self.snapshot: workers.WorkspaceSnapshot | None = None

        self._reader_thread = jobs.WorkerThread(READER_THREAD_NAME, self)
        self._reader = workers.ReaderWorker(engine, rank=ranking.rank, searches=self._searches)
        self._reader_thread.host(self._reader)
        self._search_requested.connect(self._reader.search)
        self._snapshot_requested.connect(self._reader.snapshot)
        self._reader.searched.connect(self._on_reader_searched)
        self._reader.snapshot_ready.connect(self._on_reader_snapshot_ready)
        self._reader_thread.start()

        self._in_flight: workers.SearchRequest | None = None  # the newest search, until answered
        self._debounce = QTimer(self)
        self._debounce.setObjectName("search-debounce-timer")
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DEBOUNCE_MS)
        self._debounce.timeout.connect(self._on_debounce_timeout)

        self._sync_job: jobs.Job[engine_mod.SyncReport] | None = None
        self._pending_full = False
        self._pending_rebuild = False
        self._pending_paths: set[str] = set()
        self._pending_model: Any = _UNSET
        self._build_job: jobs.Job[Path] | None = None
        self._load_job: jobs.Job[None] | None = None
        # The OpenClaw profiles' own indexes, built after the main index completes.
        self._profile_job: jobs.Job[None] | None = None
        self._profile_pending = False

        self._watcher: watcher_mod.WatchBridge | None = None
        if watch:
            self._watcher = watcher_mod.WatchBridge(engine.workspace, self)
            self._watcher.paths_changed.connect(self._on_watcher_paths_changed)
            self._watcher.events_lost.connect(self.request_sync)
            self._watcher.start()
            # Every change now reaches a sync by name: the engine keeps its listing.
            engine.watched = self._watcher.watching
        self._full_scan = QTimer(self)
        self._full_scan.setObjectName("full-scan-timer")
        self._full_scan.setInterval(full_scan_ms)
        self._full_scan.timeout.connect(self._on_full_scan_timeout)
        self._full_scan.start()
        self._closed = False
        # The reader never waits for a lazy model (keyword-only meanwhile): load it now.
        self.load_model()

    # properties ----------------------------------------------------------------------
    @property
    def engine(self) -> engine_mod.Engine:
        return self._engine

    @property
    def workspace(self) -> Path:
        return self._engine.workspace

    @property
    def settings(self) -> settings_mod.SearchSettings:
        return self._settings

    @property
    def scope(self) -> engine_mod.Scope:
        return self._scope

    @property
    def query(self) -> str:
        return self._query

    @property
    def clock(self) -> dt.date | None:
        """The day searches are measured from: the one the user set, else the
        workspace's newest dated note (None until the first status read)."""
        return self._clock_override or self._default_clock

    @property
    def clock_override(self) -> dt.date | None:
        return self._clock_override

    @property
    def default_clock(self) -> dt.date | None:
        return self._default_clock

    @property
    def filters(self) -> filters_mod.SearchFilter:
        return self._filters

    def set_clock(self, day: dt.date | None) -> None:
        """Measure recency, decay and relative dates from ``day`` (None: follow the
        workspace's newest dated note); the current query runs again at once."""
        if day == self._clock_override:
            return
        before = self.clock
        self._clock_override = day
        if self.clock != before:
            self.clock_changed.emit(self.clock)
        # Some profiles decay while fetching (openclaw-2026.9): fetch again, not re-rank.
        self.refresh_search()

    def set_filters(self, filters: filters_mod.SearchFilter) -> None:
        """Keep only the folders and days ``filters`` names; the query runs again."""
        if filters != self._filters:
            self._filters = filters
            self.refresh_search()

    @property
    def results(self) -> Results | None:
        return self._results

    @property
    def reader_thread(self) -> jobs.WorkerThread:
        """The thread that serves searches and status reads (the read connection's);
        other short reads of the index (the tuning lab's pools) are hosted there too."""
        return self._reader_thread

    @property
    def is_syncing(self) -> bool:
        return self._sync_job is not None

    @property
    def is_indexing_profiles(self) -> bool:
        """True while an OpenClaw profile's own index is built in the background."""
        return self._profile_job is not None

    @property
    def is_building_model(self) -> bool:
        return self._build_job is not None

    @property
    def search_pending(self) -> bool:
        """True while a query is debounced or in flight (its results not shown yet)."""
        return self._debounce.isActive() or (
            bool(self._query.strip()) and (self._results is None or self._results.query != self._query)
        )

    # searching -----------------------------------------------------------------------
    def set_query(self, text: str, *, immediate: bool = False) -> None:
        in_flight = self._in_flight
        if (
            in_flight is not None
            and text == self._query == in_flight.query
            and in_flight.settings == self._settings
            and in_flight.scope == self._scope
            and in_flight.now == self._clock_override
            and in_flight.filters == self._filters
        ):
            # The same search is already running (Enter pressed again, the same text
            # set again): its answer is the one a new request would give. Asking anew
            # would drop it as stale, and a search slower than the repeats would then
            # never be shown (the startup benchmark saw 40 s without results so).
            self._debounce.stop()
            return
        self._query = text
        if immediate:
            self._debounce.stop()
            self._fetch()
        else:
            self._debounce.start()

    def set_scope(self, scope: engine_mod.Scope) -> None:
        if scope != self._scope:
            self._scope = scope
            self.refresh_search()

    def set_settings(self, settings: settings_mod.SearchSettings) -> None:
        """Re-rank the cached pool if it still covers ``settings``; else query again."""
        switched = settings.profile != self._settings.profile
        self._settings = settings
        if switched and self._sync_job is None:
            self.index_profiles()  # the newly chosen profile's own index, if it has one
        pool = self._pool
        if (
            pool is not None
            and self._pool_request is not None
            and self._pool_request.query == self._query
            and self._pool_request.scope == self._scope
            and pool.profile == settings.profile
            and ranking.pool_satisfies(pool, settings)
        ):
            hits = tuple(ranking.rank(pool, settings, now=self._pool_clock))
            self._publish(
                Results(
                    self._query,
                    hits,
                    pool,
                    settings,
                    reranked=True,
                    clock=self._pool_clock,
                    decay_gap=self._gap(pool, settings),
                )
            )
        else:
            self.refresh_search()

    def refresh_search(self) -> None:
        """Run the current query again now (index changed, scope changed...)."""
        self._debounce.stop()
        self._fetch()

    @Slot()
    def _on_debounce_timeout(self) -> None:
        self._fetch()

    def _fetch(self) -> None:
        if self._closed:
            return
        request_id = self._searches.issue()  # answers to earlier queries are dropped now
        self._in_flight = None
        query = self._query
        if not query.strip():
            self._pool = None
            self._pool_request = None
            self._publish(Results(query, (), None, self._settings, reranked=False))
            return
        request = workers.SearchRequest(
            request_id, query, self._settings, self._scope, self._clock_override, self._filters
        )
        self._in_flight = request
        self.fetch_count += 1
        self._search_requested.emit(request)

    @Slot(object)
    def _on_reader_searched(self, response: workers.SearchResponse) -> None:
        if not self._searches.is_current(response.request_id):
            return  # stale: the user typed or tuned on since this was asked
        self._in_flight = None
        if response.error is not None:
            self._pool = None
            self._pool_request = None
            self.search_failed.emit(response.error)
            self._publish(
                Results(response.request.query, (), None, response.request.settings, reranked=False)
            )
            if isinstance(response.error, errors.IndexCorrupt):
                # The engine noted the damage; this sync rebuilds the index, and the
                # query runs again when it is done.
                self.request_sync()
            return
        self._pool = response.pool
        self._pool_request = response.request
        self._pool_clock = response.clock
        self._memdesk_hits = response.memdesk_hits
        hits = response.hits
        if response.pool is not None and response.request.settings != self._settings:
            # Sliders moved while the query ran: rank the fresh pool with the newest settings.
            hits = tuple(ranking.rank(response.pool, self._settings, now=response.clock))
        self._publish(
            Results(
                response.request.query,
                hits,
                response.pool,
                self._settings,
                reranked=False,
                seconds=response.seconds,
                clock=response.clock,
                decay_gap=self._gap(response.pool, self._settings),
            )
        )

    def _gap(
        self, pool: hits_mod.CandidatePool | None, settings: settings_mod.SearchSettings
    ) -> decay_gap_mod.DecayGap | None:
        """The decay line's count for an agent profile's ranking of ``pool``."""
        if pool is None or self._memdesk_hits is None or pool.profile != settings.profile:
            return None
        return decay_gap_mod.hidden_by_decay(self._memdesk_hits, pool, settings, now=self._pool_clock)

    def _publish(self, results: Results) -> None:
        self._results = results
        self.results_changed.emit(results)

    # workspace snapshot --------------------------------------------------------------
    def request_snapshot(self) -> None:
        self._snapshot_requested.emit(self._snapshots.issue())

    @Slot(object)
    def _on_reader_snapshot_ready(self, snapshot: workers.WorkspaceSnapshot) -> None:
        if not self._snapshots.is_current(snapshot.request_id):
            return
        self.snapshot = snapshot
        self.snapshot_changed.emit(snapshot)
        if snapshot.error is None and snapshot.default_clock != self._default_clock:
            before = self.clock
            self._default_clock = snapshot.default_clock
            if self.clock != before:
                self.clock_changed.emit(self.clock)

    # background work -----------------------------------------------------------------
    @property
    def background_held(self) -> bool:
        """True while the jobs of a held session wait for ``release_background``."""
        return not self._background_released.is_set()

    def release_background(self) -> None:
        """Let a held session's jobs start their work (idempotent; any thread)."""
        self._background_released.set()

    def _when_released(self, fn: Callable[[jobs.JobContext], T]) -> Callable[[jobs.JobContext], T]:
        released = self._background_released

        def run(context: jobs.JobContext) -> T:
            released.wait(BACKGROUND_HOLD_S)
            return fn(context)

        return run

    # indexing ------------------------------------------------------------------------
    def request_sync(self, paths: list[str] | None = None, *, rebuild: bool = False) -> None:
        """Index ``paths`` (None = the whole workspace); merged into a queued job if busy."""
        if paths is None:
            self._pending_full = True
        else:
            self._pending_paths.update(paths)
        self._pending_rebuild = self._pending_rebuild or rebuild
        if self._sync_job is None:
            self._start_next_sync()

    def set_model(self, model: Path | str | None) -> None:
        """Swap the embedder on the sync thread, then re-embed (cache reused)."""
        self._pending_model = model
        self._pending_full = True
        if self._sync_job is None:
            self._start_next_sync()

    def cancel_sync(self) -> None:
        if self._sync_job is not None:
            self._sync_job.cancel()

    def _start_next_sync(self) -> None:
        if self._closed:
            return
        if not (self._pending_full or self._pending_paths or self._pending_model is not _UNSET):
            self.idle_changed.emit(True)
            self.index_profiles()  # the main index is complete: the profiles' indexes next
            return
        paths = None if self._pending_full else sorted(self._pending_paths)
        model = self._pending_model
        if self._profile_job is not None:
            # The notes changed: the profile indexes are built again after this sync.
            self._profile_job.cancel()
            self._profile_pending = True
        job = jobs.Job(
            "memdesk-sync",
            self._when_released(
                workers.sync_job(
                    self._engine,
                    paths=paths,
                    rebuild=self._pending_rebuild,
                    model=None if model is _UNSET else model,
                    set_model=model is not _UNSET,
                )
            ),
            progress_interval=SYNC_PROGRESS_INTERVAL,
            quiet=(),
            background=True,
        )
        self._pending_full = False
        self._pending_rebuild = False
        self._pending_paths = set()
        self._pending_model = _UNSET
        job.progress.connect(self._on_sync_job_progress)
        job.finished.connect(self._on_sync_job_finished)
        self._sync_job = job
        job.start()
        self.idle_changed.emit(False)
        self.sync_started.emit()

    @Slot(object)
    def _on_sync_job_progress(self, progress: engine_mod.SyncProgress) -> None:
        self.sync_progress.emit(progress)
        if progress.phase == "keyword" and not self._closed:
            # Every changed note is keyword-searchable now; its vectors come next.
            self.keyword_ready.emit()
            self.request_snapshot()
            if self._query.strip():
                self.refresh_search()

    @Slot(object)
    def _on_sync_job_finished(self, outcome: jobs.JobOutcome[engine_mod.SyncReport]) -> None:
        self._sync_job = None
        if outcome.value is not None:
            self.sync_finished.emit(outcome.value)
        elif outcome.error is not None:
            self.sync_failed.emit(outcome.error)
        if self._closed:
            return
        self.request_snapshot()
        # The index changed under the query: show fresh results without retyping.
        if self._query.strip():
            self.refresh_search()
        self.load_model()  # a model swapped in by the sync may not have needed loading yet
        self._start_next_sync()

    @Slot()
    def _on_full_scan_timeout(self) -> None:
        if not self._pending_full:
            self.request_sync()

    @Slot(list)
    def _on_watcher_paths_changed(self, paths: list[str]) -> None:
        notes = [p for p in paths if not p.endswith("/")]
        if notes:
            self.files_changed.emit(notes)
        # A folder moved or deleted: which notes went with it is only known by a full scan.
        self.request_sync(None if len(notes) < len(paths) else notes)

    # the OpenClaw profiles' own indexes ----------------------------------------------
    def index_profiles(self) -> None:
        """Build, in the background and below the window's priority, the own index of the
        OpenClaw profiles worth it (``Engine.profiles_to_prepare``: the one in use and the
        user's agent's release), so their first search does not embed the workspace.
        Runs after the main index: a sync starting meanwhile cancels it, and it comes
        back when that sync is done."""
        if self._closed or self._sync_job is not None:
            return
        if self._profile_job is not None:
            self._profile_pending = True  # again once this one ends (another profile chosen)
            return
        engine = self._engine
        selected = self._settings.profile
        names = engine.profiles_to_prepare(selected)
        if not names:
            return  # no OpenClaw profile in use, no OpenClaw installed: nothing to build
        with contextlib.suppress(ValueError):
            if settings_mod.is_openclaw(selected):
                engine.will_prepare(selected)  # its searches go keyword-only meanwhile

        def run(context: jobs.JobContext) -> None:
            for name in names:
                if context.cancelled():
                    raise errors.Cancelled("indexing for the OpenClaw profiles cancelled")

                def progress(done: int, total: int, name: str = name) -> None:
                    context.report((name, done, total), force=done >= total)

                engine.prepare_profile(name, progress=progress, cancelled=context.cancelled)
                context.report((name, -1, -1), force=True)  # this profile is done

        job: jobs.Job[None] = jobs.Job(
            "memdesk-profile-index",
            self._when_released(run),
            progress_interval=0.2,
            quiet=(),
            background=True,
        )
        job.progress.connect(self._on_profile_job_progress)
        job.finished.connect(self._on_profile_job_finished)
        self._profile_job = job
        self._profile_pending = False
        job.start()

    @Slot(object)
    def _on_profile_job_progress(self, payload: object) -> None:
        assert isinstance(payload, tuple)
        name, done, total = str(payload[0]), int(payload[1]), int(payload[2])
        if done < 0:
            self.profile_index_finished.emit(str(name))
            if not self._closed and self._query.strip() and _canonical(self._settings.profile) == name:
                self.refresh_search()  # its results were keyword-only while it was built
        else:
            self.profile_index_progress.emit(str(name), int(done), int(total))

    @Slot(object)
    def _on_profile_job_finished(self, outcome: jobs.JobOutcome[None]) -> None:
        self._profile_job = None
        self._engine.prepared_all()  # a job cancelled before a profile's turn leaves none marked
        if outcome.error is not None and not outcome.cancelled:
            log.warning("an OpenClaw profile's index could not be built: %s", outcome.error)
        self.profile_index_finished.emit("")
        if self._closed:
            return
        self.request_snapshot()  # the status line says what the index is doing again
        if self._profile_pending:
            self.index_profiles()

    # model load ----------------------------------------------------------------------
    @property
    def is_loading_model(self) -> bool:
        return self._load_job is not None

    def load_model(self) -> None:
        """Load a lazy embedder's weights on a worker thread (no-op when loaded or none)."""
        embedder = self._engine.embedder
        load = getattr(embedder, "load", None)
        if self._load_job is not None or load is None or getattr(embedder, "loaded", True):
            return

        def run(_context: jobs.JobContext) -> None:
            load()

        job: jobs.Job[None] = jobs.Job("memdesk-model-load", self._when_released(run), quiet=(Exception,))
        job.finished.connect(self._on_load_job_finished)
        self._load_job = job
        job.start()
        self.model_loading_changed.emit(True)

    @Slot(object)
    def _on_load_job_finished(self, outcome: jobs.JobOutcome[None]) -> None:
        self._load_job = None
        if outcome.error is not None:
            # The engine stays keyword-only; the status bar says why.
            log.warning("the embedding model could not be loaded: %s", outcome.error)
        if self._closed:
            return
        global _model_modules_frozen
        if outcome.ok and not _model_modules_frozen:
            _model_modules_frozen = True
            gc.freeze()
        # Results shown meanwhile were keyword-only: run the query again, now hybrid.
        if outcome.ok and self._query.strip():
            self.refresh_search()
        self.model_loading_changed.emit(False)
        self.request_snapshot()

    # model build ---------------------------------------------------------------------
    def build_model(self, build: Callable[[Callable[[Any], None]], Path]) -> None:
        """Run ``build(progress)`` on a worker thread; on success switch to that model."""
        if self._build_job is not None:
            return

        def run(context: jobs.JobContext) -> Path:
            return build(lambda message: context.report(str(message), force=True))

        job: jobs.Job[Path] = jobs.Job("memdesk-model-build", run, quiet=(), background=True)
        job.progress.connect(self._on_build_job_progress)
        job.finished.connect(self._on_build_job_finished)
        self._build_job = job
        job.start()

    @Slot(object)
    def _on_build_job_progress(self, message: object) -> None:
        self.model_build_progress.emit(str(message))

    @Slot(object)
    def _on_build_job_finished(self, outcome: jobs.JobOutcome[Path]) -> None:
        self._build_job = None
        if outcome.value is not None:
            self.model_build_finished.emit(outcome.value)
            self.set_model(outcome.value)
        elif outcome.error is not None:
            self.model_build_failed.emit(outcome.error)

    # shutdown ------------------------------------------------------------------------
    def close(self) -> None:
        """Stop watcher and threads (cancelling a running sync), then close the engine."""
        if self._closed:
            return
        self._closed = True
        self._background_released.set()  # a held job would only delay the wait below
        self._debounce.stop()
        self._full_scan.stop()
        if self._watcher is not None:
            self._watcher.stop()
        self._engine.watched = False
        for job in (self._sync_job, self._build_job, self._load_job, self._profile_job):
            if job is not None:
                job.cancel()
                job.wait()
        self._reader_thread.stop()
        self._engine.close()
