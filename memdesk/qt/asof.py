"""Searching memory as it was on a day, off the GUI thread (``core/asof``).

``AsOfSearch`` builds a day's snapshot as a job (history read, notes written, index
synced: progress reported, cancellable), then answers the searches asked of it, one
job at a time, the newest waiting request replacing older ones. A slider move
re-ranks the snapshot's cached pool here on the GUI thread, as the session does.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal, Slot

from memdesk.core import asof, errors
from memdesk.core import engine as engine_mod
from memdesk.core.search import ranking
from memdesk.core.search import settings as settings_mod
from memdesk.qt import jobs
from memdesk.qt import session as session_mod

log = logging.getLogger(__name__)

PROGRESS_INTERVAL = 0.1


@dataclasses.dataclass(frozen=True)
class Request:
    query: str
    settings: settings_mod.SearchSettings
    scope: engine_mod.Scope


def _build(engine: engine_mod.Engine, day: dt.date) -> Callable[[jobs.JobContext], asof.Snapshot]:
    def run(context: jobs.JobContext) -> asof.Snapshot:
        from memdesk.core.history import open_history

        history = open_history(engine.workspace)
        try:
            return asof.open_snapshot(
                engine,
                history,
                day,
                progress=lambda step: context.report(step, force=step.phase != "embed"),
                cancelled=context.cancelled,
            )
        finally:
            history.close()

    return run


class AsOfSearch(QObject):
    """One day's snapshot of a session's workspace and the searches run in it.

    Signals:
        started(object): the day (``datetime.date``) whose snapshot is being built.
        progress(object): ``engine.SyncProgress`` of its index.
        ready(object): the ``asof.Snapshot``, indexed.
        failed(object): the exception (``errors.Cancelled`` when cancelled).
        results(object): ``(session.Results, asof.AsOfResult | None)`` for the request asked.
        ended(): back to now (the snapshot closed).
    """

    started = Signal(object)
    progress = Signal(object)
    ready = Signal(object)
    failed = Signal(object)
    results = Signal(object)
    ended = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.snapshot: asof.Snapshot | None = None
        self.day: dt.date | None = None
        self._build_job: jobs.Job[asof.Snapshot] | None = None
        self._search_job: jobs.Job[tuple[Request, asof.AsOfResult, float]] | None = None
        self._waiting: Request | None = None
        self._last: tuple[Request, asof.AsOfResult] | None = None
        self._closing: list[asof.Snapshot] = []
        self._jobs: set[jobs.Job[asof.Snapshot]] = set()  # builds until they end (cancelled ones too)

    @property
    def active(self) -> bool:
        """True from the day's choice until back to now (building included)."""
        return self.day is not None

    @property
    def building(self) -> bool:
        return self._build_job is not None

    def start(self, engine: engine_mod.Engine, day: dt.date) -> None:
        """Build the snapshot of ``engine``'s workspace on ``day`` (replacing any other)."""
        self.back_to_now(quiet=True)
        self.day = day
        job: jobs.Job[asof.Snapshot] = jobs.Job(
            "memdesk-asof-build",
            _build(engine, day),
            progress_interval=PROGRESS_INTERVAL,
            background=True,
        )
        job.progress.connect(self._on_build_progress)
        job.finished.connect(self._on_build_finished)
        self._build_job = job
        self._jobs.add(job)
        job.start()
        self.started.emit(day)

    @Slot(object)
    def _on_build_progress(self, step: object) -> None:
        if self.sender() is self._build_job:
            self.progress.emit(step)

    @Slot(object)
    def _on_build_finished(self, outcome: jobs.JobOutcome[asof.Snapshot]) -> None:
        job = self.sender()
        self._jobs.discard(job)  # type: ignore[arg-type]
        if job is not self._build_job:
            if outcome.value is not None:
                outcome.value.close()  # built for a day left meanwhile
            return
        self._build_job = None
        if outcome.value is None:
            self.day = None
            self.failed.emit(outcome.error or errors.Cancelled("cancelled"))
            return
        self.snapshot = outcome.value
        self.ready.emit(self.snapshot)
        if self._waiting is not None:
            self._run_next()

    def search(self, request: Request, *, reranked: bool = False) -> None:
        """Answer ``request`` from the snapshot; ``reranked``: only the settings moved,
        so the snapshot's last pool is ranked again when it covers them."""
        last = self._last
        if reranked and last is not None and self.snapshot is not None:
            old, found = last
            pool = found.result.pool
            if (
                (old.query, old.scope) == (request.query, request.scope)
                and pool.profile == request.settings.profile
                and ranking.pool_satisfies(pool, request.settings)
            ):
                hits = tuple(ranking.rank(pool, request.settings, now=self.snapshot.day))
                result = engine_mod.SearchResult(pool=pool, hits=hits, settings=request.settings)
                # The notes' marks of the last search (no disk reads on the GUI thread).
                known = {h.hit.path: h for h in found.hits}
                marks: list[asof.AsOfHit] = []
                for h in hits:
                    if h.path in known:
                        marks.append(asof.AsOfHit(h, known[h.path].version, known[h.path].changed_since))
                    else:
                        marks.extend(self.snapshot.mark([h]))
                marked = asof.AsOfResult(found.day, result, tuple(marks))
                self._last = (request, marked)
                self._publish(request, marked, reranked=True)
                return
        self._waiting = request
        if self._search_job is None and self.snapshot is not None:
            self._run_next()

    def _run_next(self) -> None:
        request, self._waiting = self._waiting, None
        snap = self.snapshot
        if request is None or snap is None:
            return
        if not request.query.strip():
            self._last = None
            self.results.emit(
                (session_mod.Results(request.query, (), None, request.settings, reranked=False), None)
            )
            return

        def run(_context: jobs.JobContext) -> tuple[Request, asof.AsOfResult, float]:
            started = time.perf_counter()
            found = snap.search(request.query, request.settings, scope=request.scope)
            return request, found, time.perf_counter() - started

        job: jobs.Job[tuple[Request, asof.AsOfResult, float]] = jobs.Job("memdesk-asof-search", run)
        job.finished.connect(self._on_search_finished)
        self._search_job = job
        job.start()

    @Slot(object)
    def _on_search_finished(self, outcome: jobs.JobOutcome[tuple[Request, asof.AsOfResult, float]]) -> None:
        self._search_job = None
        self._close_retired()
        if outcome.value is not None and self.snapshot is not None:
            request, found, seconds = outcome.value
            if found.day == self.snapshot.day and self._waiting is None:
                self._last = (request, found)
                self._publish(request, found, seconds=seconds)
        elif outcome.error is not None and self.snapshot is not None and self._waiting is None:
            self.failed.emit(outcome.error)
        if self._waiting is not None:
            self._run_next()

    def _publish(
        self, request: Request, found: asof.AsOfResult, *, reranked: bool = False, seconds: float = 0.0
    ) -> None:
        result = found.result
        shown = session_mod.Results(
            request.query, result.hits, result.pool, request.settings, reranked=reranked, seconds=seconds
        )
        self.results.emit((shown, found))

    def back_to_now(self, *, quiet: bool = False) -> None:
        """Leave the snapshot: its build is cancelled, its engine closed once idle."""
        was_active = self.active
        self.day = None
        self._waiting = None
        self._last = None
        if self._build_job is not None:
            self._build_job.cancel()
            self._build_job = None  # its outcome is ignored; a finished snapshot is closed
        if self.snapshot is not None:
            self._closing.append(self.snapshot)
            self.snapshot = None
        self._close_retired()
        if was_active and not quiet:
            self.ended.emit()

    def _close_retired(self) -> None:
        if self._search_job is None:
            for snap in self._closing:
                snap.close()
            self._closing = []

    def close(self) -> None:
        """Stop every job and close the snapshot (the window closes)."""
        search = self._search_job
        self.back_to_now(quiet=True)
        for job in (*self._jobs, search):
            if job is not None:
                job.cancel()
                job.wait()
        self._search_job = None
        self._close_retired()
