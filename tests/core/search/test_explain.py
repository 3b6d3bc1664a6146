"""``explain`` gives the parts of a hit's score exactly as the ranking used them."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from memdesk.core import engine
from memdesk.core.search import explain, explain_text, highlight, ranking
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


def _dialog_workspace(root: Path) -> Path:
    """Five days of one speaker's lines: "tim" is in every chunk, each topic in one."""
    (root / "memory").mkdir(parents=True)
    topics = ["hiking trip", "pottery class", "violin lessons", "garden tomatoes", "dog shelter"]
    for day, topic in enumerate(topics, 1):
        lines = "\n".join(f"- Tim: today was about the {topic}, part {n}." for n in range(3))
        (root / "memory" / f"2023-05-0{day}.md").write_text(
            f"# 2023-05-0{day}\n\n{lines}\n", encoding="utf-8"
        )
    return root


def test_text_score_scaled_by_the_share_of_words_searched(tmp_path: Path, minilm_path: Path) -> None:
    """A hybrid hit whose keyword leg left out a word in half the notes or more says by
    how much its text score was scaled, and why; with every word searched, nothing new."""
    root = _dialog_workspace(tmp_path / "workspace")
    eng = engine.Engine.open(root, model=minilm_path, db_path=tmp_path / "index.sqlite")
    try:
        eng.sync()
        settings = SearchSettings.defaults("memdesk")
        today = dt.date(2023, 5, 6)
        query = "Tim pottery class"  # "tim" is in every chunk
        fts = {c.chunk_id: c.text_score for c in eng.fetch_candidates(query, settings, mode="fts").candidates}
        pool = eng.fetch_candidates(query, settings, mode="hybrid")
        hits = ranking.rank(pool, settings, now=today)
        matched = [h for h in hits if h.text_score]
        assert matched
        for hit in matched:
            e = explain.explain(hit, settings, pool.mode, hits=hits, pool=pool, today=today)
            assert (e.keyword_searched, e.keyword_asked, e.keyword_left_out) == (2, 3, ("tim",))
            assert e.text == pytest.approx(e.text_share * (fts[hit.chunk_id] or 0.0))  # the ranking's factor
            rows = explain_text.rows(e)
            text_row = next(i for i, (title, _) in enumerate(rows) if title.startswith("Text 0"))
            assert rows[text_row + 1] == (
                "Text ×2/3",
                "2 of 3 query words searched (“tim” is in half the notes or more); already in the text score above",
            )
            assert list(e.to_json()["keyword_left_out"]) == ["tim"]  # in --explain --json too
        for hit in (h for h in hits if not h.text_score):  # the factor changed nothing there
            e = explain.explain(hit, settings, pool.mode, hits=hits, pool=pool, today=today)
            assert not any(title.startswith("Text ×") for title, _ in explain_text.rows(e))
        # Every word searched: no factor, no row.
        pool = eng.fetch_candidates("pottery class", settings, mode="hybrid")
        hits = ranking.rank(pool, settings, now=today)
        assert any(h.text_score for h in hits)
        for hit in hits:
            e = explain.explain(hit, settings, pool.mode, hits=hits, pool=pool, today=today)
            assert e.text_share == 1.0 and e.keyword_left_out == ()
            assert not any(title.startswith("Text ×") for title, _ in explain_text.rows(e))
    finally:
        eng.close()
