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


def auto_tune(
    pools: Mapping[str, CandidatePool],
    golden: Sequence[GoldenQuery],
    settings: SearchSettings,
    *,
    now: Any = None,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TuneResult:
    """Grid search of vector weight × MMR lambda × half-life for the best mean nDCG@10.

    Re-ranks cached pools only, so a few hundred settings take seconds. Ties keep
    the current settings (no change without a measured gain).
    """
    before = score_golden(pools, golden, settings, now=now)
    weights = [round(0.1 * i, 2) for i in range(11)]
    lambdas = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0] if settings.mmr else [settings.mmr_lambda]
    half_lives = [7, 14, 30, 60, 90, 180, 365] if settings.decay else [settings.half_life_days]
    grid = list(itertools.product(weights, lambdas, half_lives))
    best, best_scores = settings, before
    for n, (w, lam, hl) in enumerate(grid, 1):
        if cancelled is not None and cancelled():
            raise errors.Cancelled("auto-tune cancelled")
        trial = settings.replace(
            vector_weight=w, text_weight=round(1 - w, 2), mmr_lambda=lam, half_life_days=hl
        )
        scores = score_golden(pools, golden, trial, now=now)
        if scores.ndcg10 > best_scores.ndcg10 + 1e-12:
            best, best_scores = trial, scores
        if progress is not None:
            progress(n, len(grid))
    first = score_golden_queries(pools, golden, settings, now=now)
    last = score_golden_queries(pools, golden, best, now=now)
    per_query = tuple((q, first[q], last[q]) for q in first if q in last)
    return TuneResult(before, best_scores, best, len(grid), per_query)
