"""Hybrid merge of the vector and keyword legs (``hybrid.ts`` + ``manager.ts``).

``score = vectorWeight*vectorScore + textWeight*textScore`` per chunk id, then
optional temporal decay, a stable sort by score, optional MMR, and finally the
manager's ``minScore`` filter with its (effectively dead) relaxed pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from . import mmr
from .config import DEFAULT_HALF_LIFE_DAYS, DEFAULT_MMR_LAMBDA, DEFAULT_TEXT_WEIGHT, DEFAULT_VECTOR_WEIGHT
from .decay import decay_multipliers

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

    vector_weight: float = DEFAULT_VECTOR_WEIGHT
    text_weight: float = DEFAULT_TEXT_WEIGHT
    mmr_enabled: bool = False
    mmr_lambda: float = DEFAULT_MMR_LAMBDA
    decay_enabled: bool = False
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS
    workspace_dir: str | None = None
    now_ms: float | None = None
    legacy_mmr_tokenizer: bool = False


@dataclass(frozen=True)
class RankedHit:
    """A merged result with every part of its score (what the app shows per hit).

    ``merged`` is the weighted sum, ``decay`` its multiplier, ``score`` the
    product; ``pre_mmr_rank`` the 1-based position after the sort, ``mmr_rank``
    after MMR (None when MMR is off); ``mmr_penalty``/``mmr_against`` the max
    similarity to an earlier pick and that pick's id.
    """

    id: str
    path: str
    start_line: int
    end_line: int
    source: str
    snippet: str
    vector_score: float
    text_score: float
    merged: float
    decay: float = 1.0
    score: float = 0.0
    pre_mmr_rank: int = 0
    mmr_rank: int | None = None
    mmr_penalty: float = 0.0
    mmr_against: str | None = None

    def result(self) -> HybridResult:
        return HybridResult(self.path, self.start_line, self.end_line, self.score, self.snippet, self.source)


TimestampResolver = Callable[[str, str, str | None], float | None]


def merge_by_id(
    vector: Sequence[SearchHit], keyword: Sequence[SearchHit], vector_weight: float, text_weight: float
) -> list[RankedHit]:
    """The union step of ``mergeHybridResults``: one entry per id, weighted sum.

    Vector hits come first in insertion order. A keyword hit on an existing id
    sets its text score and replaces the snippet only if its own snippet is
    non-empty.
    """
    by_id: dict[str, list[Any]] = {}  # id -> [hit, snippet, vector score, text score]
    for hit in vector:
        # Map.set semantics: a repeated id overwrites but keeps its first position.
        by_id[hit.id] = [hit, hit.snippet, hit.vector_score, 0.0]
    for hit in keyword:
        entry = by_id.get(hit.id)
        if entry is not None:
            entry[3] = hit.text_score
            if hit.snippet:
                entry[1] = hit.snippet
        else:
            by_id[hit.id] = [hit, hit.snippet, 0.0, hit.text_score]
    out = []
    for hit_id, (hit, snippet, vector_score, text_score) in by_id.items():
        merged = vector_weight * vector_score + text_weight * text_score
        out.append(
            RankedHit(
                hit_id,
                hit.path,
                hit.start_line,
                hit.end_line,
                hit.source,
                snippet,
                vector_score,
                text_score,
                merged,
                score=merged,
            )
        )
    return out


def decay_ranked(
    hits: Sequence[RankedHit],
    *,
    half_life_days: float,
    now_ms: float,
    workspace_dir: str | None = None,
    timestamp_resolver: TimestampResolver | None = None,
) -> list[RankedHit]:
    """``applyTemporalDecayToHybridResults`` keeping each multiplier (same product)."""
    multipliers = decay_multipliers(
        hits,
        half_life_days=half_life_days,
        now_ms=now_ms,
        workspace_dir=workspace_dir,
        timestamp_resolver=timestamp_resolver,
    )
    return [
        h if m is None else replace(h, score=h.score * m, decay=m)
        for h, m in zip(hits, multipliers, strict=True)
    ]


def sort_ranked(hits: Sequence[RankedHit]) -> list[RankedHit]:
    """Stable sort by score, descending (ties keep insertion order); records ``pre_mmr_rank``."""
    ordered = sorted(hits, key=lambda r: -r.score)
    return [replace(h, pre_mmr_rank=pos) for pos, h in enumerate(ordered, 1)]


def mmr_ranked(
    hits: Sequence[RankedHit],
    lambda_: float,
    *,
    legacy_tokenizer: bool = False,
    tokens: mmr.TokenSets | None = None,
    select: mmr.Select | None = None,
) -> list[RankedHit]:
    """``applyMMRToHybridResults`` on ranked hits: MMR over snippets, positions recorded.

    Item ids are ``path:startLine:index`` (unique per position) as in OpenClaw.
    """
    if not hits:
        return []
    ids = [f"{h.path}:{h.start_line}:{i}" for i, h in enumerate(hits)]
    if select is not None:
        # The selector sees chunk ids (stable across re-rankings, so it can cache).
        ids = [h.id for h in hits]
    steps = mmr.rerank_steps(
        ids,
        [h.score for h in hits],
        [h.snippet for h in hits],
        enabled=True,
        lambda_=lambda_,
        legacy_tokenizer=legacy_tokenizer,
        tokens=tokens,
        select=select,
    )
    return [
        replace(
            hits[s.index],
            mmr_rank=pos,
            mmr_penalty=s.max_sim,
            mmr_against=hits[s.against].id if s.against is not None else None,
        )
        for pos, s in enumerate(steps, 1)
    ]


def rank_hybrid(
    vector: Sequence[SearchHit],
    keyword: Sequence[SearchHit],
    options: HybridOptions,
    *,
    timestamp_resolver: TimestampResolver | None = None,
    tokens: mmr.TokenSets | None = None,
    select: mmr.Select | None = None,
) -> list[RankedHit]:
    """``mergeHybridResults`` with every score part kept: merge, decay, sort, MMR.

    The app's ``openclaw`` profile ranks through this function; ``tokens``/``select``
    swap in equivalent faster MMR pieces and ``timestamp_resolver`` the app's dates.
    """
    ranked = merge_by_id(vector, keyword, options.vector_weight, options.text_weight)
    if options.decay_enabled:
        if options.now_ms is None:
            raise ValueError("now_ms is required when temporal decay is enabled")
        ranked = decay_ranked(
            ranked,
            half_life_days=options.half_life_days,
            now_ms=options.now_ms,
            workspace_dir=options.workspace_dir,
            timestamp_resolver=timestamp_resolver,
        )
    ranked = sort_ranked(ranked)
    if options.mmr_enabled:
        ranked = mmr_ranked(
            ranked,
            options.mmr_lambda,
            legacy_tokenizer=options.legacy_mmr_tokenizer,
            tokens=tokens,
            select=select,
        )
    return ranked


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
    return [r.result() for r in rank_hybrid(vector, keyword, options)]


class _Selectable(Protocol):
    @property
    def score(self) -> float: ...

    @property
    def source(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def start_line(self) -> int: ...

    @property
    def end_line(self) -> int: ...


S = TypeVar("S", bound=_Selectable)


def hybrid_select(
    merged: Sequence[S],
    keyword: Sequence[SearchHit],
    *,
    min_score: float,
    max_results: int,
    text_weight: float,
) -> list[S]:
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
