"""OpenClaw's keyword leg against an FTS5 ``chunks_fts`` table (``manager-search.ts``).

The SQL is OpenClaw's own, so it lives here with the port; it runs on anything with
``execute(sql, params)``: the app's index store (errors mapped to memdesk's), or an
in-memory apsw database from ``core/base/sqlite.py`` (the parity runner; the stdlib
``sqlite3`` here cannot load extensions, apsw ships FTS5 with the trigram tokenizer).
``bm25()`` values are engine-identical to OpenClaw's, so text scores match to float
precision.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from memdesk.core.base.sqlite import Executes

from .config import DEFAULT_HALF_LIFE_DAYS
from .decay import apply_temporal_decay
from .fts_query import escape_like_pattern, plan_keyword_search
from .hybrid import bm25_rank_to_score
from .ids import FTS_ONLY_MODEL
from .keywords import extract_keywords
from .text import js_lower, js_trim, truncate_utf16_safe, utf16_len, word_tokens

SNIPPET_MAX_CHARS = 700


def chunks_fts_ddl(tokenizer: str = "unicode61") -> str:
    """``CREATE VIRTUAL TABLE chunks_fts`` exactly as OpenClaw declares it."""
    tokenize = ", tokenize='trigram case_sensitive 0'" if tokenizer == "trigram" else ""
    return (
        "CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(text, id UNINDEXED, "
        "path UNINDEXED, source UNINDEXED, model UNINDEXED, start_line UNINDEXED, "
        f"end_line UNINDEXED{tokenize})"
    )


def score_fallback_keyword_result(query: str, path: str, text: str, fts_score: float) -> float:
    """``scoreFallbackKeywordResult``: lexical boost used only in FTS-only mode.

    ``min(1, fts + 0.45*coverage + 0.2*density + 0.18*pathHits + min(len/160, 0.18))``
    where coverage/density count unique lowercase query tokens found among the
    text's tokens. A query without word tokens returns ``fts_score`` unchanged.
    """
    return _fallback_score(_query_tokens(query), path, text, lower_token_set(text), fts_score)


def _query_tokens(query: str) -> list[str]:
    return list(dict.fromkeys(js_lower(t) for t in word_tokens(query)))


def _fallback_score(
    query_tokens: Sequence[str], path: str, text: str, text_tokens: frozenset[str], fts_score: float
) -> float:
    if not query_tokens:
        return fts_score
    overlap = sum(1 for t in query_tokens if t in text_tokens)
    coverage = overlap / len(query_tokens)
    density = overlap / max(len(text_tokens), 1)
    lower_path = js_lower(path)
    path_boost = sum(0.18 for t in query_tokens if t in lower_path)
    length_boost = min(utf16_len(text) / 160, 0.18)
    # Same association as OpenClaw (boost summed first) so the float is bit-identical.
    lexical_boost = coverage * 0.45 + density * 0.2 + path_boost + length_boost
    return min(1.0, fts_score + lexical_boost)


def lower_token_set(text: str) -> frozenset[str]:
    """The distinct lower-cased word tokens of ``text`` (what the fallback boost counts)."""
    return frozenset(sys.intern(js_lower(t)) for t in word_tokens(text))


# (chunk id, text) -> ``lower_token_set(text)``: FTS-only search scores every candidate
# row (up to 4x max results, again per extracted keyword when the whole query finds
# nothing), so a caller that keeps an index passes the token sets it keeps per chunk
# (``runner_2026_4.Index.token_set``) instead of re-tokenizing every hit's whole text
# (~7 s a SciFact query).
TokenSets = Callable[[str, str], frozenset[str]]


@dataclass(frozen=True)
class KeywordRow:
    """One keyword-leg hit. ``rank`` is raw ``bm25()`` (0 for LIKE-only plans)."""

    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    snippet: str
    text: str
    rank: float
    text_score: float
    score: float


def search_keyword(
    conn: Executes,
    query: str,
    limit: int,
    *,
    fts_tokenizer: str = "unicode61",
    model: str | None = None,
    sources: Sequence[str] | None = None,
    boost_fallback_ranking: bool = False,
    snippet_max_chars: int = SNIPPET_MAX_CHARS,
    legacy_bm25: bool = False,
    token_sets: TokenSets | None = None,
) -> list[KeywordRow]:
    """OpenClaw's ``searchKeyword``: FTS5 MATCH (+LIKE terms), ordered by bm25 ascending.

    ``model`` adds ``AND model = ?`` (hybrid mode; FTS-only mode passes None).
    Rows come back in SQL order; the boost (FTS-only mode) changes ``score``
    but does not re-sort. ``text_score`` is forced to 1 when there is no MATCH.
    """
    if limit <= 0:
        return []
    plan = plan_keyword_search(query, fts_tokenizer)
    if plan.match_query is None and not plan.substring_terms:
        return []
    clauses: list[str] = []
    params: list[object] = []
    if plan.match_query is not None:
        rank_expr = "bm25(chunks_fts)"
        clauses.append("chunks_fts MATCH ?")
        params.append(plan.match_query)
    else:
        rank_expr = "0"
    for term in plan.substring_terms:
        clauses.append("text LIKE ? ESCAPE '\\'")
        params.append(f"%{escape_like_pattern(term)}%")
    if model is not None:
        clauses.append("model = ?")
        params.append(model)
    if sources:
        clauses.append(f"source IN ({', '.join('?' for _ in sources)})")
        params.extend(sources)
    sql = (
        f"SELECT id, path, source, start_line, end_line, text, {rank_expr} AS rank "
        f"FROM chunks_fts WHERE {' AND '.join(clauses)} ORDER BY rank ASC LIMIT ?"
    )
    params.append(int(limit))
    query_tokens = _query_tokens(query) if boost_fallback_ranking else []
    rows: list[KeywordRow] = []
    for row_id, path, source, start_line, end_line, text, rank in conn.execute(sql, params):
        rank_f = float(rank)
        text_score = 1.0 if plan.match_query is None else bm25_rank_to_score(rank_f, legacy=legacy_bm25)
        text_s = str(text)
        score = text_score
        if boost_fallback_ranking and query_tokens:
            words = token_sets(str(row_id), text_s) if token_sets is not None else lower_token_set(text_s)
            score = _fallback_score(query_tokens, str(path), text_s, words, text_score)
        rows.append(
            KeywordRow(
                id=str(row_id),
                path=str(path),
                source=str(source),
                start_line=int(start_line),
                end_line=int(end_line),
                snippet=truncate_utf16_safe(text_s, snippet_max_chars),
                text=text_s,
                rank=rank_f,
                text_score=text_score,
                score=score,
            )
        )
    return rows


def fts_only_candidates(
    conn: Executes,
    query: str,
    candidates: int,
    *,
    fts_tokenizer: str = "unicode61",
    sources: Sequence[str] | None = None,
    token_sets: TokenSets | None = None,
) -> list[KeywordRow]:
    """The candidate rows of FTS-only search, before decay and the minScore cut.

    Full query first (boosted); if it finds nothing, one boosted search per
    extracted keyword, merged by id keeping the max score. Each per-keyword search
    scores its boost against that keyword (it is the query that call receives).
    """
    cleaned = js_trim(query)
    if not cleaned:
        return []
    hits = search_keyword(
        conn,
        cleaned,
        candidates,
        fts_tokenizer=fts_tokenizer,
        sources=sources,
        boost_fallback_ranking=True,
        token_sets=token_sets,
    )
    if hits:
        return hits
    best: dict[str, KeywordRow] = {}
    for keyword in extract_keywords(cleaned, fts_tokenizer) or [cleaned]:
        for row in search_keyword(
            conn,
            keyword,
            candidates,
            fts_tokenizer=fts_tokenizer,
            sources=sources,
            boost_fallback_ranking=True,
            token_sets=token_sets,
        ):
            prev = best.get(row.id)
            if prev is None or row.score > prev.score:
                best[row.id] = row
    return list(best.values())


def search_fts_only(
    conn: Executes,
    query: str,
    *,
    max_results: int,
    min_score: float,
    candidates: int,
    fts_tokenizer: str = "unicode61",
    sources: Sequence[str] | None = None,
    decay_enabled: bool = False,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
    now_ms: float | None = None,
    workspace_dir: str | None = None,
) -> list[KeywordRow]:
    """FTS-only search (no embedding provider), ANCHOR flow of §7.2.

    Full query first (boosted); if it finds nothing, one boosted search per
    extracted keyword, merged by id keeping the max score. Then decay, sort,
    ``score >= minScore``, and if nothing qualifies the top ``maxResults`` anyway.
    No MMR, no model filter. Each per-keyword search scores its boost against
    that keyword (it is the query that search call receives).
    """
    hits = fts_only_candidates(conn, query, candidates, fts_tokenizer=fts_tokenizer, sources=sources)
    if decay_enabled:
        if now_ms is None:
            raise ValueError("now_ms is required when temporal decay is enabled")
        hits = apply_temporal_decay(
            hits, enabled=True, half_life_days=half_life_days, now_ms=now_ms, workspace_dir=workspace_dir
        )
    return select_fts_only(hits, max_results=max_results, min_score=min_score)


class _Scored(Protocol):
    @property
    def score(self) -> float: ...


R = TypeVar("R", bound=_Scored)


def select_fts_only(rows: Sequence[R], *, max_results: int, min_score: float) -> list[R]:
    """FTS-only search's last step, after decay: a stable sort by score, the
    ``score >= minScore`` rows, and if none qualifies the top ``maxResults`` anyway."""
    ordered = sorted(rows, key=lambda r: -r.score)
    strict = [r for r in ordered if r.score >= min_score]
    return (strict or ordered)[: int(max_results)]


def insert_fts_row(
    conn: Executes,
    *,
    id: str,
    path: str,
    text: str,
    source: str = "memory",
    model: str = FTS_ONLY_MODEL,
    start_line: int = 1,
    end_line: int = 1,
) -> None:
    """Insert one ``chunks_fts`` row (column order as in OpenClaw's schema)."""
    conn.execute(
        "INSERT INTO chunks_fts (text, id, path, source, model, start_line, end_line) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (text, id, path, source, model, start_line, end_line),
    )


__all__ = [
    "SNIPPET_MAX_CHARS",
    "KeywordRow",
    "TokenSets",
    "chunks_fts_ddl",
    "fts_only_candidates",
    "insert_fts_row",
    "lower_token_set",
    "score_fallback_keyword_result",
    "search_fts_only",
    "search_keyword",
    "select_fts_only",
]
