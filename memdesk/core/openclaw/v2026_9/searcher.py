"""``MemorySearchOrchestration.search``: both legs over an :class:`Index`, then the ranking.

The keyword leg is the body FTS (bm25 plus the lexical boost), the path FTS with its
exact tiers, and the extracted-keyword fallback; the vector leg a cosine scan.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from memdesk.core import errors
from memdesk.core.base import sqlite

from .. import keywords as oc_keywords
from ..fts_query import build_fts_query, quote_terms
from ..hybrid import bm25_rank_to_score
from ..text import js_trim, truncate_utf16_safe, utf16_len, word_tokens
from .constants import (
    CANDIDATE_UNIVERSE,
    EXACT_PATH_CANDIDATE_LIMIT,
    KEYWORD_FALLBACK_TERM_LIMIT,
    MAX_RESULTS,
    MIN_SCORE,
    SNIPPET_MAX_CHARS,
)
from .index import Index, IndexedChunk
from .keyword_hits import KeywordHit, compare_keyword_hits, compare_path_hits
from .order import js_sorted
from .query import (
    contains_ci,
    exact_path_matcher,
    plan_keyword_search,
    score_fallback_keyword_result,
    search_tokens_lower,
)
from .ranking import merge_hybrid, rank_keyword_only, rank_vector_only
from .results import Result, select


class Searcher:
    """``MemorySearchOrchestration.search`` over an :class:`Index`."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.conn = index.conn

    # body FTS
    def _search_body(self, query: str, limit: int, ranking_query: str | None = None) -> list[KeywordHit]:
        match, terms = plan_keyword_search(query, self.index.tokenizer)
        if match is None and not terms:
            return []
        try:
            rows = self._body_rows(match, terms, limit)
        except errors.QueryRejected:
            return []  # OpenClaw falls back to a substring scan here; not reproduced
        q_tokens = list(
            dict.fromkeys(search_tokens_lower(ranking_query if ranking_query is not None else query))
        )
        out = []
        for cid, path, source, start, end, text, rank in rows:
            ts = bm25_rank_to_score(float(rank)) if match is not None else 0.0
            score = score_fallback_keyword_result(q_tokens, str(path), str(text), ts)
            out.append(
                KeywordHit(
                    str(cid),
                    str(path),
                    str(source),
                    int(start),
                    int(end),
                    score,
                    ts,
                    0.0,
                    0,
                    True,
                    truncate_utf16_safe(str(text), SNIPPET_MAX_CHARS),
                )
            )
        return out

    def _body_rows(self, match: str | None, terms: Sequence[str], limit: int) -> list[tuple[Any, ...]]:
        """``searchKeyword``'s SELECT: MATCH ordered by bm25 (or, with no term of 3+
        characters in trigram mode, every row in table order, rank 0), each short term
        a case-insensitive substring filter on the NFC text, then ``LIMIT``."""
        cols = "id, path, source, start_line, end_line, text"
        if match is not None:
            cur = sqlite.each(
                self.conn,
                f"SELECT {cols}, memory_index_chunks_fts.rank AS rank FROM memory_index_chunks_fts "
                "WHERE memory_index_chunks_fts MATCH ? AND memory_index_chunks_fts.rank MATCH 'bm25()' "
                "ORDER BY rank ASC",
                (match,),
            )
        else:
            cur = sqlite.each(self.conn, f"SELECT {cols}, 0 AS rank FROM memory_index_chunks_fts")
        out: list[tuple[Any, ...]] = []
        for row in cur:
            if all(contains_ci(str(row[5]), t) for t in terms):
                out.append(row)
                if len(out) >= limit:
                    break
        return out

    def _first_chunk(self, path: str) -> IndexedChunk | None:
        best = None
        for c in self.index.chunks:
            if c.path == path and (
                best is None or (c.start_line, c.end_line, c.id) < (best.start_line, best.end_line, best.id)
            ):
                best = c
        return best

    # path FTS (unicode61 plans only)
    def _search_path(self, query: str, limit: int, exact_query: str) -> list[KeywordHit]:
        matcher = exact_path_matcher(exact_query)
        live = list(dict.fromkeys(c.path for c in self.index.chunks))
        exact_paths = sorted(((matcher(p), p) for p in live if matcher(p) > 0), key=lambda t: (-t[0], t[1]))
        exact: dict[str, KeywordHit] = {}
        for spec, p in exact_paths[:EXACT_PATH_CANDIDATE_LIMIT]:
            c = self._first_chunk(p)
            if c is not None:
                exact[c.id] = KeywordHit(
                    c.id,
                    p,
                    "memory",
                    c.start_line,
                    c.end_line,
                    0.0,
                    0.0,
                    0.0,
                    spec,
                    False,
                    truncate_utf16_safe(c.text, SNIPPET_MAX_CHARS),
                )
        plans: list[tuple[str | None, list[str]]] = []
        seen: set[tuple[str | None, tuple[str, ...]]] = set()

        def add(match: str | None, terms: list[str]) -> None:
            key = (match, tuple(terms))
            if key not in seen:
                seen.add(key)
                plans.append((match, terms))

        if self.index.tokenizer == "trigram":
            for form in dict.fromkeys(
                [unicodedata.normalize("NFC", query), unicodedata.normalize("NFD", query)]
            ):
                add(*plan_keyword_search(form, "trigram", combining_marks=True))
        else:
            add(build_fts_query(query), [])
            for form in dict.fromkeys(
                [unicodedata.normalize("NFC", query), unicodedata.normalize("NFD", query)]
            ):
                tokens = [t for t in (js_trim(t) for t in word_tokens(form, marks=True)) if t]
                subs = [t for t in tokens if not t.isascii()]
                if subs:
                    add(quote_terms([t for t in tokens if t.isascii()]), subs)
        if not any(m or t for m, t in plans):
            return list(exact.values())
        lexical: dict[str, KeywordHit] = {}
        for match, terms in plans:
            if not match and not terms:
                continue
            rows = self._path_rows(match, terms, matcher, limit)
            for path, rank in rows:
                c = self._first_chunk(path)
                if c is None:
                    continue
                ps = bm25_rank_to_score(rank) if match else 1.0
                hit = KeywordHit(
                    c.id,
                    path,
                    "memory",
                    c.start_line,
                    c.end_line,
                    ps,
                    0.0,
                    ps,
                    matcher(path),
                    False,
                    truncate_utf16_safe(c.text, SNIPPET_MAX_CHARS),
                )
                prev = lexical.get(hit.id)
                if prev is None:
                    lexical[hit.id] = hit
                else:
                    prev.path_score = max(prev.path_score, hit.path_score)
                    prev.score = max(prev.score, hit.score)
                    prev.exact = max(prev.exact, hit.exact)
        by_id = dict(exact)
        non_exact = 0
        for hit in js_sorted(list(lexical.values()), compare_path_hits):
            if hit.exact > 0:
                e = by_id.get(hit.id)
                if e is None:
                    continue
                e.path_score = max(e.path_score, hit.path_score)
                e.score = max(e.score, hit.score)
                e.exact = max(e.exact, hit.exact)
                continue
            if non_exact >= limit:
                continue
            by_id[hit.id] = hit
            non_exact += 1
        return js_sorted(list(by_id.values()), compare_path_hits)[: EXACT_PATH_CANDIDATE_LIMIT + limit]

    def _path_rows(
        self, match: str | None, terms: list[str], matcher: Callable[[str], int], limit: int
    ) -> list[tuple[str, float]]:
        live = {c.path for c in self.index.chunks}
        if match:
            try:
                rows = [
                    (str(p), float(r))
                    for p, r in sqlite.rows(
                        self.conn,
                        "SELECT path, bm25(memory_index_paths_fts) FROM memory_index_paths_fts "
                        "WHERE memory_index_paths_fts MATCH ?",
                        (match,),
                    )
                ]
            except errors.QueryRejected:
                return []
        else:
            rows = [(str(p), 0.0) for (p,) in self.conn.execute("SELECT path FROM memory_index_paths_fts")]
        rows = [(p, r) for p, r in rows if p in live and all(contains_ci(p, t) for t in terms)]
        rows.sort(key=lambda t: (t[1], t[0]))
        exact = [t for t in rows if matcher(t[0]) > 0][:EXACT_PATH_CANDIDATE_LIMIT]
        non_exact = [t for t in rows if matcher(t[0]) == 0][:limit]
        return exact + non_exact

    def _merge_keyword(self, sets: Sequence[list[KeywordHit]], exact_query: str) -> list[KeywordHit]:
        matcher = exact_path_matcher(exact_query)
        seen: dict[str, KeywordHit] = {}
        for results in sets:
            for r in results:
                e = seen.get(r.id)
                if e is None:
                    r.exact = matcher(r.path)
                    seen[r.id] = r
                    continue
                e_body = e.score if e.has_body else 0.0
                r_body = r.score if r.has_body else 0.0
                r_has, e_has = r.has_body, e.has_body
                e.text_score = max(e.text_score, r.text_score)
                e.path_score = max(e.path_score, r.path_score)
                e.has_body = e.has_body or r.has_body
                body = max(e_body, r_body)
                e.score = body if body > 0 else e.path_score
                if (r_has and not e_has) or (r_has == e_has and utf16_len(r.snippet) > utf16_len(e.snippet)):
                    e.snippet = r.snippet
        merged = list(seen.values())
        for r in merged:
            if not r.has_body:
                r.score = 1.0 if r.exact > 0 else r.path_score
        return js_sorted(merged, compare_keyword_hits)

    def _limit_keyword(self, results: list[KeywordHit], limit: int) -> list[KeywordHit]:
        ranked = js_sorted(results, compare_keyword_hits)
        exact_body = [e for e in ranked if e.exact > 0 and e.has_body][:limit]
        exact_path = [e for e in ranked if e.exact > 0 and not e.has_body]
        bounded = js_sorted(exact_body + exact_path, compare_keyword_hits)
        keys: set[str] = set()
        for e in bounded:
            keys.add(f"{e.source}:{e.path}")
            if len(keys) == EXACT_PATH_CANDIDATE_LIMIT:
                break
        exact = [e for e in bounded if f"{e.source}:{e.path}" in keys]
        non_exact = [e for e in ranked if e.exact == 0][:limit]
        return exact + non_exact

    def _search_keyword(
        self, query: str, limit: int, *, exact_query: str | None = None, ranking_query: str | None = None
    ) -> list[KeywordHit]:
        eq = exact_query if exact_query is not None else query
        body = self._search_body(query, limit, ranking_query)
        path = self._search_path(query, limit, eq)
        return self._limit_keyword(self._merge_keyword([body, path], eq), limit)

    def keyword_candidates(self, query: str, limit: int = CANDIDATE_UNIVERSE) -> list[KeywordHit]:
        """``searchKeywordWithFallback`` plus the recall metadata join."""
        full = self._search_keyword(query, limit)
        result = full
        if len([r for r in full if r.exact == 0]) < limit:
            lowered = js_trim(query).lower()
            terms = [t for t in oc_keywords.extract_keywords(query, self.index.tokenizer) if t != lowered][
                :KEYWORD_FALLBACK_TERM_LIMIT
            ]
            strict = (build_fts_query(query) or "").lower() or None
            kw = (build_fts_query(" ".join(terms)) or "").lower() or None
            if terms and not (full and strict == kw):
                sets = [self._search_keyword(t, limit, exact_query=query, ranking_query=query) for t in terms]
                result = self._limit_keyword(self._merge_keyword([full, *sets], query), limit)
        for r in result:
            meta = self.index.by_id[r.id].meta
            r.importance, r.project_key, r.triggers = meta.importance, meta.project_key, meta.triggers
        return result

    # vector leg
    def vector_candidates(
        self, query_vec: np.ndarray, limit: int = CANDIDATE_UNIVERSE
    ) -> list[tuple[IndexedChunk, float]]:
        if self.index.vectors is None or not np.any(query_vec):
            return []
        q = np.asarray(query_vec, dtype=np.float64)
        mat = self.index.vectors
        sims = (mat @ q) / np.maximum(np.linalg.norm(mat, axis=1) * np.linalg.norm(q), 1e-300)
        order = np.argsort(-sims, kind="stable")[:limit]
        return [(self.index.chunks[i], float(sims[i])) for i in order]

    # the whole search
    def ranked(
        self,
        query: str,
        *,
        now_ms: float,
        query_vec: np.ndarray | None = None,
        active_projects: Sequence[str] | None = None,
        vector_only: bool = False,
    ) -> tuple[str, list[Result]]:
        """Every candidate in OpenClaw's final order, before the minScore/maxResults selection.

        Returns ``(kind, results)`` with kind ``fts`` (no provider), ``hybrid`` or
        ``vector`` (no keyword leg).
        """
        q = js_trim(query)
        if not q:
            return "fts", []
        active = frozenset(active_projects) if active_projects else None
        if vector_only and query_vec is not None:
            return "vector", rank_vector_only(
                self.vector_candidates(query_vec),
                now_ms=now_ms,
                active=active,
                workspace=self.index.workspace,
                session_mtimes=self.index.session_mtimes,
            )
        keyword = self.keyword_candidates(q)
        if query_vec is None or self.index.vectors is None:
            return "fts", rank_keyword_only(
                keyword,
                now_ms=now_ms,
                active=active,
                workspace=self.index.workspace,
                session_mtimes=self.index.session_mtimes,
            )
        vector = self.vector_candidates(query_vec)
        return "hybrid", merge_hybrid(
            q,
            vector,
            keyword,
            now_ms=now_ms,
            active=active,
            workspace=self.index.workspace,
            session_mtimes=self.index.session_mtimes,
        )

    def search(
        self,
        query: str,
        *,
        now_ms: float,
        query_vec: np.ndarray | None = None,
        max_results: int = MAX_RESULTS,
        min_score: float = MIN_SCORE,
        active_projects: Sequence[str] | None = None,
    ) -> list[Result]:
        """``MemoryIndexManager.search``: the results OpenClaw returns."""
        kind, ranked = self.ranked(query, now_ms=now_ms, query_vec=query_vec, active_projects=active_projects)
        return select(kind, ranked, max_results=max_results, min_score=min_score)
