"""Ranking (``hybrid.ts``, ``manager.ts``): keyword-only, vector-only and the hybrid merge,
each with decay, importance, projects and (hybrid) exact-path tiers and MMR."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from pathlib import Path

from ..text import truncate_utf16_safe
from .boosts import importance_multiplier, project_multiplier
from .constants import INVALID_PROJECT_KEY, SNIPPET_MAX_CHARS, TEXT_WEIGHT, VECTOR_WEIGHT
from .decay import decay_multiplier
from .index import IndexedChunk
from .keyword_hits import KeywordHit, compare_keyword_hits
from .mmr import mmr_rerank
from .order import js_cmp_str, sign
from .query import exact_path_matcher
from .results import Result


def exact_path_tie_score(content: float) -> float:
    return (1 + max(0.0, min(1.0, content))) / 2


def rank_keyword_only(
    hits: list[KeywordHit],
    *,
    now_ms: float,
    active: frozenset[str] | None = None,
    workspace: Path | None = None,
    session_mtimes: Mapping[str, float] | None = None,
) -> list[Result]:
    """``finalizeKeywordOnlyResults`` up to its selection (decay is always on in 2026.9)."""
    work: list[tuple[KeywordHit, float, float, float]] = []
    for h in hits:
        base = h.score
        if h.exact > 0:
            base = exact_path_tie_score(h.score if h.has_body else 0.0)
        dm = decay_multiplier(h.path, now_ms, workspace, source=h.source, session_mtimes=session_mtimes)
        im = importance_multiplier(h.importance)
        work.append((h, base * dm * im, dm, im))
    eligible = [
        w for w in work if INVALID_PROJECT_KEY not in [k.strip() for k in (w[0].project_key or "").split(";")]
    ]
    ranked_hits: list[tuple[KeywordHit, float, float, float]] = []
    for h, score, dm, im in eligible:
        pm = project_multiplier(h.project_key, active)
        h2 = dataclasses.replace(h, score=score * pm if active else score)
        ranked_hits.append((h2, dm, im, pm))

    def by_hit(x: tuple[KeywordHit, float, float, float], y: tuple[KeywordHit, float, float, float]) -> int:
        # Decay is on, so an exact path match does not prefer a body match here.
        return sign(compare_keyword_hits(x[0], y[0], False))

    ranked_hits.sort(key=functools.cmp_to_key(by_hit))
    results = []
    for h, dm, im, pm in ranked_hits:
        score = project_multiplier(h.project_key, active) if h.exact > 0 else h.score
        results.append(
            Result(
                h.path,
                h.start_line,
                h.end_line,
                score,
                h.snippet,
                h.source,
                0.0,
                h.text_score,
                h.importance,
                h.project_key,
                dm,
                im,
                pm,
                h.exact,
                id=h.id,
            )
        )
    for r in results:
        r.keyword_hit = True
    return results


def rank_vector_only(
    vector: list[tuple[IndexedChunk, float]],
    *,
    now_ms: float,
    active: frozenset[str] | None = None,
    workspace: Path | None = None,
    session_mtimes: Mapping[str, float] | None = None,
) -> list[Result]:
    """No FTS (or hybrid off): cosine x decay x importance (x project), sorted; no MMR."""
    out = []
    for c, sim in vector:
        if INVALID_PROJECT_KEY in [k.strip() for k in (c.meta.project_key or "").split(";")]:
            continue
        dm = decay_multiplier(c.path, now_ms, workspace, source=c.source, session_mtimes=session_mtimes)
        im = importance_multiplier(c.meta.importance)
        pm = project_multiplier(c.meta.project_key, active) if active else 1.0
        out.append(
            Result(
                c.path,
                c.start_line,
                c.end_line,
                sim * dm * im * pm,
                truncate_utf16_safe(c.text, SNIPPET_MAX_CHARS),
                c.source,
                sim,
                0.0,
                c.meta.importance,
                c.meta.project_key,
                dm,
                im,
                pm,
                0,
                sim,
                0.0,
                id=c.id,
            )
        )
    out.sort(
        key=functools.cmp_to_key(
            lambda a, b: (
                sign(b.score - a.score)
                or js_cmp_str(a.path, b.path)
                or sign(a.start_line - b.start_line)
                or sign(a.end_line - b.end_line)
            )
        )
    )
    return out


@dataclasses.dataclass
class _Entry:
    """One chunk in the hybrid merge (``mergeHybridResults``' map value)."""

    id: str
    path: str
    start: int
    end: int
    source: str
    snippet: str
    vs: float = 0.0  # vector score
    ts: float = 0.0  # keyword text score (the bm25 part)
    rs: float = 0.0  # keyword ranking score (boosted)
    ps: float = 0.0  # path score
    exact: int = 0
    body: bool = False
    has_vec: bool = False
    has_kw: bool = False
    importance: int | None = None
    project: str | None = None


def merge_hybrid(
    query: str,
    vector: list[tuple[IndexedChunk, float]],
    keyword: list[KeywordHit],
    *,
    now_ms: float,
    active: frozenset[str] | None = None,
    workspace: Path | None = None,
    mmr: bool = True,
    session_mtimes: Mapping[str, float] | None = None,
) -> list[Result]:
    """``mergeHybridResults`` with decay, importance, projects, exact-path tiers and MMR."""
    matcher = exact_path_matcher(query)
    entries: dict[str, _Entry] = {}
    for c, sim in vector:
        entries[c.id] = _Entry(
            c.id,
            c.path,
            c.start_line,
            c.end_line,
            c.source,
            truncate_utf16_safe(c.text, SNIPPET_MAX_CHARS),
            vs=sim,
            exact=matcher(c.path),
            has_vec=True,
            importance=c.meta.importance,
            project=c.meta.project_key,
        )
    for k in keyword:
        e = entries.get(k.id)
        if e is not None:
            e.ts, e.body, e.rs, e.ps = k.text_score, k.has_body, k.score, k.path_score
            e.exact = max(e.exact, k.exact)
            e.has_kw = True
            if e.importance is None:
                e.importance = k.importance
            if e.project is None:
                e.project = k.project_key
            if k.snippet:
                e.snippet = k.snippet
        else:
            entries[k.id] = _Entry(
                k.id,
                k.path,
                k.start_line,
                k.end_line,
                k.source,
                k.snippet,
                ts=k.text_score,
                rs=k.score,
                ps=k.path_score,
                exact=k.exact,
                body=k.has_body,
                has_kw=True,
                importance=k.importance,
                project=k.project_key,
            )
    results: list[Result] = []
    for e in entries.values():
        kw_score = e.rs if e.ts > 0 else (0.0 if e.exact > 0 else e.ps)
        content = VECTOR_WEIGHT * e.vs + TEXT_WEIGHT * kw_score
        lexical = e.rs if (e.body and e.ts == 0) else 0.0
        # An exact path hit ranks by the tie score (decay is always on in 2026.9).
        ranking = exact_path_tie_score(content) if e.exact > 0 else (lexical if content == 0 else content)
        dm = decay_multiplier(e.path, now_ms, workspace, source=e.source, session_mtimes=session_mtimes)
        im = importance_multiplier(e.importance)
        results.append(
            Result(
                e.path,
                e.start,
                e.end,
                ranking * dm * im,
                e.snippet,
                e.source,
                e.vs,
                e.ts,
                e.importance,
                e.project,
                dm,
                im,
                1.0,
                e.exact,
                content,
                lexical,
                keyword_hit=e.has_kw,
                id=e.id,
            )
        )
    results = [
        r for r in results if INVALID_PROJECT_KEY not in [k.strip() for k in (r.project_key or "").split(";")]
    ]
    for r in results:
        pm = project_multiplier(r.project_key, active)
        if active:
            r.score *= pm
            r.project_mult = pm
        r.ranking_score = r.score
        r.score = (
            project_multiplier(r.project_key, active)
            if r.exact > 0
            else (0.0 if r.content_score == 0 else r.score)
        )

    def cmp_ranking(a: Result, b: Result) -> int:
        return (
            sign(b.ranking_score - a.ranking_score)
            or sign(b.lexical_rank - a.lexical_rank)
            or js_cmp_str(a.path, b.path)
            or sign(a.start_line - b.start_line)
            or sign(a.end_line - b.end_line)
        )

    def by_score(a: Result, b: Result) -> int:
        return sign(b.score - a.score) or cmp_ranking(a, b)

    non_exact = sorted([r for r in results if r.exact == 0], key=functools.cmp_to_key(by_score))
    for pos, r in enumerate(non_exact, 1):
        r.pre_mmr_rank = pos
    tiers: list[Result] = []
    for spec in (3, 2, 1):
        tier = sorted([r for r in results if r.exact == spec], key=functools.cmp_to_key(cmp_ranking))
        if mmr and tier:
            for r in tier:
                r.score = r.ranking_score
            tier = mmr_rerank(tier)
            for r in tier:
                r.score = project_multiplier(r.project_key, active)
        tiers.extend(tier)
    return tiers + (mmr_rerank(non_exact) if mmr else non_exact)
