"""Candidate-pool assembly: run a profile's keyword and vector legs once, keep every score.

The pool is what ``ranking.rank`` re-ranks without I/O. Its order matters: vector
hits first, then keyword-only hits, as OpenClaw's merge inserts them.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memdesk.core import errors
from memdesk.core.embed.embedder import Embedder
from memdesk.core.index import windows, workspace
from memdesk.core.index.store import Store
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.core.openclaw import keyword_search as oc_kw
from memdesk.core.openclaw import text as oc_text
from memdesk.core.search import dates, keyword, vector
from memdesk.core.search.hits import Candidate, Mode, RankedParts
from memdesk.core.search.keyword import MemdeskOptions
from memdesk.core.search.profiles import runner_2026_4 as profile_2026_4
from memdesk.core.search.profiles import runner_2026_9 as profile_2026_9
from memdesk.core.search.vector import Scope, Timings, VectorLeg

if TYPE_CHECKING:
    from memdesk.core.search.profiles.base import RankingProfile

SNIPPET_UTF16 = 700  # OpenClaw's snippet length
MAX_QUERY_CHARS = 10_000  # longer queries are cut: nobody types more, and FTS work stays bounded
ChunkRow = tuple[Any, ...]  # (id, path, source, start_line, end_line, text[, stored MMR tokens])


@dataclasses.dataclass
class Legs:
    """What every profile's legs need from the engine for one query."""

    store: Store
    workspace: Path
    embedder: Embedder | None
    vectors: VectorLeg
    generation: int
    # Called when the model's lazy load fails during the query: the engine drops to
    # keyword-only; this query runs on without a vector leg.
    on_embedder_failed: Callable[[errors.EmbedderUnavailable], None]
    # Set by the pool function: the terms its keyword leg matched (highlights use them).
    keyword_terms: tuple[str, ...] = ()
    # Set by memdesk's pool function in a hybrid search: the terms before the common ones
    # were left out (its text scores count for the share of them searched).
    keyword_asked: tuple[str, ...] = ()
    # Set by the pool function: one line to show with the results (e.g. why there are none).
    notice: str | None = None
    # Set by an OpenClaw profile's pool function when that release's own index holds
    # nothing (its reindex fails, ``notice`` says why): no leg searched anything.
    index_failed: bool = False

    def embed_query(self, q: str, timings: Timings) -> np.ndarray | None:
        if self.embedder is None:
            return None
        try:
            return vector.embed_query(self.embedder, q, timings)
        except errors.EmbedderUnavailable as exc:  # the lazy load failed: keyword-only
            self.on_embedder_failed(exc)
            self.embedder = None
            return None

    def vector_hits(
        self, qvec: np.ndarray, limit: int, scope: Scope, timings: Timings
    ) -> list[tuple[int, float]]:
        assert self.embedder is not None
        return self.vectors.search(
            self.store, self.embedder.identity, qvec, limit, scope, self.generation, timings
        )

    def candidate(
        self, row: ChunkRow, profile: RankingProfile, vector_score: float | None, text: float | None
    ) -> Candidate:
        cid, path, source, start, end, body = row[:6]
        body_s = str(body)
        return Candidate(
            chunk_id=str(cid),
            path=str(path),
            source=str(source),
            start_line=int(start),
            end_line=int(end),
            text=body_s,
            snippet=oc_text.truncate_utf16_safe(body_s, SNIPPET_UTF16),
            vector_score=vector_score,
            text_score=text,
            date=profile.decay_date(str(path), self.workspace, str(source)),
            mmr_tokens=row[6] if len(row) > 6 else None,
        )


def openclaw_terms(q: str) -> tuple[str, ...]:
    """The words OpenClaw's keyword legs search for (its word tokens, trimmed)."""
    return tuple(t for t in (w.strip() for w in oc_text.word_tokens(q)) if t)


def _keyword_row(r: oc_kw.KeywordRow) -> ChunkRow:
    return (r.id, r.path, r.source, r.start_line, r.end_line, r.text)


def reindex_fails_notice(version: str, failure: Any) -> str:
    """What the profile says when the agent's own reindex fails (``embed_recipe.OverContext``)."""
    return msg(
        QT_TRANSLATE_NOOP(
            "core",
            "OpenClaw {version} cannot index this workspace with this model: a chunk is {tokens} "
            "tokens, over its {context}-token context, so the agent's reindex fails and its "
            "memory search finds nothing",
        ),
        version=version,
        tokens=failure.tokens,
        context=failure.context,
    )


