"""One open workspace as the GUI sees it: engine, reader thread, sync jobs, watcher, model build.

``Session`` is Qt glue without widgets. It turns the core's blocking calls into
signals: searches run on the reader thread (request ids; stale answers dropped),
index syncs run one at a time on worker threads (later requests are merged and
queued), and slider moves re-rank the cached candidate pool right here on the
GUI thread, because ``ranking.rank`` is pure and takes microseconds.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from memdesk.core import engine as engine_mod
from memdesk.core import errors
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import ranking
from memdesk.core.search import settings as settings_mod
from memdesk.qt import watcher as watcher_mod
from memdesk.qt import workers

log = logging.getLogger(__name__)

SEARCH_DEBOUNCE_MS = 150
_UNSET = object()


@dataclasses.dataclass(frozen=True)
class Results:
    """What the results table shows; ``reranked`` is True when no query ran for it."""

    query: str
    hits: tuple[hits_mod.Hit, ...]
    pool: hits_mod.CandidatePool | None
    settings: settings_mod.SearchSettings
    reranked: bool
    seconds: float = 0.0


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
        model_build_progress(str), model_build_finished(object), model_build_failed(object):
            the background build of the default embedding model.
        model_loading_changed(bool): True while the embedding model loads in the background
            (searches are keyword-only meanwhile).
        keyword_ready(): a sync committed every changed file's keyword index (vectors follow).
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
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._engine = engine
        self._settings = settings or settings_mod.SearchSettings()
        self._scope: engine_mod.Scope = scope
        self._query = ""
        self._request_id = 0
        self._snapshot_id = 0
        self._pool: hits_mod.CandidatePool | None = None
        self._pool_request: workers.SearchRequest | None = None
        self._results: Results | None = None
        self.fetch_count = 0  # searches sent to SQLite/embedder (tests assert re-ranks add none)
        self.snapshot: workers.WorkspaceSnapshot | None = None

        self._reader_thread = QThread(self)
        self._reader_thread.setObjectName("memdesk-reader")
        self._reader = workers.ReaderWorker(engine, rank=ranking.rank)
        self._reader.moveToThread(self._reader_thread)
        self._search_requested.connect(self._reader.search)
        self._snapshot_requested.connect(self._reader.snapshot)
        self._reader.searched.connect(self._on_reader_searched)
        self._reader.snapshot_ready.connect(self._on_reader_snapshot_ready)
        self._reader_thread.start()

        self._debounce = QTimer(self)
        self._debounce.setObjectName("search-debounce-timer")
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DEBOUNCE_MS)
        self._debounce.timeout.connect(self._on_debounce_timeout)

        self._sync_thread: QThread | None = None
        self._sync_worker: workers.SyncWorker | None = None
        self._pending_full = False
        self._pending_rebuild = False
        self._pending_paths: set[str] = set()
        self._pending_model: Any = _UNSET
        self._build_thread: QThread | None = None
        self._build_worker: workers.ModelBuildWorker | None = None
        self._load_thread: QThread | None = None
        self._load_worker: workers.ModelLoadWorker | None = None

        self._watcher: watcher_mod.WatchBridge | None = None
        if watch:
            self._watcher = watcher_mod.WatchBridge(engine.workspace, self)
            self._watcher.paths_changed.connect(self._on_watcher_paths_changed)
            self._watcher.start()
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
    def results(self) -> Results | None:
        return self._results

    @property
    def is_syncing(self) -> bool:
        return self._sync_thread is not None

    @property
    def is_building_model(self) -> bool:
        return self._build_thread is not None

    @property
    def search_pending(self) -> bool:
        """True while a query is debounced or in flight (its results not shown yet)."""
        return self._debounce.isActive() or (
            bool(self._query.strip()) and (self._results is None or self._results.query != self._query)
        )

    # searching -----------------------------------------------------------------------
    def set_query(self, text: str, *, immediate: bool = False) -> None:
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
        self._settings = settings
        pool = self._pool
        if (
            pool is not None
            and self._pool_request is not None
            and self._pool_request.query == self._query
            and self._pool_request.scope == self._scope
            and pool.profile == settings.profile
            and ranking.pool_satisfies(pool, settings)
        ):
            hits = tuple(ranking.rank(pool, settings))
            self._publish(Results(self._query, hits, pool, settings, reranked=True))
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
        self._request_id += 1
        query = self._query
        if not query.strip():
            self._pool = None
            self._pool_request = None
            self._publish(Results(query, (), None, self._settings, reranked=False))
            return
        request = workers.SearchRequest(self._request_id, query, self._settings, self._scope)
        self._reader.note_latest(request.request_id)
        self.fetch_count += 1
        self._search_requested.emit(request)

    @Slot(object)
    def _on_reader_searched(self, response: workers.SearchResponse) -> None:
        if response.request_id != self._request_id:
            return  # stale: the user typed or tuned on since this was asked
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
        hits = response.hits
        if response.request.settings != self._settings:
            # Sliders moved while the query ran: rank the fresh pool with the newest settings.
            hits = tuple(ranking.rank(response.pool, self._settings))  # type: ignore[arg-type]
        self._publish(
            Results(
                response.request.query,
                hits,
                response.pool,
                self._settings,
                reranked=False,
                seconds=response.seconds,
            )
        )

    def _publish(self, results: Results) -> None:
        self._results = results
        self.results_changed.emit(results)

    # workspace snapshot --------------------------------------------------------------
    def request_snapshot(self) -> None:
        self._snapshot_id += 1
        self._snapshot_requested.emit(self._snapshot_id)

    @Slot(object)
    def _on_reader_snapshot_ready(self, snapshot: workers.WorkspaceSnapshot) -> None:
        if snapshot.request_id != self._snapshot_id:
            return
        self.snapshot = snapshot
        self.snapshot_changed.emit(snapshot)

    # indexing ------------------------------------------------------------------------
    def request_sync(self, paths: list[str] | None = None, *, rebuild: bool = False) -> None:
        """Index ``paths`` (None = the whole workspace); merged into a queued job if busy."""
        if paths is None:
            self._pending_full = True
        else:
            self._pending_paths.update(paths)
        self._pending_rebuild = self._pending_rebuild or rebuild
        if self._sync_thread is None:
            self._start_next_sync()

    def set_model(self, model: Path | str | None) -> None:
        """Swap the embedder on the sync thread, then re-embed (cache reused)."""
        self._pending_model = model
        self._pending_full = True
        if self._sync_thread is None:
            self._start_next_sync()

    def cancel_sync(self) -> None:
        if self._sync_worker is not None:
            self._sync_worker.cancel()

    def _start_next_sync(self) -> None:
        if self._closed:
            return
        if not (self._pending_full or self._pending_paths or self._pending_model is not _UNSET):
            self.idle_changed.emit(True)
            return
        paths = None if self._pending_full else sorted(self._pending_paths)
        model = self._pending_model
        worker = workers.SyncWorker(
            self._engine,
            paths=paths,
            rebuild=self._pending_rebuild,
            model=None if model is _UNSET else model,
            set_model=model is not _UNSET,
        )
        self._pending_full = False
        self._pending_rebuild = False
        self._pending_paths = set()
        self._pending_model = _UNSET
        worker.progress.connect(self._on_sync_worker_progress)
        worker.finished.connect(self._on_sync_worker_finished)
        worker.failed.connect(self._on_sync_worker_failed)
        self._sync_worker = worker
        self._sync_thread = workers.start_in_thread(
            worker, name="memdesk-sync", on_finished=self._on_sync_thread_finished
        )
        self.idle_changed.emit(False)
        self.sync_started.emit()

    @Slot(object)
    def _on_sync_worker_progress(self, progress: engine_mod.SyncProgress) -> None:
        self.sync_progress.emit(progress)
        if progress.phase == "keyword" and not self._closed:
            # Every changed note is keyword-searchable now; its vectors come next.
            self.keyword_ready.emit()
            self.request_snapshot()
            if self._query.strip():
                self.refresh_search()

    @Slot(object)
    def _on_sync_worker_finished(self, report: engine_mod.SyncReport) -> None:
        self.sync_finished.emit(report)

    @Slot(object)
    def _on_sync_worker_failed(self, exc: BaseException) -> None:
        self.sync_failed.emit(exc)

    @Slot()
    def _on_sync_thread_finished(self) -> None:
        if self._sync_thread is not None:
            workers.release_thread(self._sync_thread)
        self._sync_thread = None
        self._sync_worker = None
        if self._closed:
            return
        self.request_snapshot()
        # The index changed under the query: show fresh results without retyping.
        if self._query.strip():
            self.refresh_search()
        self.load_model()  # a model swapped in by the sync may not have needed loading yet
        self._start_next_sync()

    @Slot(list)
    def _on_watcher_paths_changed(self, paths: list[str]) -> None:
        notes = [p for p in paths if not p.endswith("/")]
        if notes:
            self.files_changed.emit(notes)
        # A folder moved or deleted: which notes went with it is only known by a full scan.
        self.request_sync(None if len(notes) < len(paths) else notes)

    # model load ----------------------------------------------------------------------
    @property
    def is_loading_model(self) -> bool:
        return self._load_thread is not None

    def load_model(self) -> None:
        """Load a lazy embedder's weights on a worker thread (no-op when loaded or none)."""
        embedder = self._engine.embedder
        load = getattr(embedder, "load", None)
        if self._load_thread is not None or load is None or getattr(embedder, "loaded", True):
            return
        worker = workers.ModelLoadWorker(load)
        worker.finished.connect(self._on_load_worker_finished)
        self._load_worker = worker
        self._load_thread = workers.start_in_thread(
            worker, name="memdesk-model-load", on_finished=self._on_load_thread_finished
        )
        self.model_loading_changed.emit(True)

    @Slot()
    def _on_load_worker_finished(self) -> None:
        # Results shown meanwhile were keyword-only: run the query again, now hybrid.
        if self._query.strip() and not self._closed:
            self.refresh_search()

    @Slot()
    def _on_load_thread_finished(self) -> None:
        if self._load_thread is not None:
            workers.release_thread(self._load_thread)
        self._load_thread = None
        self._load_worker = None
        if not self._closed:
            self.model_loading_changed.emit(False)
            self.request_snapshot()

    # model build ---------------------------------------------------------------------
    def build_model(self, build: Callable[[Callable[[Any], None]], Path]) -> None:
        """Run ``build(progress)`` on a worker thread; on success switch to that model."""
        if self._build_thread is not None:
            return
        worker = workers.ModelBuildWorker(build)
        worker.progress.connect(self.model_build_progress)
        worker.finished.connect(self._on_build_worker_finished)
        worker.failed.connect(self.model_build_failed)
        self._build_worker = worker  # without a Python reference the worker would be freed
        self._build_thread = workers.start_in_thread(
            worker, name="memdesk-model-build", on_finished=self._on_build_thread_finished
        )

    @Slot(object)
    def _on_build_worker_finished(self, path: Path) -> None:
        self.model_build_finished.emit(path)
        self.set_model(path)

    @Slot()
    def _on_build_thread_finished(self) -> None:
        if self._build_thread is not None:
            workers.release_thread(self._build_thread)
        self._build_thread = None
        self._build_worker = None

    # shutdown ------------------------------------------------------------------------
    def close(self) -> None:
        """Stop watcher and threads (cancelling a running sync), then close the engine."""
        if self._closed:
            return
        self._closed = True
        self._debounce.stop()
        if self._watcher is not None:
            self._watcher.stop()
        if self._sync_worker is not None:
            self._sync_worker.cancel()
        for thread in (self._sync_thread, self._build_thread, self._load_thread):
            if thread is not None:
                thread.wait()
        self._reader_thread.quit()
        self._reader_thread.wait()
        self._engine.close()
