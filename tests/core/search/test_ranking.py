"""ranking.rank on hand-built pools: merge, decay, the cut, MMR and recency, each checked
against the arithmetic it promises (no I/O: pools are plain values)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
from pathlib import Path

import pytest

from memdesk.core import engine
from memdesk.core.embed.embedder import Embedder
from memdesk.core.search import ranking
from memdesk.core.search.hits import Candidate, CandidatePool
from memdesk.core.search.settings import OPENCLAW_2026_4, SearchSettings

NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
GOLDEN = Path(__file__).resolve().parents[3] / "examples" / "golden.jsonl"


def cand(
    i: int,
    vector: float | None,
    text: float | None,
    *,
    date: dt.date | None = None,
    body: str | None = None,
    keyword_only: bool = False,
) -> Candidate:
    body = body if body is not None else f"note {i} unique{i}"
    return Candidate(
        chunk_id=f"c{i}",
        path=f"memory/n{i}.md",
        source="memory",
        start_line=1,
        end_line=2,
        text=body,
        snippet=body,
        vector_score=vector,
        text_score=text,
        date=date,
        keyword_only=keyword_only,
    )


def pool(
    *cands: Candidate, mode: str = "hybrid", profile: str = "memdesk", query: str = "q"
) -> CandidatePool:
    return CandidatePool(
        query=query, mode=mode, profile=profile, candidates=cands, timings_ms={"pool_size": 50.0}
    )  # type: ignore[arg-type]  # literal modes


PLAIN = SearchSettings.defaults("memdesk").replace(
    mmr=False, decay=False, recency=False, date_boost=0.0, min_score=0.0, max_results=10
)


def test_hybrid_merge_is_the_normalised_weighted_sum() -> None:
    s = PLAIN.replace(vector_weight=0.3, text_weight=0.1)
    hits = ranking.rank(pool(cand(1, 0.8, 0.4), cand(2, 0.2, None)), s, now=NOW)
    assert [h.chunk_id for h in hits] == ["c1", "c2"]
    assert hits[0].merged_score == pytest.approx(0.75 * 0.8 + 0.25 * 0.4)
    assert hits[1].merged_score == pytest.approx(0.75 * 0.2)
    assert [h.rank for h in hits] == [1, 2]


def test_a_chunk_not_embedded_yet_scores_as_keyword_search_does() -> None:
    hits = ranking.rank(pool(cand(1, None, 0.6, keyword_only=True)), PLAIN, now=NOW)
    assert hits[0].score == pytest.approx(0.6)


def test_decay_halves_a_score_per_half_life_and_spares_evergreen_notes() -> None:
    s = PLAIN.replace(decay=True, half_life_days=30)
    old = cand(1, 0.9, 0.9, date=(NOW - dt.timedelta(days=30)).date())
    evergreen = cand(2, 0.6, 0.6)
    hits = {h.chunk_id: h for h in ranking.rank(pool(old, evergreen), s, now=NOW)}
    assert hits["c1"].decay == pytest.approx(0.5)
    assert hits["c1"].score == pytest.approx(hits["c1"].merged_score * 0.5)
    assert hits["c2"].decay == 1.0 and hits["c2"].score == pytest.approx(0.6)
    assert [h.chunk_id for h in ranking.rank(pool(old, evergreen), s, now=NOW)] == ["c2", "c1"]


def test_min_score_and_max_results_cut_the_list() -> None:
    cands = [cand(i, i / 10, None) for i in range(1, 10)]
    hits = ranking.rank(pool(*cands), PLAIN.replace(min_score=0.3, max_results=4, text_weight=0.0), now=NOW)
    assert [h.chunk_id for h in hits] == ["c9", "c8", "c7", "c6"]
    hits = ranking.rank(pool(*cands), PLAIN.replace(min_score=0.75, text_weight=0.0), now=NOW)
    assert [h.chunk_id for h in hits] == ["c9", "c8"]


def test_ties_keep_pool_order() -> None:
    hits = ranking.rank(pool(cand(1, 0.5, None), cand(2, 0.5, None), cand(3, 0.5, None)), PLAIN, now=NOW)
    assert [h.chunk_id for h in hits] == ["c1", "c2", "c3"]


def test_mmr_moves_a_near_duplicate_down() -> None:
    dup = "sqlite vector store decision final"
    cands = (
        cand(1, 0.9, None, body=dup),
        cand(2, 0.89, None, body=dup),
        cand(3, 0.7, None, body="deploy tuesday"),
    )
    off = ranking.rank(pool(*cands), PLAIN, now=NOW)
    on = ranking.rank(pool(*cands), PLAIN.replace(mmr=True, mmr_lambda=0.5), now=NOW)
    assert [h.chunk_id for h in off] == ["c1", "c2", "c3"]
    assert [h.chunk_id for h in on] == ["c1", "c3", "c2"]
    moved = next(h for h in on if h.chunk_id == "c2")
    assert (moved.pre_mmr_rank, moved.mmr_rank, moved.mmr_against) == (2, 3, "c1")
    assert moved.mmr_penalty == pytest.approx(1.0)
    # lambda 1 is a plain sort by score.
    assert [
        h.chunk_id for h in ranking.rank(pool(*cands), PLAIN.replace(mmr=True, mmr_lambda=1.0), now=NOW)
    ] == [
        "c1",
        "c2",
        "c3",
    ]


def test_recency_breaks_near_ties_for_current_state_questions_only() -> None:
    s = PLAIN.replace(recency=True, recency_weight=0.1, half_life_days=30)
    new = cand(1, 0.50, None, date=NOW.date())
    old = cand(2, 0.52, None, date=(NOW - dt.timedelta(days=300)).date())
    asks_now = ranking.rank(pool(old, new, query="what do we use now"), s, now=NOW)
    assert [h.chunk_id for h in asks_now] == ["c1", "c2"]
    assert asks_now[0].recency == pytest.approx(0.1) and asks_now[0].rank_without_recency == 2
    plain = ranking.rank(pool(old, new, query="vector store"), s, now=NOW)
    assert [h.chunk_id for h in plain] == ["c2", "c1"] and all(h.recency == 0 for h in plain)


def test_openclaw_keyword_only_falls_back_to_the_top_when_nothing_clears_min_score() -> None:
    s = SearchSettings.defaults(OPENCLAW_2026_4).replace(min_score=0.9, max_results=2)
    cands = (cand(1, None, 0.3), cand(2, None, 0.5), cand(3, None, 0.1))
    hits = ranking.rank(pool(*cands, mode="fts", profile=OPENCLAW_2026_4), s, now=NOW)
    assert [h.chunk_id for h in hits] == ["c2", "c1"]
    # memdesk returns nothing rather than hits below the bar.
    memdesk = PLAIN.replace(min_score=0.9)
    assert ranking.rank(pool(*cands, mode="fts"), memdesk, now=NOW) == []


def test_pool_satisfies() -> None:
    p = pool(cand(1, 0.5, None))
    assert ranking.pool_satisfies(p, PLAIN.replace(max_results=10, candidate_multiplier=5))
    assert not ranking.pool_satisfies(p, PLAIN.replace(max_results=20, candidate_multiplier=5))
    assert not ranking.pool_satisfies(p, SearchSettings.defaults(OPENCLAW_2026_4))


def chunk_of(note: str, k: int, vector: float) -> Candidate:
    return Candidate(
        chunk_id=f"{note}#{k}",
        path=f"memory/{note}.md",
        source="memory",
        start_line=1 + 10 * k,
        end_line=12 + 10 * k,
        text=f"{note} part {k}",
        snippet=f"{note} part {k}",
        vector_score=vector,
        text_score=None,
        date=None,
    )


def test_a_second_chunk_of_a_note_ranks_after_a_near_tie_from_another_note() -> None:
    s = PLAIN.replace(same_note_penalty=0.02)
    p = pool(chunk_of("a", 0, 0.80), chunk_of("a", 1, 0.79), chunk_of("b", 0, 0.785))
    hits = ranking.rank(p, s, now=NOW)
    assert [h.chunk_id for h in hits] == ["a#0", "b#0", "a#1"]
    assert [h.same_note_penalty for h in hits] == [0.0, 0.0, 0.02]
    assert hits[2].score == pytest.approx(hits[2].merged_score - 0.02)
    # Off (and under OpenClaw's profile, which has no such rule): plain score order.
    for off, profile in ((s.replace(same_note_penalty=0.0), "memdesk"), (s, OPENCLAW_2026_4)):
        plain = ranking.rank(dataclasses.replace(p, profile=profile), off, now=NOW)
        assert [h.chunk_id for h in plain] == ["a#0", "a#1", "b#0"]
        assert all(h.same_note_penalty == 0 for h in plain)


def test_the_same_note_penalty_is_bounded_on_random_pools() -> None:
    rng = random.Random(11)
    s = PLAIN.replace(same_note_penalty=0.02, max_results=100)
    for _ in range(200):
        cands = [chunk_of(f"n{rng.randrange(5)}", k, rng.random()) for k in range(15)]
        hits = ranking.rank(pool(*cands), s, now=NOW)
        best = {}
        for h in hits:
            best.setdefault(h.path, h)
            # The first (best) chunk of each note is never penalised, every later one is.
            assert h.same_note_penalty == (0.0 if best[h.path] is h else 0.02)
        for i, a in enumerate(hits):
            for b in hits[i + 1 :]:
                # Nothing moves past a hit it trailed by more than the penalty, and a
                # note's own chunks keep their order.
                assert b.merged_score <= a.merged_score + 0.02 + 1e-12
                if a.path == b.path:
                    assert b.merged_score <= a.merged_score


def test_lazy_mmr_ranks_the_example_workspace_as_the_full_selection(
    example_workspace: Path, tmp_path: Path, minilm_embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On real notes, a real model and a real index, the lazy MMR over the index's stored
    tokens returns exactly the hits (every field, scores bit for bit) of the full selection
    over the whole head tokenized from the texts, for the golden queries under several
    cuts, lambdas, min scores and modes."""
    eng = engine.Engine(example_workspace, embedder=minilm_embedder, db_path=tmp_path / "index.sqlite")
    try:
        eng.sync()
        queries = [json.loads(line)["query"] for line in GOLDEN.read_text(encoding="utf-8").splitlines()]
        base = SearchSettings.defaults("memdesk")
        variants = [
            base,
            base.replace(max_results=3),
            base.replace(max_results=25, mmr_lambda=0.5),
            base.replace(min_score=0.35, mmr_lambda=0.7),
            base.replace(decay=True, half_life_days=30),
        ]
        pools = [
            (eng.fetch_candidates(q, s, mode=mode, now=NOW), s)
            for q in queries
            for s in variants
            for mode in ("hybrid", "fts", "vector")
        ]
    finally:
        eng.close()
    assert max(len(p.candidates) for p, _ in pools) > 30  # the head window is filled
    # The lazy path reads the tokens the index stored; the full one tokenizes the texts.
    assert all(c.mmr_tokens is not None for p, _ in pools for c in p.candidates)
    lazy = [ranking.rank(p, s, now=NOW) for p, s in pools]
    monkeypatch.setattr(ranking, "LAZY_MMR", False)
    full = [ranking.rank(p, s, now=NOW) for p, s in pools]
    assert lazy == full
    assert sum(len(h) for h in lazy) > 5 * len(pools)
    moved = sum(any(h.mmr_rank != h.pre_mmr_rank for h in hits) for hits in lazy)
    assert moved > len(pools) // 10  # MMR did reorder: the comparison is not vacuous
