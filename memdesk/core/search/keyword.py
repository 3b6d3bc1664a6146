"""The keyword legs. memdesk's: OR-joined, stop-word-free terms over the CJK-segmented
index (``MemdeskOptions`` switches each departure from OpenClaw for ablation).
OpenClaw's is the port itself (:mod:`memdesk.core.openclaw.keyword_search`), run on
the store.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from memdesk.core.base import lexical
from memdesk.core.index.store import KeywordSplit, Store
from memdesk.core.openclaw import text as oc_text


@dataclasses.dataclass(frozen=True)
class MemdeskOptions:
    """The memdesk profile's departures from OpenClaw, each switchable for ablation.

    ``docs/quality.md`` measures each one; the defaults are the measured best.
    """

    segmented_index: bool = True  # CJK uni+bigram index (False: OpenClaw's unicode61 table)
    or_terms: bool = True  # OR the query terms (False: AND, as OpenClaw)
    stop_words: bool = True  # drop stop words from keyword queries
    complete_vector: bool = True  # a keyword-only hit gets its real cosine, not 0
    complete_text: bool = False  # a vector-only hit gets its real BM25, not 0
    # "saturate": r / (1 + r) as OpenClaw (with OR queries r is a sum over matched
    # terms, so strong multi-term matches approach 1); "max": r / best r in the pool.
    # Saturation measured better on every dev set (docs/quality.md).
    text_norm: str = "saturate"
    # A chunk's cosine is the best of its own and its passage windows' (line-per-item
    # notes only, ``index/windows.py``); False: the chunk vector alone, as OpenClaw.
    window_vectors: bool = True
    # With windows on: the line-pair windows too (False: the packed windows alone).
    line_pairs: bool = True

    @property
    def table(self) -> str:
        return "chunks_fts_seg" if self.segmented_index else "chunks_fts"


def query_terms(query: str, opts: MemdeskOptions) -> list[str]:
    """The keyword terms memdesk's leg searches for in ``query``."""
    terms = (
        lexical.query_terms(query) if opts.stop_words else lexical.query_terms(query, stop_words=frozenset())
    )
    if not opts.segmented_index:
        terms = list(oc_text.word_tokens(query))
    return terms


MAX_TERMS = 64  # longer queries search their first 64 terms: the work stays bounded


def searched_terms(store: Store, terms: list[str], opts: MemdeskOptions) -> list[str]:
    """The terms the leg really matches: ``terms`` without the ones found in half the
    chunks or more (unless nothing else is left), at most ``MAX_TERMS``. Highlights use
    this same list, so a word the leg left out is never marked as matched."""
    if len(terms) > 1 and opts.segmented_index:
        # FTS5 clamps the idf of a term found in half the chunks or more to 1e-6:
        # such a term cannot change the BM25 order, yet it makes FTS5 score nearly
        # every row. Leave it out unless nothing else is left.
        total, freq = store.document_frequencies(terms)
        kept = [t for t in terms if 2 * freq.get(t, 0) < total]
        terms = kept or terms
    return [t for t in terms if t.replace('"', "")][:MAX_TERMS]


def searched_share(terms: Sequence[str], searched: Sequence[str]) -> float:
    """The share of the query's keyword ``terms`` that the leg really searches
    (``searched_terms``: the others are in half the chunks or more), in (0, 1].

    A hybrid search weighs its keyword score by it: a word found in half the notes
    says nothing about which note answers (in a conversation, the speakers' names are
    in every chunk), so when most of a question's words are such words the keyword leg
    has seen only a little of the question and its score counts for as much less.
    Measured on LoCoMo dev: every conversation gains (docs/quality.md, session 11).
    """
    if not terms or not searched:
        return 1.0
    return min(1.0, len(set(searched)) / len(set(terms)))


def match_expression(terms: list[str], opts: MemdeskOptions) -> str | None:
    """The FTS5 MATCH expression for ``searched_terms``, or None when there are none."""
    return lexical.fts_match_expression(terms, limit=MAX_TERMS, joiner=" OR " if opts.or_terms else " AND ")


