""" "Your agent's decay hides N older notes": counted on a workspace months old, real model.

OpenClaw 2026.9 decays every dated note with a 30-day half-life and drops hits under
0.35. Its notes from March to July, measured from the workspace's clock in late
October, keep a few percent of their score: the agent returns (nearly) nothing for a
question they answer, while memdesk's profile returns them.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from memdesk.core import engine as engine_mod
from memdesk.core.embed import gguf_embedder
from memdesk.core.search import decay_gap, ranking
from memdesk.core.search.profiles import runner_common
from memdesk.core.search.settings import SearchSettings

AGENT = SearchSettings.defaults("openclaw-2026.9")
QUERY = "where did Melanie go hiking"


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def eng(tmp_path: Path, minilm_path: Path):  # type: ignore[no-untyped-def]
    root = tmp_path / "ws"
    _write(root, "MEMORY.md", "# Memory\n\nMelanie is Caroline's friend; they talk every few weeks.\n")
    _write(
        root, "memory/2023-03-12.md", "# 2023-03-12\n\nMelanie went hiking in the mountains with her kids.\n"
    )
    _write(
        root, "memory/2023-05-20.md", "# 2023-05-20\n\nMelanie went hiking to a waterfall near her home.\n"
    )
    _write(root, "memory/2023-07-14.md", "# 2023-07-14\n\nMelanie went hiking by the lake and painted it.\n")
    _write(root, "memory/2023-10-22.md", "# 2023-10-22\n\nMelanie talked about her pottery class.\n")
    e = engine_mod.Engine(
        root, embedder=gguf_embedder.GgufEmbedder(minilm_path), db_path=tmp_path / "i.sqlite"
    )
    e.pin_agent_settings(runner_common.AgentSettings())
    e.sync()
    yield e
    e.close()


def test_the_agents_decay_hides_the_older_notes_memdesk_finds(eng: engine_mod.Engine) -> None:
    result = eng.search(QUERY, AGENT)
    gap = eng.decay_gap(result.pool, AGENT)
    assert gap is not None
    hiking = {"memory/2023-03-12.md", "memory/2023-05-20.md", "memory/2023-07-14.md"}
    assert set(gap.hidden) == hiking - {h.path for h in result.hits}
    assert len(gap.hidden) >= 2
    assert (gap.half_life_days, gap.min_score) == (30.0, 0.35)
    # Each hidden note: the agent scores it over its minimum without the decay, under with it.
    wide = ranking.rank(result.pool, AGENT.replace(min_score=0.0, max_results=100), now=eng.clock())
    for path in gap.hidden:
        best = max((h for h in wide if h.path == path), key=lambda h: h.score / h.decay)
        assert best.score < 0.35 <= best.score / best.decay
    assert gap.to_json()["count"] == len(gap.hidden)


def test_nothing_is_hidden_when_the_notes_are_fresh(eng: engine_mod.Engine) -> None:
    # Measured from the day after the March note, it is a day old and the agent shows it.
    now = dt.date(2023, 3, 13)
    result = eng.search(QUERY, AGENT, now=now)
    gap = eng.decay_gap(result.pool, AGENT, now=now)
    assert gap is not None and "memory/2023-03-12.md" not in gap.hidden
    # memdesk's own profile, or an agent profile without decay: no line at all.
    mine = SearchSettings.defaults("memdesk")
    assert eng.decay_gap(eng.search(QUERY, mine).pool, mine) is None
    oc4 = SearchSettings.defaults("openclaw-2026.4")
    assert not oc4.decay and eng.decay_gap(eng.search(QUERY, oc4).pool, oc4) is None
    assert decay_gap.hidden_by_decay((), result.pool, AGENT, now=now) == decay_gap.DecayGap(
        (), 30.0, 0.35, gap.agent_notes, 0
    )
