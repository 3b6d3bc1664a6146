"""The memdesk profile's recency and date matching: ranking math on hand-built pools.

No index or embedder: the candidates carry the scores a fetch would have given,
which is what ``ranking.rank`` re-ranks.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random

from memdesk.core.search import ranking
from memdesk.core.search.hits import Candidate, CandidatePool
from memdesk.core.search.settings import SearchSettings
from tests.pools import candidate

NOW = dt.date(2026, 12, 1)


def cand(name: str, date: str | None, vector: float, text: float = 0.5) -> Candidate:
    return candidate(name, vector, text, date=dt.date.fromisoformat(date) if date else None)


def pool(query: str, *cands: Candidate, profile: str = "memdesk") -> CandidatePool:
    return CandidatePool(
        query=query, mode="hybrid", profile=profile, candidates=cands, timings_ms={"pool_size": 40.0}
    )


SETTINGS = SearchSettings.defaults("memdesk").replace(mmr=False)


def order(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.chunk_id for h in hits]


def test_the_newer_of_two_similar_answers_wins_a_current_state_question() -> None:
    p = pool(
        "what vector store did we finally choose",
        cand("old-decision", "2026-05-06", 0.86),
        cand("new-decision", "2026-11-18", 0.85),
    )
    hits = ranking.rank(p, SETTINGS, now=NOW)
    assert order(hits) == ["new-decision", "old-decision"]
    new, old = hits
    assert 0 < old.recency < new.recency <= SETTINGS.recency_weight
    assert (new.rank_without_recency, old.rank_without_recency) == (2, 1)
    assert new.score == new.merged_score * new.decay + new.recency + new.date_boost
    # The same words without asking for the current state: no recency at all.
    plain = ranking.rank(
        dataclasses.replace(p, query="what vector store did we choose in May"), SETTINGS, now=NOW
    )
    assert all(h.recency == 0 and h.rank_without_recency is None for h in plain)


def test_recency_never_buries_an_old_note_that_answers_better() -> None:
    # 0.6 x 0.3 = 0.18 more merged score than the new note: more than recency can give.
    p = pool("what do we use now", cand("old-but-right", "2025-01-01", 0.95), cand("new", "2026-11-30", 0.65))
    for half_life in (1, 90, 3650):
        hits = ranking.rank(p, SETTINGS.replace(half_life_days=half_life), now=NOW)
        assert order(hits) == ["old-but-right", "new"]


def test_recency_is_bounded_on_random_pools() -> None:
    rng = random.Random(7)
    settings = SETTINGS.replace(recency_weight=0.05, date_boost=0.0)
    for _ in range(200):
        cands = [
            cand(
                f"n{i}",
                (NOW - dt.timedelta(days=rng.randrange(0, 900))).isoformat() if rng.random() < 0.8 else None,
                rng.random(),
                rng.random(),
            )
            for i in range(12)
        ]
        hits = ranking.rank(pool("latest status", *cands), settings, now=NOW)
        for h in hits:
            assert 0 <= h.recency <= settings.recency_weight
        # Any two hits whose merged scores differ by more than the weight keep their order.
        for i, a in enumerate(hits):
            for b in hits[i + 1 :]:
                assert b.merged_score <= a.merged_score + settings.recency_weight + 1e-12


def test_a_date_the_query_names_lifts_notes_dated_then() -> None:
    p = pool(
        "what did we decide about deploys in July",
        cand("june", "2026-06-30", 0.80),
        cand("july", "2026-07-14", 0.78),
        cand("early-august", "2026-08-02", 0.77),
        cand("late-august", "2026-08-20", 0.79),
    )
    hits = ranking.rank(p, SETTINGS, now=NOW)
    boosts = {h.chunk_id: h.date_boost for h in hits}
    # July, and a note written up to a few days after it, count as dated then.
    assert boosts == {
        "july": SETTINGS.date_boost,
        "early-august": SETTINGS.date_boost,
        "june": 0.0,
        "late-august": 0.0,
    }
    assert order(hits)[:2] == ["july", "early-august"]
    off = ranking.rank(p, SETTINGS.replace(date_boost=0.0), now=NOW)
    assert order(off)[0] == "june"


def test_the_openclaw_profile_has_neither() -> None:
    settings = SearchSettings.defaults("openclaw-2026.4").replace(min_score=0.0, recency=True, date_boost=0.2)
    p = pool(
        "what do we use now, since July",
        cand("old", "2026-05-06", 0.86),
        cand("july", "2026-07-10", 0.85),
        profile="openclaw-2026.4",
    )
    hits = ranking.rank(p, settings, now=NOW)
    assert order(hits) == ["old", "july"]
    assert all(h.recency == 0 and h.date_boost == 0 for h in hits)