# A term in at least this share of the chunks is "common": an OR query that has rarer
# terms too is answered in two stages (``Store.keyword_search``), the common terms
# scored only on the rare terms' rows. At 100k chunks a term in 40% of them costs
# FTS5 ~30 ms to score on every row; two stages take ~5 ms.
COMMON_SHARE = 1 / 32
# Two stages pay only when the rare terms' rows are far fewer than the common ones'.
RARE_ROWS_AT_MOST = 1 / 4
# FTS5's BM25 (k1 = 1.2, b = 0.75): one term adds at most idf * (k1 + 1) to a row's
# relevance, however often it occurs (its tf factor approaches k1 + 1 from below).
BM25_K1 = 1.2


def _fts5_idf(rows: int, hits: int) -> float:
    """FTS5's own idf (fts5_aux.c): log((N - n + 0.5) / (n + 0.5)), at least 1e-6."""
    idf = math.log((rows - hits + 0.5) / (hits + 0.5))
    return idf if idf > 0 else 1e-6


def query_plan(
    store: Store, terms: list[str], opts: MemdeskOptions
) -> tuple[str | None, KeywordSplit | None]:
    """The MATCH expression for ``searched_terms`` and, when some terms are common and
    others rare, the two-stage split of it (same rows, same scores; rarest terms first
    in both, so BM25 adds them in the same order)."""
    expr = match_expression(terms, opts)
    if expr is None or not (opts.segmented_index and opts.or_terms) or len(terms) < 2:
        return expr, None
    terms = [t for t in terms if t.replace('"', "")][:MAX_TERMS]
    _, rows, stats = store.term_statistics(terms)
    state = store.term_statistics_state()
    # Only a one-token term has the idf of its own row count; a phrase's may be higher.
    common = {t for t in terms if stats[t][1] == 1 and stats[t][0] >= rows * COMMON_SHARE}
    rare = [t for t in terms if t not in common]
    if not common or not rare or state is None:
        return expr, None
    if sum(stats[t][0] for t in rare) > RARE_ROWS_AT_MOST * sum(stats[t][0] for t in common):
        return expr, None
    ordered = sorted(terms, key=lambda t: stats[t][0])  # stable: ties keep the query's order
    bound = sum(_fts5_idf(rows, stats[t][0]) * (BM25_K1 + 1.0) for t in common)
    rare_expr = match_expression([t for t in ordered if t not in common], opts)
    common_expr = match_expression([t for t in ordered if t in common], opts)
    assert rare_expr is not None and common_expr is not None
    # The margin covers float rounding in the sums (relative ~1e-15), with room to spare.
    split = KeywordSplit(rare_expr, common_expr, bound * (1 + 1e-9) + 1e-12, state)
    return match_expression(ordered, opts), split


def search(
    store: Store,
    expr: str,
    limit: int,
    *,
    shared_only: bool,
    opts: MemdeskOptions,
    split: KeywordSplit | None = None,
) -> list[tuple[int, float]]:
    """(rid, raw BM25 relevance, higher is better) of the best ``limit`` matches."""
    return store.keyword_search(opts.table, expr, limit, shared_only=shared_only, split=split)


def complete(store: Store, expr: str, rids: Sequence[int], opts: MemdeskOptions) -> dict[int, float]:
    """Raw BM25 relevance of chunks the keyword leg did not return (absent: no match)."""
    out: dict[int, float] = {}
    for rid in rids:
        score = store.keyword_score_of(opts.table, expr, rid)
        if score is not None:
            out[rid] = score
    return out


def normalise(raw: float, best: float, opts: MemdeskOptions) -> float:
    """A raw BM25 relevance as a text score in [0, 1]."""
    if opts.text_norm == "saturate":
        return raw / (1.0 + raw) if raw > 0 else 0.0
    return raw / best if best > 0 else 0.0
