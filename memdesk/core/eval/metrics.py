"""Retrieval metrics after trec_eval with binary gains: nDCG@10, Recall@5/10/100, MRR@10.

A document counts as retrieved at its best-ranked chunk. The functions are pure.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import statistics
from collections.abc import Iterable, Sequence

log = logging.getLogger(__name__)


def dedupe(ranked: Iterable[str]) -> list[str]:
    """Keep each document at its best (first) rank."""
    seen: set[str] = set()
    return [d for d in ranked if not (d in seen or seen.add(d))]  # type: ignore[func-returns-value]


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal if ideal > 0 else 0.0


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    return len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0


def mrr_at(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    for i, d in enumerate(ranked[:k]):
        if d in relevant:
            return 1.0 / (i + 1)
    return 0.0


@dataclasses.dataclass(frozen=True)
class Scores:
    ndcg10: float
    recall5: float
    recall10: float
    recall100: float
    mrr10: float

    @staticmethod
    def mean(per_query: Sequence[Scores]) -> Scores:
        if not per_query:
            return Scores(0.0, 0.0, 0.0, 0.0, 0.0)
        return Scores(
            *(statistics.fmean(getattr(s, f.name) for s in per_query) for f in dataclasses.fields(Scores))
        )


def score_ranking(ranked_docs: Sequence[str], relevant: set[str]) -> Scores:
    docs = dedupe(ranked_docs)
    return Scores(
        ndcg_at(docs, relevant, 10),
        recall_at(docs, relevant, 5),
        recall_at(docs, relevant, 10),
        recall_at(docs, relevant, 100),
        mrr_at(docs, relevant, 10),
    )


def scores_json(scores: Scores) -> dict[str, float]:
    """The metric keys of every evaluation report (rounded for display and diffs)."""
    return {
        "ndcg@10": round(scores.ndcg10, 4),
        "recall@5": round(scores.recall5, 4),
        "recall@10": round(scores.recall10, 4),
        "recall@100": round(scores.recall100, 4),
        "mrr@10": round(scores.mrr10, 4),
    }
