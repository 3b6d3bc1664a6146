"""``explain`` gives the parts of a hit's score exactly as the ranking used them."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from memdesk.core import engine
from memdesk.core.search import explain, highlight, ranking
from memdesk.core.search.settings import SearchSettings


@pytest.fixture
def fts_engine(example_workspace: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    eng = engine.Engine.open(example_workspace, model=None, db_path=tmp_path / "index.sqlite")
    eng.sync()
    yield eng
    eng.close()


def test_parts_multiply_to_the_final_score(fts_engine) -> None:  # type: ignore[no-untyped-def]
    """Decay in days, the slider weights, the matched words with lines, and what-if ranks."""
    settings = SearchSettings().replace(decay=True, half_life_days=90, mmr=True, mmr_lambda=0.5)
    today = dt.date(2026, 12, 1)
    pool = fts_engine.fetch_candidates("deploy freeze", settings)
    hits = ranking.rank(pool, settings, now=today)
    terms = highlight.KeywordTerms.for_query("deploy freeze")
    for hit in hits:
        e = explain.explain(hit, settings, pool.mode, hits=hits, pool=pool, terms=terms, today=today)
        assert e.final == pytest.approx(e.merged * e.decay + e.recency + e.date_boost - e.same_note_penalty)
        assert (e.vector_weight, e.text_weight) == (settings.vector_weight, settings.text_weight)  # sliders
        if hit.date is not None:
            assert e.decay_state == "dated" and e.age_days == (today - hit.date).days
        else:
            assert e.decay_state == "evergreen"
        assert e.rank_without_mmr == hit.pre_mmr_rank
        plain = ranking.rank(pool, settings.replace(decay=False), now=today)
        expected = next((h.rank for h in plain if h.chunk_id == hit.chunk_id), None)
        assert e.rank_without_decay == expected and e.dropped_without_decay == (expected is None)
        for term in e.matched:
            assert term.text.lower().startswith(("deploy", "freez"))
            lines = hit.text.splitlines()
            for line in term.lines:
                assert term.text.lower() in lines[line - hit.start_line].lower()  # case folded


def test_decay_off_and_mmr_off(fts_engine) -> None:  # type: ignore[no-untyped-def]
    settings = SearchSettings().replace(decay=False, mmr=False)
    pool = fts_engine.fetch_candidates("Atlas database", settings)
    hit = ranking.rank(pool, settings)[0]
    e = explain.explain(hit, settings, pool.mode, pool=pool)
    assert e.decay_state == "off" and e.rank_without_decay is None and not e.dropped_without_decay
    assert e.mmr_lambda is None and e.rank_without_mmr is None
    assert e.matched == ()  # no terms given, nothing claimed to match
