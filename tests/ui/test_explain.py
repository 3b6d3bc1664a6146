"""The explanation pane's wording for hits scored by keywords alone: why the search was
keyword-only, and a hybrid hit whose chunk has no vector yet."""

from __future__ import annotations

import dataclasses
import datetime as dt

from memdesk.core.search import explain as core_explain
from memdesk.core.search import ranking
from memdesk.core.search.hits import Candidate, CandidatePool
from memdesk.core.search.settings import SearchSettings
from memdesk.ui import explain
from tests.pools import candidate

NOW = dt.date(2026, 12, 1)
SETTINGS = SearchSettings.defaults("memdesk")


def _cand(name: str, vector: float | None, text: float, *, keyword_only: bool = False) -> Candidate:
    return candidate(name, vector, text, keyword_only=keyword_only)


def _rows(pool: CandidatePool, name: str) -> dict[str, str]:
    hits = ranking.rank(pool, SETTINGS, now=NOW)
    hit = next(h for h in hits if h.chunk_id == name)
    e = core_explain.explain(hit, SETTINGS, pool.mode, hits=hits, pool=pool, today=NOW)
    return dict(explain.rows(e))


def test_keyword_only_search_says_why(qapp) -> None:  # type: ignore[no-untyped-def]
    """A keyword-only search with a model set blames the embedding under way or the model
    loading, not a missing model."""
    cands = (_cand("a", None, 0.9), _cand("b", None, 0.5))
    base = CandidatePool(query="quokka cluster", mode="fts", profile="memdesk", candidates=cands)
    texts = {
        "busy": _rows(dataclasses.replace(base, embedder_busy=True), "a"),
        "loading": _rows(dataclasses.replace(base, model_loading=True), "a"),
        "none": _rows(base, "a"),
    }
    combined = {k: next(v for t, v in rows.items() if t.startswith("Combined")) for k, rows in texts.items()}
    assert combined["busy"].startswith("keyword-only while notes are being embedded")
    assert combined["loading"].startswith("keyword-only while the embedding model loads")
    assert combined["none"].startswith("keyword-only mode (no embedding model)")


def test_a_hybrid_hit_not_embedded_yet_is_explained_by_its_text_score(qapp) -> None:  # type: ignore[no-untyped-def]
    """Not "0.75 × vector — + 0.25 × text": the ranking scored it by its text alone."""
    pool = CandidatePool(
        query="quokka cluster",
        mode="hybrid",
        profile="memdesk",
        candidates=(_cand("embedded", 0.8, 0.6), _cand("fresh", None, 0.9, keyword_only=True)),
    )
    rows = _rows(pool, "fresh")
    combined = next(v for t, v in rows.items() if t.startswith("Combined 0.900"))
    assert combined.startswith("not embedded yet") and "×" not in combined
    embedded = _rows(pool, "embedded")
    assert any("0.75 × vector 0.80 + 0.25 × text 0.60" in v for v in embedded.values())
