"""A keyword-leg hit and the two orders OpenClaw sorts them in (``manager-keyword-retrieval.ts``)."""

from __future__ import annotations

import dataclasses

from .order import js_cmp_str


@dataclasses.dataclass
class KeywordHit:
    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    score: float
    text_score: float
    path_score: float
    exact: int
    has_body: bool
    snippet: str
    importance: int | None = None
    project_key: str | None = None
    triggers: str | None = None


def compare_keyword_hits(a: KeywordHit, b: KeywordHit, prefer_exact_body: bool = True) -> float:
    d: float = b.exact - a.exact
    if d:
        return d
    if prefer_exact_body and a.exact > 0:
        d = int(b.has_body) - int(a.has_body)
        if d:
            return d
    d = b.score - a.score
    if d:
        return d
    d = b.text_score - a.text_score
    if d:
        return d
    return _by_path_score_then_place(a, b)


def compare_path_hits(a: KeywordHit, b: KeywordHit) -> float:
    d: float = b.exact - a.exact
    if d:
        return d
    return _by_path_score_then_place(a, b)


def _by_path_score_then_place(a: KeywordHit, b: KeywordHit) -> float:
    """Both orders end alike: a non-exact hit's path score, then path, start line and id."""
    if a.exact == 0:
        d = b.path_score - a.path_score
        if d:
            return d
    return js_cmp_str(a.path, b.path) or (a.start_line - b.start_line) or js_cmp_str(a.id, b.id)