def openclaw_pool(
    profile: RankingProfile,
    legs: Legs,
    runner: profile_2026_4.Runner,
    embed_lock: threading.RLock,
    q: str,
    limit: int,
    scope: Scope,
    mode: Mode,
    timings: Timings,
) -> list[Candidate]:
    """OpenClaw 2026.4's legs over its own index of the workspace (``profiles/runner_2026_4``):
    its keyword search (the port's SQL) and its vector leg, embedded as node-llama-cpp does."""
    legs.keyword_terms = openclaw_terms(q) if mode != "vector" else ()

    def in_scope(path: str) -> bool:
        return scope == "all" or workspace.is_shared_scope(path)

    t0 = time.perf_counter()
    base = legs.embedder if mode != "fts" else None
    try:
        index = runner.index(base, legs.store, embed_lock)
    except errors.EmbedderUnavailable as exc:  # the lazy load failed: keyword-only
        legs.on_embedder_failed(exc)
        legs.embedder = base = None
        index = runner.index(None, legs.store, embed_lock)
    timings["index_ms"] = (time.perf_counter() - t0) * 1000
    if runner.failure is not None:
        legs.notice = reindex_fails_notice(profile.openclaw_layout or "", runner.failure)
        legs.index_failed = True
        return []
    # Fetch a little more when filtering by scope afterwards, so the pool stays full.
    extra = 0 if scope == "all" else len(index.chunks)
    conn = index.conn
    if base is None:
        t0 = time.perf_counter()
        rows = oc_kw.fts_only_candidates(
            conn, q, limit + extra, fts_tokenizer=index.tokenizer, token_sets=index.token_set
        )
        timings["keyword_ms"] = (time.perf_counter() - t0) * 1000
        # The whole union: OpenClaw sorts all per-keyword hits before cutting.
        return [legs.candidate(_keyword_row(r), profile, None, r.score) for r in rows if in_scope(r.path)]
    t0 = time.perf_counter()
    kw_rows = (
        []
        if mode == "vector"
        else [
            r
            for r in oc_kw.search_keyword(
                conn, q, limit + extra, fts_tokenizer=index.tokenizer, model=index.model
            )
            if in_scope(r.path)
        ][:limit]
    )
    timings["keyword_ms"] = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    try:
        qvec = runner.query_vector(q, embed_lock)
    except errors.EmbedderUnavailable as exc:
        legs.on_embedder_failed(exc)
        qvec = None
    timings["embed_ms"] = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    vec_hits = (
        index.vector_hits(qvec, limit, None if scope == "all" else in_scope) if qvec is not None else []
    )
    timings["vector_ms"] = (time.perf_counter() - t0) * 1000
    by_id: dict[str, Candidate] = {}
    order: list[str] = []
    for chunk, sim in vec_hits:
        row = (chunk.id, chunk.path, chunk.source, chunk.start_line, chunk.end_line, chunk.text)
        by_id[chunk.id] = legs.candidate(row, profile, sim, None)
        order.append(chunk.id)
    for r in kw_rows:
        if r.id in by_id:
            by_id[r.id] = dataclasses.replace(by_id[r.id], text_score=r.text_score)
        else:
            by_id[r.id] = legs.candidate(_keyword_row(r), profile, None, r.text_score)
            order.append(r.id)
    return [by_id[i] for i in order]


def openclaw_2026_9_pool(
    profile: RankingProfile,
    legs: Legs,
    runner: profile_2026_9.Runner,
    embed_lock: threading.RLock,
    q: str,
    scope: Scope,
    mode: Mode,
    timings: Timings,
    now: dt.date | dt.datetime | None,
) -> list[Candidate]:
    """OpenClaw 2026.9's whole pipeline over its own index of this workspace.

    The candidates come back ranked (``Candidate.ranked``); ``ranking.rank`` only
    applies the release's minScore/maxResults selection.
    """
    from memdesk.core.openclaw import v2026_9

    legs.keyword_terms = openclaw_terms(q) if mode != "vector" else ()
    t0 = time.perf_counter()
    base = legs.embedder if mode != "fts" else None
    searcher = runner.searcher(base, legs.store, embed_lock)
    if runner.failure is not None:
        legs.notice = reindex_fails_notice(profile.openclaw_layout or "", runner.failure)
        legs.index_failed = True
        return []
    qvec = runner.query_vector(q, embed_lock) if base is not None else None
    timings["keyword_ms"] = (time.perf_counter() - t0) * 1000
    timings["pool_size"] = float(v2026_9.CANDIDATE_UNIVERSE)
    kind, ranked = searcher.ranked(
        q,
        now_ms=dates.as_utc_datetime(now).timestamp() * 1000,
        query_vec=qvec,
        vector_only=mode == "vector",
    )
    out = []
    for pos, r in enumerate(ranked, 1):
        if scope != "all" and not workspace.is_shared_scope(r.path):
            continue
        chunk = searcher.index.by_id.get(r.id)
        text = chunk.text if chunk is not None else r.snippet
        out.append(
            Candidate(
                chunk_id=r.id,
                path=r.path,
                source=r.source,
                start_line=r.start_line,
                end_line=r.end_line,
                text=text,
                snippet=r.snippet,
                vector_score=r.vector_score if kind != "fts" else None,
                text_score=r.text_score if r.keyword_hit else None,
                date=profile.decay_date(r.path, legs.workspace, r.source),
                importance=r.importance,
                project_key=r.project_key,
                ranked=RankedParts(
                    score=r.score,
                    merged=r.content_score if kind == "hybrid" else r.score,
                    decay=r.decay,
                    importance_multiplier=r.importance_mult,
                    project_multiplier=r.project_mult,
                    pre_mmr_rank=r.pre_mmr_rank or pos,
                    mmr_rank=pos if kind == "hybrid" and r.exact == 0 else None,
                    keyword_hit=r.keyword_hit,
                    exact_path=r.exact,
                ),
            )
        )
    return out


