"""The result type (OpenClaw's ``MemorySearchResult`` plus the parts of its score) and
the selection after ranking (``selectScoredResults``, ``selectHybridSearchResults``)."""

from __future__ import annotations

import dataclasses

from .constants import CANDIDATE_UNIVERSE


@dataclasses.dataclass
class Result:
    """One search result, shaped like OpenClaw's ``MemorySearchResult``."""

    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str
    source: str = "memory"
    vector_score: float = 0.0
    text_score: float = 0.0
    importance: int | None = None
    project_key: str | None = None
    # Explanation fields (not in OpenClaw's output).
    decay: float = 1.0
    importance_mult: float = 1.0
    project_mult: float = 1.0
    exact: int = 0
    content_score: float = 0.0
    lexical_rank: float = 0.0
    ranking_score: float = 0.0
    pre_mmr_rank: int = 0
    keyword_hit: bool = False  # found by the keyword leg (may back-fill under minScore)
    id: str = ""


def select(kind: str, ranked: list[Result], *, max_results: int, min_score: float) -> list[Result]:
    """The selection after ranking; the pool is ``max(200, maxResults)``, the list ``maxResults``."""
    pool = max(CANDIDATE_UNIVERSE, max_results)
    if kind == "fts":
        return select_keyword_only(ranked, max_results=pool, min_score=min_score)[:max_results]
    if kind == "vector":
        return [r for r in ranked if r.score >= min_score][:max_results]
    return select_hybrid(ranked, max_results=pool, min_score=min_score)[:max_results]


def select_keyword_only(ranked: list[Result], *, max_results: int, min_score: float) -> list[Result]:
    """``selectScoredResults(ranked, max, minScore, 0)``: strict hits, else every hit >= 0."""
    strict = [r for r in ranked if r.score >= min_score]
    if strict:
        return strict[:max_results]
    return [r for r in ranked if r.score >= 0][:max_results]


def select_hybrid(merged: list[Result], *, max_results: int, min_score: float) -> list[Result]:
    """``selectHybridSearchResults``: strict hits, back-filled with keyword-only ones."""
    strict = [r for r in merged if r.score >= min_score]
    selected = strict[:max_results]
    keys = {f"{r.source}:{r.path}:{r.start_line}:{r.end_line}" for r in merged if r.keyword_hit}
    if not keys or len(selected) == max_results:
        return selected

    def key(r: Result) -> str:
        return f"{r.source}:{r.path}:{r.start_line}:{r.end_line}"

    if not strict:
        return [r for r in merged if r.score >= 0 and key(r) in keys][:max_results]
    seen = {key(r) for r in selected}
    for r in merged:
        if len(selected) == max_results:
            break
        k = key(r)
        if r.score < min_score and r.vector_score == 0 and k in keys and k not in seen:
            seen.add(k)
            selected.append(r)
    return selected
