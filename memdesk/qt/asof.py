"""Searching memory as it was on a day, off the GUI thread (``core/asof``).

``AsOfSearch`` builds a day's snapshot as a job (history read, notes written, index
synced: progress reported, cancellable), then answers the searches asked of it, one
job at a time, the newest waiting request replacing older ones. A slider move
re-ranks the snapshot's cached pool here on the GUI thread, as the session does.

The build ends once the day's notes are keyword-searchable: the chunks that differ
from every text the live index embedded are embedded by a second job meanwhile
(``Snapshot.finish``), the searches answered keyword-only until their vectors are in
(``hybrid`` then, and the last search is asked again).
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
from memdesk.core.asof import search as asof_search
from memdesk.core.history import History, open_history
from memdesk.core.history.version import BASELINE
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


@dataclasses.dataclass(frozen=True)
class Count:
    """How the workspace now differs from a day's snapshot, told honestly.

    ``unseen`` are notes in the workspace now that memdesk's history first kept when it
    first looked at the workspace (its baseline), after the day: they may well have been
    there on the day, so they are not "new since". ``first_seen`` is the earliest day
    the history kept one of them (where its knowledge of them starts)."""

    differences: asof_search.Differences
    unseen: tuple[str, ...] = ()
    first_seen: dt.date | None = None
    # The earliest first version of the notes new since the day: where the history of
    # the workspace starts when the snapshot has no note at all.
    history_start: dt.date | None = None

    @property
    def differ(self) -> int:
        """Notes that differ now, among those the history knew on the day."""
        return self.differences.count - len(self.unseen)


def count(snap: asof.Snapshot, history: History, differences: asof_search.Differences) -> Count:
    """``differences`` (``snap.compare()``) with the notes the history had not seen yet."""
    unseen: list[str] = []
    first: list[dt.date] = []
    start: list[dt.date] = []
    for note in differences.new:
        versions = history.timeline(note, git=True)  # newest first
        if not versions:
            continue
        seen = versions[-1].at.astimezone().date()
        start.append(seen)
        if versions[-1].source == BASELINE:
            unseen.append(note)
            first.append(seen)
    return Count(differences, tuple(unseen), min(first, default=None), min(start, default=None))


def _build(
    engine: engine_mod.Engine, day: dt.date
) -> Callable[[jobs.JobContext], tuple[asof.Snapshot, Count]]:
    def run(context: jobs.JobContext) -> tuple[asof.Snapshot, Count]:
        history = open_history(engine.workspace)
        try:
            snap = asof.open_snapshot(
                engine,
                history,
                day,
                progress=lambda step: context.report(step, force=step.phase != "embed"),
                cancelled=context.cancelled,
                embed=False,  # answer at once; the changed chunks are embedded by ``_finish``
            )
            try:
                return snap, count(snap, history, snap.differences)
            except BaseException:
                snap.close()
                raise
        finally:
            history.close()

    return run


def _finish(snap: asof.Snapshot) -> Callable[[jobs.JobContext], object]:
    def run(context: jobs.JobContext) -> object:
        return snap.finish(
            progress=lambda step: context.report(step, force=step.phase == "windows"),
            cancelled=context.cancelled,
        )

    return run


def _recount(snap: asof.Snapshot) -> Callable[[jobs.JobContext], Count]:
    def run(_context: jobs.JobContext) -> Count:
        differences = snap.compare()  # reads the workspace: off the GUI thread
        history = open_history(snap.live.workspace)
        try:
            return count(snap, history, differences)
        finally:
            history.close()

    return run


class AsOfSearch(QObject):
    """One day's snapshot of a session's workspace and the searches run in it.

    Signals:
        started(object): the day (``datetime.date``) whose snapshot is being built.
        progress(object): ``engine.SyncProgress`` of its index.
        ready(object): the ``asof.Snapshot``, keyword-searchable (``pending``: chunks
            still to embed, searches keyword-only until ``hybrid``).
        embedding(object): ``engine.SyncProgress`` of the snapshot's changed chunks
            being embedded after ``ready``.
        hybrid(object): the ``asof.Snapshot``, every chunk with its vector now (the last
            search is asked again: its answer is hybrid).
        failed(object): the exception (``errors.Cancelled`` when cancelled).
        results(object): ``(session.Results, asof.AsOfResult | None)`` for the request asked.
        counted(object): the snapshot's ``Count`` again (``recount``: notes changed since).
        ended(): back to now (the snapshot closed).
    """

    started = Signal(object)
    progress = Signal(object)
    ready = Signal(object)
    embedding = Signal(object)
    hybrid = Signal(object)
    failed = Signal(object)
    results = Signal(object)
    counted = Signal(object)
    ended = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.snapshot: asof.Snapshot | None = None
        self.count: Count | None = None  # how the workspace differs from the snapshot now
        self.day: dt.date | None = None
        self._build_job: jobs.Job[tuple[asof.Snapshot, Count]] | None = None
        self._count_job: jobs.Job[Count] | None = None
        self._count_pending = False
        self._search_job: jobs.Job[tuple[Request, asof.AsOfResult, float]] | None = None
        self._finish_job: jobs.Job[object] | None = None
        self._finishing: set[jobs.Job[object]] = set()  # until they end (cancelled too)
        self._hybrid: asof.Snapshot | None = None  # the snapshot announced hybrid
        self._last_request: Request | None = None
        self._waiting: Request | None = None
        self._last: tuple[Request, asof.AsOfResult] | None = None
        self._closing: list[asof.Snapshot] = []
        self._jobs: set[jobs.Job[tuple[asof.Snapshot, Count]]] = (
            set()
        )  # builds until they end (cancelled too)

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
        job: jobs.Job[tuple[asof.Snapshot, Count]] = jobs.Job(
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
    def _on_build_finished(self, outcome: jobs.JobOutcome[tuple[asof.Snapshot, Count]]) -> None:
        job = self.sender()
        self._jobs.discard(job)  # type: ignore[arg-type]
        if job is not self._build_job:
            if outcome.value is not None:
                outcome.value[0].close()  # built for a day left meanwhile
            return
        self._build_job = None
        if outcome.value is None:
            self.day = None
            self.failed.emit(outcome.error or errors.Cancelled("cancelled"))
            return
        self.snapshot, self.count = outcome.value
        self.ready.emit(self.snapshot)
        if self.snapshot.report is None:
            self._start_finish(self.snapshot)
        if self._waiting is not None:
            self._run_next()

    def _start_finish(self, snap: asof.Snapshot) -> None:
        """Embed the snapshot's changed chunks (then their windows) in a job of its own."""
        job: jobs.Job[object] = jobs.Job(
            "memdesk-asof-finish", _finish(snap), progress_interval=PROGRESS_INTERVAL, background=True
        )
        job.progress.connect(self._on_finish_progress)
        job.finished.connect(self._on_finish_finished)
        self._finish_job = job
        self._finishing.add(job)
        if not snap.pending:
            self._hybrid = snap  # only passage windows left: its answers are hybrid already
        job.start()

    @property
    def embedding_changes(self) -> bool:
        """True while the snapshot's changed chunks are being embedded (keyword-only)."""
        snap = self.snapshot
        return self._finish_job is not None and snap is not None and snap.pending > 0

    @Slot(object)
    def _on_finish_progress(self, step: object) -> None:
        snap = self.snapshot
        if self.sender() is not self._finish_job or snap is None:
            return
        if getattr(step, "phase", "") == "embed":
            self.embedding.emit(step)
        elif not snap.pending:
            self._announce_hybrid(snap)  # the passage windows follow: hybrid already

    @Slot(object)
    def _on_finish_finished(self, outcome: jobs.JobOutcome[object]) -> None:
        job = self.sender()
        self._finishing.discard(job)  # type: ignore[arg-type]
        if job is self._finish_job:
            self._finish_job = None
            snap = self.snapshot
            if snap is not None and outcome.value is not None:
                self._announce_hybrid(snap)
            elif outcome.error is not None and not outcome.cancelled:
                log.warning("could not embed the changed notes of %s: %s", self.day, outcome.error)
        self._close_retired()

    def _announce_hybrid(self, snap: asof.Snapshot) -> None:
        if self._hybrid is snap:
            return
        self._hybrid = snap
        self.hybrid.emit(snap)
        if self._last_request is not None and self._waiting is None:
            self.search(self._last_request)  # its answer was keyword-only

    def recount(self) -> None:
        """Count again how the workspace differs from the snapshot (notes changed since
        it was built); ``counted`` follows. One count at a time, the last asked for kept."""
        snap = self.snapshot
        if snap is None:
            return
        if self._count_job is not None:
            self._count_pending = True
            return
        job: jobs.Job[Count] = jobs.Job("memdesk-asof-count", _recount(snap), background=True)
        job.finished.connect(self._on_count_finished)
        self._count_job = job
        self._count_pending = False
        job.start()

    @Slot(object)
    def _on_count_finished(self, outcome: jobs.JobOutcome[Count]) -> None:
        job, self._count_job = self.sender(), None
        self._close_retired()  # a snapshot left while it was counted
        snap = self.snapshot
        if outcome.value is not None and snap is not None and job is not None:
            snap.differences = outcome.value.differences  # the marks' "deleted since" reads it
            self.count = outcome.value
            self.counted.emit(outcome.value)
        elif outcome.error is not None and not outcome.cancelled:
            log.warning("could not count the notes changed since %s: %s", self.day, outcome.error)
        if self._count_pending:
            self.recount()

    def search(self, request: Request, *, reranked: bool = False) -> None:
        """Answer ``request`` from the snapshot; ``reranked``: only the settings moved,
        so the snapshot's last pool is ranked again when it covers them."""
        self._last_request = request  # asked again when the snapshot turns hybrid
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
        self._last_request = None
        if self._finish_job is not None:
            self._finish_job.cancel()  # stops at its next batch; the snapshot closes after it
            self._finish_job = None
        self._hybrid = None
        if self._build_job is not None:
            self._build_job.cancel()
            self._build_job = None  # its outcome is ignored; a finished snapshot is closed
        if self.snapshot is not None:
            self._closing.append(self.snapshot)
            self.snapshot = None
        self.count = None
        self._count_pending = False
        self._close_retired()
        if was_active and not quiet:
            self.ended.emit()

    def _close_retired(self) -> None:
        # A finish job embeds into a snapshot left meanwhile until it stops: closed after.
        if self._search_job is None and self._count_job is None and not self._finishing:
            for snap in self._closing:
                snap.close()
            self._closing = []

    def close(self) -> None:
        """Stop every job and close the snapshot (the window closes)."""
        search, counting, finishing = self._search_job, self._count_job, tuple(self._finishing)
        self.back_to_now(quiet=True)
        for job in (*self._jobs, search, counting, *finishing):
            if job is not None:
                job.cancel()
                job.wait()
        self._search_job = None
        self._count_job = None
        self._finishing.clear()
        self._close_retired()
