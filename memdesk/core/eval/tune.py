"""Auto-tune: grid search over cached candidate pools for the best golden-set nDCG@10."""

from __future__ import annotations

import dataclasses
import itertools
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memdesk.core import errors
from memdesk.core.eval.golden import GoldenQuery, score_golden, score_golden_queries
from memdesk.core.eval.metrics import Scores
from memdesk.core.search import settings as settings_mod
from memdesk.core.search.hits import CandidatePool
from memdesk.core.search.settings import SearchSettings

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class TuneResult:
    """Auto-tune's proposal; ``per_query`` holds (query, before, after) for each query."""

    before: Scores
    after: Scores
    settings: SearchSettings
    tried: int
    per_query: tuple[tuple[str, Scores, Scores], ...] = ()

    def rows(self) -> list[TuneRow]:
        """The per-query before/after table the tuning lab shows, biggest loss first."""
        rows = [TuneRow(q, before.ndcg10, after.ndcg10) for q, before, after in self.per_query]
        return sorted(rows, key=lambda r: r.delta)

    def changes(self, start: SearchSettings) -> list[SettingChange]:
        """The tuned settings that differ from ``start``, in ``TUNED_FIELDS`` order."""
        return [
            SettingChange(name, getattr(start, name), getattr(self.settings, name))
            for name in TUNED_FIELDS
            if getattr(start, name) != getattr(self.settings, name)
        ]


@dataclasses.dataclass(frozen=True)
class TuneRow:
    """One query of auto-tune's table: nDCG@10 with the settings it started from and after."""

    query: str
    before: float
    after: float

    @property
    def delta(self) -> float:
        return self.after - self.before


@dataclasses.dataclass(frozen=True)
class SettingChange:
    """A setting auto-tune proposes to change (``name`` is a ``SearchSettings`` field)."""

    name: str
    old: float
    new: float


# The grid auto-tune searches: vector weight (text weight is 1 - it) x MMR lambda (when
# MMR is on) x half-life in days (when decay is on); everything else stays as it is.
WEIGHTS = tuple(round(0.1 * i, 2) for i in range(11))
MMR_LAMBDAS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
HALF_LIVES = (7, 14, 30, 60, 90, 180, 365)
TUNED_FIELDS = tuple(f.name for f in settings_mod.FIELDS.values() if f.tuned)


def tune_grid(settings: SearchSettings) -> list[SearchSettings]:
    """Every setting auto-tune tries from ``settings``, in the order it tries them."""
    lambdas = MMR_LAMBDAS if settings.mmr else (settings.mmr_lambda,)
    half_lives = HALF_LIVES if settings.decay else (settings.half_life_days,)
    return [
        settings.replace(vector_weight=w, text_weight=round(1 - w, 2), mmr_lambda=lam, half_life_days=hl)
        for w, lam, hl in itertools.product(WEIGHTS, lambdas, half_lives)
    ]


def auto_tune(
    pools: Mapping[str, CandidatePool],
    golden: Sequence[GoldenQuery],
    settings: SearchSettings,
    *,
    now: Any = None,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TuneResult:
    """Search ``tune_grid(settings)`` for the best mean nDCG@10.

    Re-ranks cached pools only, so a few hundred settings take seconds. Ties keep
    the current settings (no change without a measured gain).
    """
    before = score_golden(pools, golden, settings, now=now)
    grid = tune_grid(settings)
    best, best_scores = settings, before
    for n, trial in enumerate(grid, 1):
        if cancelled is not None and cancelled():
            raise errors.Cancelled("auto-tune cancelled")
        scores = score_golden(pools, golden, trial, now=now)
        if scores.ndcg10 > best_scores.ndcg10 + 1e-12:
            best, best_scores = trial, scores
        if progress is not None:
            progress(n, len(grid))
    first = score_golden_queries(pools, golden, settings, now=now)
    last = score_golden_queries(pools, golden, best, now=now)
    per_query = tuple((q, first[q], last[q]) for q in first if q in last)
    return TuneResult(before, best_scores, best, len(grid), per_query)
