"""Hybrid merge of the vector and keyword legs (``hybrid.ts`` + ``manager.ts``).

``score = vectorWeight*vectorScore + textWeight*textScore`` per chunk id, then
optional temporal decay, a stable sort by score, optional MMR, and finally the
manager's ``minScore`` filter with its (effectively dead) relaxed pass.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .decay import DEFAULT_HALF_LIFE_DAYS, apply_temporal_decay
from .mmr import DEFAULT_MMR_LAMBDA, apply_mmr_to_hybrid_results

MAX_CANDIDATES = 200


def bm25_rank_to_score(rank: float, *, legacy: bool = False) -> float:
    """``bm25RankToScore``: FTS5 ``bm25()`` rank (lower is better) to a [0,1] score.

    Negative ranks (the normal FTS5 case) map to ``r/(1+r)`` with ``r=-rank``;
    other ranks to ``1/(1+rank)``; non-finite to ``1/1000``. ``legacy=True`` is
    the pre-2026-03-07 ``1/(1+max(0,rank))`` that scored every hit 1.0.
    """
    if not math.isfinite(rank):
        return 1 / (1 + 999)
    if legacy:
        return 1 / (1 + max(0.0, rank))
    if rank < 0:
        relevance = -rank
        return relevance / (1 + relevance)
    return 1 / (1 + rank)


def candidate_pool_size(max_results: float, candidate_multiplier: float) -> int:
    """SQL ``LIMIT`` for both legs: ``min(200, max(1, floor(maxResults*multiplier)))``."""
    return int(min(MAX_CANDIDATES, max(1, math.floor(max_results * candidate_multiplier))))


@dataclass(frozen=True)
class SearchHit:
    """A row from either leg. Vector hits carry ``vector_score``, keyword hits ``text_score``."""

    id: str
    path: str
    start_line: int
    end_line: int
    source: str
    snippet: str
    vector_score: float = 0.0
    text_score: float = 0.0


@dataclass(frozen=True)
class HybridResult:
    """A merged result, shaped like OpenClaw's ``MemorySearchResult``."""

    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str
    source: str


@dataclass(frozen=True)
class HybridOptions:
    """Merge knobs; weights are expected to be normalized already (see config)."""

    vector_weight: float = 0.7
    text_weight: float = 0.3
    mmr_enabled: bool = False
    mmr_lambda: float = DEFAULT_MMR_LAMBDA
    decay_enabled: bool = False
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS
    workspace_dir: str | None = None
    now_ms: float | None = None
    legacy_mmr_tokenizer: bool = False


@dataclass
class _MergeEntry:
    hit: SearchHit
    snippet: str
    vector_score: float
    text_score: float


def merge_hybrid_results(
    vector: Sequence[SearchHit],
    keyword: Sequence[SearchHit],
    options: HybridOptions,
) -> list[HybridResult]:
    """``mergeHybridResults``: union by id, weighted sum, decay, sort, MMR.

    Vector hits come first in insertion order. A keyword hit on an existing id
    sets its text score and replaces the snippet only if its own snippet is
    non-empty. The sort is stable, so ties keep insertion order.
    """
    by_id: dict[str, _MergeEntry] = {}
    for hit in vector:
        # Map.set semantics: a repeated id overwrites but keeps its first position.
        by_id[hit.id] = _MergeEntry(hit, hit.snippet, hit.vector_score, 0.0)
    for hit in keyword:
        entry = by_id.get(hit.id)
        if entry is not None:
            entry.text_score = hit.text_score
            if hit.snippet:
                entry.snippet = hit.snippet
        else:
            by_id[hit.id] = _MergeEntry(hit, hit.snippet, 0.0, hit.text_score)

    merged = [
        HybridResult(
            e.hit.path,
            e.hit.start_line,
            e.hit.end_line,
            options.vector_weight * e.vector_score + options.text_weight * e.text_score,
            e.snippet,
            e.hit.source,
        )
        for e in by_id.values()
    ]

    if options.decay_enabled:
        if options.now_ms is None:
            raise ValueError("now_ms is required when temporal decay is enabled")
        merged = apply_temporal_decay(
            merged,
            enabled=True,
            half_life_days=options.half_life_days,
            now_ms=options.now_ms,
            workspace_dir=options.workspace_dir,
        )
    ordered = sorted(merged, key=lambda r: -r.score)
    if options.mmr_enabled:
        return apply_mmr_to_hybrid_results(
            ordered, True, options.mmr_lambda, legacy_tokenizer=options.legacy_mmr_tokenizer
        )
    return ordered


def hybrid_select(
    merged: Sequence[HybridResult],
    keyword: Sequence[SearchHit],
    *,
    min_score: float,
    max_results: int,
    text_weight: float,
) -> list[HybridResult]:
    """The manager's final filter after ``mergeHybridResults``.

    Strict pass: ``score >= minScore``. Only if that is empty *and* the keyword
    leg found something, a relaxed pass keeps keyword-matched entries (by
    source/path/lines) with ``score >= min(minScore, textWeight)``. With real
    bm25 ranks a keyword-only hit scores below ``textWeight``, so it never fires.
    """
    strict = [r for r in merged if r.score >= min_score]
    if strict or not keyword:
        return strict[: int(max_results)]  # JS slice(0, n) == Python [:n]
    relaxed_min = min(min_score, text_weight)
    keys = {(h.source, h.path, h.start_line, h.end_line) for h in keyword}
    relaxed = [
        r for r in merged if (r.source, r.path, r.start_line, r.end_line) in keys and r.score >= relaxed_min
    ]
    return relaxed[: int(max_results)]
