"""Query planning and keyword scoring (``manager-search.ts``,
``manager-keyword-retrieval.ts``): FTS MATCH plans per tokenizer, the lexical boost
of a keyword hit, and the exact path / basename / stem matcher."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence

from ..fts_query import build_fts_query, quote_terms
from ..text import js_trim, utf16_len, word_tokens
from .index import Tokenizer


def plan_keyword_search(
    query: str, tokenizer: Tokenizer, *, combining_marks: bool = False
) -> tuple[str | None, list[str]]:
    """``planKeywordSearch``: (MATCH query, substring terms).

    unicode61: the usual AND of quoted tokens. trigram: a trigram index cannot match
    a term shorter than 3 characters, so such terms become substring filters and
    only the longer ones go to MATCH (``None`` when there are none).
    """
    if tokenizer != "trigram":
        return build_fts_query(query), []
    raw = word_tokens(query, marks=True) if combining_marks else word_tokens(query)
    tokens = [t for t in (js_trim(t) for t in raw) if t]
    match_terms = [t for t in tokens if len(t) >= 3]  # Array.from: code points
    subs = [t for t in tokens if len(t) < 3]
    return quote_terms(match_terms), subs


def nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


def search_tokens_lower(raw: str) -> list[str]:
    return [t.lower() for t in (js_trim(t) for t in word_tokens(nfc(raw))) if t]


def _casefold_eq(a: str, b: str) -> bool:
    return a.lower() == b.lower() or a.casefold() == b.casefold()


def score_fallback_keyword_result(
    query_tokens: Sequence[str], path: str, text: str, fts_score: float
) -> float:
    """``scoreFallbackKeywordResult`` (2026.9: NFC, case-insensitive literal matchers)."""
    if not query_tokens:
        return fts_score
    text_tokens = search_tokens_lower(text)
    text_set = set(text_tokens)
    overlap = sum(1 for q in query_tokens if any(_casefold_eq(q, t) for t in text_set))
    unique_overlap = overlap / len(query_tokens)
    density = overlap / max(len(text_set), 1)
    norm_path = nfc(path).lower()
    path_boost = 0.0
    for q in query_tokens:
        path_boost += 0.18 if q.lower() in norm_path else 0.0
    length_boost = min(utf16_len(text) / 160, 0.18)
    lexical = unique_overlap * 0.45 + density * 0.2 + path_boost + length_boost
    return min(1.0, fts_score + lexical)


def _normalize_path_id(value: str) -> str:
    v = js_trim(value).replace("\\", "/")
    if v.startswith("./"):
        v = v[2:]
    return nfc(v).lower()


def exact_path_matcher(query: str) -> Callable[[str], int]:
    """``prepareExactPathMatcher``: 3 full path, 2 basename, 1 stem, else 0."""
    q = _normalize_path_id(query)
    if not q or q == ".":
        return lambda _p: 0
    has_dir = "/" in q

    def match(candidate: str) -> int:
        p = _normalize_path_id(candidate)
        if q == p:
            return 3
        if has_dir:
            return 0
        base = p.split("/")[-1]
        if q == base:
            return 2
        dot = base.rfind(".")
        stem = base[:dot] if dot > 0 else base
        return 1 if q == stem else 0

    return match


def contains_ci(value: str, term: str) -> bool:
    return nfc(term).lower() in nfc(value).lower()
