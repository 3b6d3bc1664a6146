"""Near-ties of the agent profiles on the generated workspace with the real MiniLM model.

Real OpenClaw 2026.9.6 returned ``memory/projects/atlas.md`` and ``memory/2026-11-21.md``
for ``sqlite-vec`` 3.8e-5 apart (tests/fixtures/openclaw/2026.9.6/generated-minilm.json),
in the opposite order of their scores (its MMR keeps them so): a gap far inside the
agent's own jitter. memdesk's openclaw-2026.9 profile finds the same pair, and says so.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from memdesk.core import engine
from memdesk.core.eval import fixture_parity
from memdesk.core.search import near_ties
from memdesk.core.search import settings as settings_mod

pytestmark = pytest.mark.model

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw"
RECORDING = json.loads((FIXTURES / "2026.9.6" / "generated-minilm.json").read_text(encoding="utf-8"))
NOW = dt.datetime.fromtimestamp(RECORDING["now_ms"] / 1000, dt.UTC)


@pytest.fixture(scope="module")
def generated(minilm_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[engine.Engine]:
    root = tmp_path_factory.mktemp("near-ties")
    shutil.copytree(FIXTURES / "workspaces" / "generated", root / "generated")
    eng = engine.Engine.open(root / "generated", model=minilm_path, db_path=root / "index.sqlite")
    eng.sync()
    yield eng
    eng.close()


def test_the_jitter_is_the_fixture_comparators() -> None:
    assert near_ties.AGENT_JITTER == fixture_parity.EMBEDDING_SCORE_TOLERANCE == 3e-4


def test_agent_profile_marks_the_pair_real_openclaw_tied(generated: engine.Engine) -> None:
    settings = settings_mod.SearchSettings.defaults("openclaw-2026.9")
    result = generated.search("sqlite-vec", settings, now=NOW)
    assert result.pool.mode == "hybrid"
    ties = near_ties.near_ties(result.hits, settings.profile)
    marked = {(h.rank, h.path): ties[h.chunk_id] for h in result.hits if h.chunk_id in ties}
    assert marked == {(3, "memory/projects/atlas.md"): (4,), (4, "memory/2026-11-21.md"): (3,)}
    # The agent itself had them as close (and so may order them either way).
    recorded = {
        r["path"]: r["score"]
        for s in RECORDING["searches"]
        if s["query"] == "sqlite-vec" and s["variant"] == "defaults"
        for r in s["results"]
    }
    assert (
        abs(recorded["memory/projects/atlas.md"] - recorded["memory/2026-11-21.md"]) < near_ties.AGENT_JITTER
    )
    # Nothing else on the list is that close: the mark is not on every row.
    assert len(ties) == 2 < len(result.hits)


def test_memdesk_profile_and_keyword_only_scores_have_no_near_ties(generated: engine.Engine) -> None:
    """memdesk is repeatable with itself, and bm25 scores are the same digits everywhere."""
    memdesk = settings_mod.SearchSettings.defaults("memdesk")
    result = generated.search("sqlite-vec", memdesk, now=NOW)
    assert near_ties.near_ties(result.hits, "memdesk") == {}
    agent = settings_mod.SearchSettings.defaults("openclaw-2026.9")
    hybrid = generated.search("sqlite-vec", agent, now=NOW).hits
    keyword_only = [dataclasses.replace(h, vector_score=None) for h in hybrid]
    assert near_ties.near_ties(keyword_only, "openclaw-2026.9") == {}
