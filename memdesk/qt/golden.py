"""The tuning lab: a workspace's golden set, cached candidate pools for its queries,
the live quality score of the current settings, and auto-tune on a worker thread.

Slider moves only re-rank the cached pools (``eval_golden.score_golden`` is pure), so
the readout follows the sliders without touching SQLite or the embedder. The pools
are fetched with a generous pool (200 candidates per leg) on the session's reader
thread, one query per event so the user's own searches are not stuck behind them,
and fetched again when the index changes or the ranking profile does.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot

from memdesk.core import engine as engine_mod
from memdesk.core import errors
from memdesk.core.eval import golden as eval_golden
from memdesk.core.eval import metrics as eval_metrics
from memdesk.core.eval import tune as eval_tune
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import settings as settings_mod
from memdesk.qt import jobs
from memdesk.qt import session as session_mod

log = logging.getLogger(__name__)

POOL_MAX_RESULTS = 100
POOL_MULTIPLIER = 2  # 100 x 2 = 200 candidates per leg, the engine's ceiling


def pool_settings(settings: settings_mod.SearchSettings) -> settings_mod.SearchSettings:
    """What golden pools are fetched with: the profile of ``settings``, a 200-candidate pool."""
    return settings.replace(max_results=POOL_MAX_RESULTS, candidate_multiplier=POOL_MULTIPLIER, min_score=0.0)


@dataclasses.dataclass(frozen=True)
class PoolRequest:
    """Fetch pools for ``queries``; a newer ``generation`` makes older requests stale."""

    generation: int  # from the lab's ``jobs.RequestGate``
    queries: tuple[str, ...]
    settings: settings_mod.SearchSettings


@dataclasses.dataclass(frozen=True)
class PoolResult:
    generation: int
    query: str
    pool: hits_mod.CandidatePool | None
    error: BaseException | None = None


class PoolFetcher(QObject):
    """Fetches golden-query pools on the reader thread, one query per event.

    Signals:
        fetched(object): a ``PoolResult`` per query.
    """

    fetched = Signal(object)
    _step_requested = Signal()  # to itself, queued: lets searches queued meanwhile go first

    def __init__(
        self,
        engine: engine_mod.Engine,
        generations: jobs.RequestGate,
        clock: Callable[[], dt.date | None] = lambda: None,
    ) -> None:
        super().__init__()
        self._engine = engine
        self._generations = generations
        # The search clock: a profile that decays while fetching (openclaw-2026.9) needs it.
        self._clock = clock
        self._queue: list[tuple[int, str, settings_mod.SearchSettings]] = []  # reader thread only
        self._step_requested.connect(self._step, Qt.ConnectionType.QueuedConnection)

    def _is_stale(self, generation: int) -> bool:
        return self._generations.is_stale(generation)

    @Slot(object)
    def fetch(self, request: PoolRequest) -> None:
        idle = not self._queue
        self._queue = [job for job in self._queue if not self._is_stale(job[0])]
        self._queue += [(request.generation, q, request.settings) for q in request.queries]
        if idle:
            self._step_requested.emit()

    @Slot()
    def _step(self) -> None:
        while self._queue and self._is_stale(self._queue[0][0]):
            self._queue.pop(0)
        if not self._queue:
            return
        generation, query, settings = self._queue.pop(0)
        try:
            pool = self._engine.fetch_candidates(query, settings, now=self._clock())
        except Exception as exc:  # reported as a value, like the reader's searches
            if not isinstance(exc, errors.MemdeskError):
                log.exception("golden pool fetch failed for %r", query)
            self.fetched.emit(PoolResult(generation, query, None, exc))
        else:
            self.fetched.emit(PoolResult(generation, query, pool))
        if self._queue:
            self._step_requested.emit()


@dataclasses.dataclass(frozen=True)
class TuneProgress:
    done: int  # settings tried so far
    total: int


def tune_job(
    pools: Mapping[str, hits_mod.CandidatePool],
    golden: Sequence[eval_golden.GoldenQuery],
    settings: settings_mod.SearchSettings,
    now: dt.date | None = None,
) -> Callable[[jobs.JobContext], eval_tune.TuneResult]:
    """A ``jobs.Job`` function running ``eval_tune.auto_tune`` over cached pools (pure CPU,
    no I/O); it reports ``TuneProgress`` and stops between trials when cancelled.
    ``now``: the clock of queries without their own (the session's search clock)."""
    pools, golden = dict(pools), list(golden)

    def run(context: jobs.JobContext) -> eval_tune.TuneResult:
        def progress(done: int, total: int) -> None:
            context.report(TuneProgress(done, total), force=done >= total)

        return eval_tune.auto_tune(
            pools, golden, settings, now=now, cancelled=context.cancelled, progress=progress
        )

    return run


@dataclasses.dataclass(frozen=True)
class Readout:
    """What the quality panel shows.

    ``scores`` is None until at least one labelled query has a pool; ``scored`` of
    ``labelled`` queries took part; ``fetching`` counts pools still on their way.
    """

    scores: eval_metrics.Scores | None
    labelled: int
    items: int
    scored: int
    fetching: int
    settings: settings_mod.SearchSettings
    error: str = ""
    lost: tuple[str, ...] = ()  # labels whose text is gone from their note


class TuningLab(QObject):
    """Golden labels, their pools and scores for one ``Session``.

    Signals:
        golden_changed(): labels were loaded, ticked or unticked.
        readout_changed(object): a fresh ``Readout`` (after labels, pools or settings changed).
        tune_started(): auto-tune began on its worker thread.
        tune_progress(int, int): trials done, trials in total.
        tune_finished(object): the ``eval_tune.TuneResult`` (not applied); emitted once
            the worker thread has ended, so ``is_tuning`` is already False.
        tune_failed(object): the exception (``errors.Cancelled`` when cancelled), likewise.
        failed(object): the golden file could not be read or written.
    """

    golden_changed = Signal()
    readout_changed = Signal(object)
    tune_started = Signal()
    tune_progress = Signal(int, int)
    tune_finished = Signal(object)
    tune_failed = Signal(object)
    failed = Signal(object)

    _fetch_requested = Signal(object)  # to the PoolFetcher on the reader thread

    def __init__(
        self,
        session: session_mod.Session,
        settings: settings_mod.SearchSettings,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._session = session
        self.golden = eval_golden.GoldenSet(session.workspace / eval_golden.GOLDEN_REL, session.workspace)
        self._settings = settings
        self._pools: dict[str, hits_mod.CandidatePool] = {}
        self._pending: set[str] = set()
        self._generations = jobs.RequestGate()
        self._error = ""
        self.fetch_count = 0  # pool fetches sent to the reader (tests: slider moves add none)
        self.score_count = 0  # readouts computed
        self._readout: Readout | None = None
        self._closed = False

        # Pools are fetched where the session's searches run, on its read connection.
        self._fetcher = PoolFetcher(session.engine, self._generations, lambda: session.clock)
        session.reader_thread.host(self._fetcher)
        self._fetch_requested.connect(self._fetcher.fetch)
        self._fetcher.fetched.connect(self._on_fetcher_fetched)

        self._rescore = QTimer(self)
        self._rescore.setObjectName("quality-rescore-timer")
        self._rescore.setSingleShot(True)
        self._rescore.setInterval(0)  # coalesce a burst of slider moves into one readout
        self._rescore.timeout.connect(self._on_rescore_timeout)

        self._tune_job: jobs.Job[eval_tune.TuneResult] | None = None

        session.sync_finished.connect(self._on_session_sync_finished)
        session.clock_changed.connect(self._on_session_clock_changed)
        self.reload()

    # state -----------------------------------------------------------------------------
    @property
    def settings(self) -> settings_mod.SearchSettings:
        return self._settings

    @property
    def pools(self) -> dict[str, hits_mod.CandidatePool]:
        return dict(self._pools)

    @property
    def readout(self) -> Readout | None:
        return self._readout

    @property
    def is_fetching(self) -> bool:
        return bool(self._pending)

    @property
    def is_tuning(self) -> bool:
        return self._tune_job is not None

    def relevant_for(self, query: str) -> tuple[eval_golden.Relevant, ...]:
        return self.golden.relevant_for(query)

    # labels ----------------------------------------------------------------------------
    def reload(self) -> None:
        """(Re)read the golden file and fetch pools for its queries."""
        try:
            self.golden.load()
            self.golden.reanchor()  # notes may have changed since the labels were saved
            self._error = ""
        except errors.EvalError as exc:
            self._error = str(exc)
            self.failed.emit(exc)
        self.golden_changed.emit()
        self._refetch(clear=False)

    def set_relevant(self, query: str, hit: hits_mod.Hit, on: bool) -> bool:
        """Tick or untick ``hit`` for ``query``; saves the golden file at once."""
        try:
            changed = self.golden.set_relevant(query, eval_golden.hit_item(hit), on)
        except (OSError, errors.MemdeskError) as exc:
            err = (
                exc
                if isinstance(exc, errors.MemdeskError)
                else errors.MemdeskError(f"Cannot save {self.golden.path}: {exc}")
            )
            self._error = str(err)
            self.failed.emit(err)
            self._schedule_score()
            return False
        if not changed:
            return False
        self._error = ""
        self.golden_changed.emit()
        key = eval_golden.query_key(query)
        if self.golden.relevant_for(key) and key not in self._pools and key not in self._pending:
            self._request([key])
        self._schedule_score()
        return True

    # settings --------------------------------------------------------------------------
    def set_settings(self, settings: settings_mod.SearchSettings) -> None:
        """New slider values: re-score the cached pools (another profile needs new pools)."""
        profile_changed = settings.profile != self._settings.profile
        self._settings = settings
        if profile_changed:
            self._refetch(clear=True)
        self._schedule_score()

    # pools -----------------------------------------------------------------------------
    def _refetch(self, *, clear: bool) -> None:
        """Fetch every golden query's pool again (a new generation drops older answers)."""
        if self._closed:
            return
        self._generations.issue()  # answers to earlier fetches are dropped now
        if clear:
            self._pools = {}
        self._pending = set()
        self._request([q.query for q in self.golden.queries])
        self._schedule_score()

    def _request(self, queries: Sequence[str]) -> None:
        if not queries or self._closed:
            return
        self._pending.update(queries)
        self.fetch_count += len(queries)
        self._fetch_requested.emit(
            PoolRequest(self._generations.latest, tuple(queries), pool_settings(self._settings))
        )

    @Slot(object)
    def _on_fetcher_fetched(self, result: PoolResult) -> None:
        if not self._generations.is_current(result.generation) or self._closed:
            return
        self._pending.discard(result.query)
        if result.pool is not None and result.pool.profile == self._settings.profile:
            self._pools[result.query] = result.pool
        elif result.error is not None:
            self._error = f"Could not search {result.query!r}: {result.error}"
        self._schedule_score()

    @Slot(object)
    def _on_session_sync_finished(self, report: engine_mod.SyncReport) -> None:
        if report.indexed_paths or report.removed_paths or report.rebuilt:
            lost_before = self.golden.lost
            if self.golden.reanchor() or self.golden.lost != lost_before:
                self.golden_changed.emit()
        modes = {p.mode for p in self._pools.values()}
        # A sync that changed no file and no mode leaves every pool (and fetch) valid.
        if report.indexed_paths or report.removed_paths or report.rebuilt or modes - {report.mode}:
            self._refetch(clear=False)  # old pools keep the readout live until replaced

    @Slot(object)
    def _on_session_clock_changed(self, _clock: object) -> None:
        # The readout follows the search clock; pools a profile ranked while fetching
        # (openclaw-2026.9 decays inside its pipeline) are fetched again at the new one.
        if any(c.ranked is not None for p in self._pools.values() for c in p.candidates[:1]):
            self._refetch(clear=False)
        self._schedule_score()

    # scoring ---------------------------------------------------------------------------
    def _schedule_score(self) -> None:
        if not self._closed:
            self._rescore.start()

    def score_now(self) -> Readout:
        """Score the golden set under the current settings from cached pools only."""
        self._rescore.stop()
        golden = self.golden.queries
        usable = {q: p for q, p in self._pools.items() if p.profile == self._settings.profile}
        scored = [g for g in golden if g.query in usable]
        # Scored at the search clock, as the results beside it are ranked.
        clock = self._session.clock
        scores = eval_golden.score_golden(usable, scored, self._settings, now=clock) if scored else None
        self.score_count += 1
        self._readout = Readout(
            scores,
            len(golden),
            self.golden.item_count,
            len(scored),
            len(self._pending),
            self._settings,
            self._error,
            tuple(item.label() for _q, item in self.golden.lost),
        )
        self.readout_changed.emit(self._readout)
        return self._readout

    @Slot()
    def _on_rescore_timeout(self) -> None:
        self.score_now()

    # auto-tune -------------------------------------------------------------------------
    def start_tune(self) -> bool:
        """Grid-search the current settings over the cached pools on a worker thread."""
        if self._tune_job is not None or self._closed:
            return False
        usable = {q: p for q, p in self._pools.items() if p.profile == self._settings.profile}
        golden = [g for g in self.golden.queries if g.query in usable]
        if not golden:
            return False
        job = jobs.Job(
            "memdesk-auto-tune", tune_job(usable, golden, self._settings, self._session.clock), quiet=()
        )
        job.progress.connect(self._on_tune_job_progress)
        job.finished.connect(self._on_tune_job_finished)
        self._tune_job = job
        job.start()
        self.tune_started.emit()
        return True

    def cancel_tune(self) -> None:
        if self._tune_job is not None:
            self._tune_job.cancel()

    @Slot(object)
    def _on_tune_job_progress(self, progress: TuneProgress) -> None:
        self.tune_progress.emit(progress.done, progress.total)

    @Slot(object)
    def _on_tune_job_finished(self, outcome: jobs.JobOutcome[eval_tune.TuneResult]) -> None:
        # Reported once the thread has ended, so whoever hears it can start the next run.
        self._tune_job = None
        if self._closed:
            return
        if outcome.value is not None:
            self.tune_finished.emit(outcome.value)
        elif outcome.error is not None:
            self.tune_failed.emit(outcome.error)

    # shutdown --------------------------------------------------------------------------
    def close(self) -> None:
        """Cancel auto-tune and wait for it; drop late pool answers."""
        if self._closed:
            return
        self._closed = True
        self._rescore.stop()
        self._generations.issue()
        if self._tune_job is not None:
            self._tune_job.cancel()
            self._tune_job.wait()
