"""What the session runs off the GUI thread: the sync job and the reader.

Syncs run as ``jobs.Job``s. Searches are different: they are short and frequent, so
one long-lived ``ReaderWorker`` sits on a ``jobs.WorkerThread`` and serves requests
one at a time, each tagged with an id from a ``jobs.RequestGate`` so that requests
the user has typed past are skipped and their answers dropped. Workers never touch
widgets; they only emit plain values (core dataclasses, exceptions).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal, Slot

from memdesk.core import engine as engine_mod
from memdesk.core import errors
from memdesk.core.search import filters as filters_mod
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import profiles
from memdesk.core.search import settings as settings_mod
from memdesk.qt import jobs

log = logging.getLogger(__name__)


def sync_job(
    engine: engine_mod.Engine,
    *,
    paths: list[str] | None = None,
    rebuild: bool = False,
    model: engine_mod.ModelSpec = None,
    set_model: bool = False,
) -> Callable[[jobs.JobContext], engine_mod.SyncReport]:
    """A ``jobs.Job`` function that brings the index up to date (swapping the embedder
    first when ``set_model``); it reports ``engine.SyncProgress`` and stops between
    files when cancelled."""

    def run(context: jobs.JobContext) -> engine_mod.SyncReport:
        last_phase = ""

        def progress(value: engine_mod.SyncProgress) -> None:
            nonlocal last_phase
            # Throttled by the context; the last tick and each new phase always go through
            # (the session acts on "keyword": every changed note is searchable).
            force = value.phase != last_phase or value.files_done >= value.files_total
            last_phase = value.phase
            context.report(value, force=force)

        if set_model:
            engine.set_model(model)
        return engine.sync(rebuild=rebuild, paths=paths, progress=progress, cancelled=context.cancelled)

    return run


@dataclasses.dataclass(frozen=True)
class SearchRequest:
    """An immutable query built on the GUI thread; ``request_id`` orders them."""

    request_id: int
    query: str
    settings: settings_mod.SearchSettings
    scope: engine_mod.Scope
    # The day the search is measured from (None: the workspace's own clock) and the
    # folders and days it keeps.
    now: dt.date | None = None
    filters: filters_mod.SearchFilter = filters_mod.NO_FILTER


@dataclasses.dataclass(frozen=True)
class SearchResponse:
    request_id: int
    request: SearchRequest
    pool: hits_mod.CandidatePool | None
    hits: tuple[hits_mod.Hit, ...]
    error: BaseException | None = None
    seconds: float = 0.0
    # An agent profile with decay: memdesk's own hits for the same question, which
    # ``decay_gap.hidden_by_decay`` compares with the agent's ranking (empty otherwise).
    memdesk_hits: tuple[hits_mod.Hit, ...] | None = None
    clock: dt.date | dt.datetime | None = None  # the day it was measured from


@dataclasses.dataclass(frozen=True)
class WorkspaceSnapshot:
    """What the tree and the status bar show, read off the GUI thread."""

    request_id: int
    files: tuple[str, ...]  # workspace-relative paths in discovery order
    states: dict[str, tuple[str, str]]
    status: engine_mod.IndexStatus | None
    error: BaseException | None = None
    default_clock: dt.date | None = None  # the workspace's own clock (its newest dated note)


class ReaderWorker(QObject):
    """Serves searches and status reads on one long-lived thread (the read connection).

    Signals:
        searched(object): a ``SearchResponse``.
        snapshot_ready(object): a ``WorkspaceSnapshot``.
    """

    searched = Signal(object)
    snapshot_ready = Signal(object)

    def __init__(
        self,
        engine: engine_mod.Engine,
        *,
        rank: Callable[..., list[hits_mod.Hit]],
        searches: jobs.RequestGate,
    ) -> None:
        super().__init__()
        self._engine = engine
        self._rank = rank
        self._searches = searches

    @Slot(object)
    def search(self, request: SearchRequest) -> None:
        if self._searches.is_stale(request.request_id):
            return  # the user typed on; answering this would only be thrown away
        started = time.perf_counter()
        try:
            now = self._engine.clock(request.now)
            pool = self._engine.fetch_candidates(
                request.query,
                request.settings,
                scope=request.scope,
                wait_for_model=False,
                now=now,
                filters=request.filters,
            )
            hits = tuple(self._rank(pool, request.settings, now=now))
            memdesk_hits = self._memdesk_hits(request, pool, now)
        except Exception as exc:
            if not isinstance(exc, errors.MemdeskError):
                log.exception("search failed for %r", request.query)
            self.searched.emit(SearchResponse(request.request_id, request, None, (), exc))
            return
        self.searched.emit(
            SearchResponse(
                request.request_id,
                request,
                pool,
                hits,
                None,
                time.perf_counter() - started,
                memdesk_hits,
                now,
            )
        )

    def _memdesk_hits(
        self, request: SearchRequest, pool: hits_mod.CandidatePool, now: dt.date | dt.datetime | None
    ) -> tuple[hits_mod.Hit, ...] | None:
        """memdesk's own hits for an agent profile's question (the decay line compares
        them with the agent's), or None when the profile is memdesk's."""
        if profiles.get(request.settings.profile).openclaw_layout is None:
            return None
        mine = settings_mod.SearchSettings.defaults(settings_mod.MEMDESK)
        found = self._engine.fetch_candidates(
            request.query,
            mine,
            scope=request.scope,
            mode=pool.mode,
            wait_for_model=False,
            now=now,
            filters=request.filters,
        )
        return tuple(self._rank(found, mine, now=now))

    @Slot(int)
    def snapshot(self, request_id: int) -> None:
        try:
            # The engine's listing: kept while the session's watcher runs, so a read
            # after a save does not list the workspace again.
            files = self._engine.listed_rels()
            states = self._engine.file_states()
            status = self._engine.status()
            default_clock = self._engine.default_clock()
        except Exception as exc:
            log.exception("status read failed")
            self.snapshot_ready.emit(WorkspaceSnapshot(request_id, (), {}, None, exc))
            return
        self.snapshot_ready.emit(WorkspaceSnapshot(request_id, files, states, status, None, default_clock))