def memdesk_pool(
    profile: RankingProfile,
    legs: Legs,
    q: str,
    limit: int,
    scope: Scope,
    mode: Mode,
    timings: Timings,
    opts: MemdeskOptions,
) -> list[Candidate]:
    """Both legs over memdesk's segmented keyword index; see ``MemdeskOptions``.

    A keyword-only hit gets its real cosine (cheap, and it shows the user how
    close the vector leg came); a vector-only hit's BM25 stays 0 unless
    ``complete_text`` asks for it (measured: no gain, real cost).
    """
    store = legs.store
    asked = keyword.query_terms(q, opts) if mode != "vector" else []
    terms = keyword.searched_terms(store, asked, opts) if asked else []
    legs.keyword_terms = tuple(terms)
    # In a hybrid search the keyword score counts for the share of the query it searched.
    share = keyword.searched_share(asked, terms) if mode == "hybrid" else 1.0
    legs.keyword_asked = tuple(asked) if mode == "hybrid" else ()
    t0 = time.perf_counter()
    expr, split = keyword.query_plan(store, terms, opts)
    kw = (
        keyword.search(store, expr, limit, shared_only=scope != "all", opts=opts, split=split)
        if expr is not None
        else []
    )
    timings["keyword_ms"] = (time.perf_counter() - t0) * 1000
    qvec = legs.embed_query(q, timings) if mode != "fts" else None
    vec = legs.vector_hits(qvec, limit, scope, timings) if qvec is not None else []
    vec_scores = dict(vec)
    kw_scores = dict(kw)
    order = [rid for rid, _ in vec] + [rid for rid, _ in kw if rid not in vec_scores]
    t0 = time.perf_counter()
    if opts.complete_vector and qvec is not None and legs.embedder is not None:
        missing = [rid for rid in order if rid not in vec_scores]
        vec_scores.update(legs.vectors.cosines(store, legs.embedder.identity, qvec, missing, legs.generation))
    if opts.complete_text and expr is not None:
        kw_scores.update(keyword.complete(store, expr, [rid for rid in order if rid not in kw_scores], opts))
    timings["complete_ms"] = (time.perf_counter() - t0) * 1000
    best = max(kw_scores.values(), default=0.0)
    rows = store.chunk_rows(order)
    if opts.window_vectors and qvec is not None and legs.embedder is not None:
        # Max-passage: a chunk of many short lines scores (most of the way to) its best
        # window when that beats the whole chunk (re-scores the pool; the KNN itself is
        # on chunk vectors).
        t0 = time.perf_counter()
        texts = {rid: str(rows[rid][5]) for rid in order if rid in rows and rid in vec_scores}
        ident = legs.embedder.identity
        by_window = windows.best_window_cosines(store, ident, qvec, texts, pairs=opts.line_pairs)
        for rid, cos in by_window.items():
            vec_scores[rid] = windows.scored_cosine(vec_scores[rid], cos)
        timings["windows_ms"] = (time.perf_counter() - t0) * 1000
    out: list[Candidate] = []
    for rid in order:
        if rid not in rows:
            continue
        text_score = keyword.normalise(kw_scores.get(rid, 0.0), best, opts) if expr is not None else None
        vector_score = vec_scores.get(rid) if qvec is not None else None
        if text_score is not None and vector_score is not None:
            # Not a keyword-only hit (scored by its text score alone): see searched_share.
            text_score *= share
        cand = legs.candidate(rows[rid], profile, vector_score, text_score)
        if vector_score is None and qvec is not None and opts.complete_vector:
            # The completion found no vector: the chunk is not embedded yet.
            cand = dataclasses.replace(cand, keyword_only=True)
        out.append(cand)
    return out
