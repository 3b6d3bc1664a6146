"""The keyword legs. memdesk's: OR-joined, stop-word-free terms over the CJK-segmented
index (``MemdeskOptions`` switches each departure from OpenClaw for ablation).
OpenClaw's is the port itself (:mod:`memdesk.core.openclaw.keyword_search`), run on
the store.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from memdesk.core.index.store import Store
from memdesk.core.openclaw import text as oc_text
from memdesk.core.search import lexical


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


def match_expression(terms: list[str], opts: MemdeskOptions) -> str | None:
    """The FTS5 MATCH expression for ``searched_terms``, or None when there are none."""
    return lexical.fts_match_expression(terms, limit=MAX_TERMS, joiner=" OR " if opts.or_terms else " AND ")


def search(
    store: Store, expr: str, limit: int, *, shared_only: bool, opts: MemdeskOptions
) -> list[tuple[int, float]]:
    """(rid, raw BM25 relevance, higher is better) of the best ``limit`` matches."""
    return store.keyword_search(opts.table, expr, limit, shared_only=shared_only)


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
