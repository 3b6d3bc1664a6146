"""Pool assembly on a real index of the example workspace with the real model: what each
profile's pool holds, in which order, with which scores."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memdesk.core import engine
from memdesk.core.search import keyword
from memdesk.core.search.settings import OPENCLAW_2026_4, SearchSettings

GENERATED = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw" / "workspaces" / "generated"
QUERIES = ["vector store decision", "鉴权方案", "deploy cadence", "who joined the team"]


@pytest.fixture(scope="module")
def hybrid_engine(tmp_path_factory: pytest.TempPathFactory, minilm_path: Path) -> Iterator[engine.Engine]:
    import shutil

    from tests.conftest import EXAMPLE_WORKSPACE

    root = tmp_path_factory.mktemp("pool") / "workspace"
    shutil.copytree(EXAMPLE_WORKSPACE, root)
    eng = engine.Engine.open(root, model=minilm_path, db_path=root.parent / "index.sqlite")
    eng.sync()
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def generated_engine(tmp_path_factory: pytest.TempPathFactory, minilm_path: Path) -> Iterator[engine.Engine]:
    """The generated workspace: on the example one OpenClaw 2026.4's chunks exceed
    MiniLM's context, so that profile (like the agent) has no index there."""
    import shutil

    root = tmp_path_factory.mktemp("pool-generated") / "workspace"
    shutil.copytree(GENERATED, root)
    eng = engine.Engine.open(root, model=minilm_path, db_path=root.parent / "index.sqlite")
    eng.sync()
    yield eng
    eng.close()


@pytest.mark.parametrize("profile", ["memdesk", OPENCLAW_2026_4])
def test_vector_hits_come_first_then_keyword_only_hits(
    hybrid_engine: engine.Engine, generated_engine: engine.Engine, profile: str
) -> None:
    settings = SearchSettings.defaults(profile)  # type: ignore[arg-type]  # a Profile from the list
    eng = generated_engine if profile == OPENCLAW_2026_4 else hybrid_engine
    for q in QUERIES:
        pool = eng.fetch_candidates(q, settings)
        assert pool.mode == "hybrid" and pool.candidates
        ids = [c.chunk_id for c in pool.candidates]
        assert len(ids) == len(set(ids))
        fetched = pool.timings_ms["pool_size"]
        assert len(pool.candidates) <= 2 * fetched
        if profile == OPENCLAW_2026_4:
            # OpenClaw's merge order: every vector hit, then keyword hits the vector leg missed
            # (their vector score stays unset, as OpenClaw scores them 0).
            first_keyword_only = next(
                (i for i, c in enumerate(pool.candidates) if c.vector_score is None), len(ids)
            )
            assert all(c.vector_score is not None for c in pool.candidates[:first_keyword_only])
            assert all(c.vector_score is None for c in pool.candidates[first_keyword_only:])
        else:
            # memdesk completes the cosine of keyword-only hits: every candidate has both scores.
            assert all(c.vector_score is not None and c.text_score is not None for c in pool.candidates)


def test_memdesk_keyword_only_hits_carry_their_real_cosine(hybrid_engine: engine.Engine) -> None:
    emb = hybrid_engine.embedder
    assert emb is not None
    settings = SearchSettings.defaults("memdesk")
    qvec = np.asarray(emb.embed_query("deploy cadence"), dtype=np.float32)
    hybrid_engine.memdesk_options = keyword.MemdeskOptions(window_vectors=False)
    try:
        chunk_only = hybrid_engine.fetch_candidates("deploy cadence", settings)
    finally:
        hybrid_engine.memdesk_options = keyword.MemdeskOptions()
    docs = np.asarray(emb.embed_documents([c.text for c in chunk_only.candidates]), dtype=np.float32)
    cosine = {c.chunk_id: float(v @ qvec) for c, v in zip(chunk_only.candidates, docs, strict=True)}
    for cand in chunk_only.candidates:
        assert cand.vector_score == pytest.approx(cosine[cand.chunk_id], abs=2e-3)
    # With passage windows a chunk scores as its best window when that beats the whole chunk.
    for cand in hybrid_engine.fetch_candidates("deploy cadence", settings).candidates:
        if cand.chunk_id in cosine:
            assert cand.vector_score is not None and cand.vector_score >= cosine[cand.chunk_id] - 2e-3


def test_keyword_only_pool_is_the_keyword_leg(hybrid_engine: engine.Engine) -> None:
    settings = SearchSettings.defaults("memdesk")
    pool = hybrid_engine.fetch_candidates("deploy cadence", settings, mode="fts")
    assert pool.mode == "fts" and pool.candidates
    assert all(c.vector_score is None for c in pool.candidates)
    scores = [c.text_score for c in pool.candidates]
    assert all(s is not None and 0 < s < 1 for s in scores)
    assert scores == sorted(scores, reverse=True)  # BM25 order, saturated r / (1 + r)
    assert "deploy" in pool.query_terms


def test_group_chat_scope_leaves_memory_md_out(
    hybrid_engine: engine.Engine, generated_engine: engine.Engine
) -> None:
    for profile, eng in (("memdesk", hybrid_engine), (OPENCLAW_2026_4, generated_engine)):
        settings = SearchSettings.defaults(profile)  # type: ignore[arg-type]
        everything = eng.fetch_candidates("vector store decision", settings)
        assert any(c.path == "MEMORY.md" for c in everything.candidates)
        shared = eng.fetch_candidates("vector store decision", settings, scope="shared")
        assert shared.candidates and all(c.path != "MEMORY.md" for c in shared.candidates)


def test_ablation_options_change_the_pool(hybrid_engine: engine.Engine) -> None:
    settings = SearchSettings.defaults("memdesk")
    default = hybrid_engine.fetch_candidates("the vector store decision", settings, mode="fts")
    hybrid_engine.memdesk_options = keyword.MemdeskOptions(or_terms=False, stop_words=False)
    try:
        strict = hybrid_engine.fetch_candidates("the vector store decision", settings, mode="fts")
    finally:
        hybrid_engine.memdesk_options = keyword.MemdeskOptions()
    # AND of every word including "the" matches fewer chunks than OR of the content words.
    assert len(strict.candidates) < len(default.candidates)


def test_hybrid_keyword_score_counts_for_the_share_of_the_query_it_searched(
    tmp_path: Path, minilm_path: Path
) -> None:
    """A word in half the chunks or more is left out of the keyword leg (it cannot tell
    the notes apart: here a speaker's name in every dialog line); in a hybrid search the
    keyword score then counts only for the share of the query's words it did search."""
    root = tmp_path / "workspace"
    (root / "memory").mkdir(parents=True)
    topics = ["hiking trip", "pottery class", "violin lessons", "garden tomatoes", "dog shelter"]
    for day, topic in enumerate(topics, 1):
        lines = "\n".join(f"- Tim: today was about the {topic}, part {n}." for n in range(3))
        (root / "memory" / f"2023-05-0{day}.md").write_text(
            f"# 2023-05-0{day}\n\n{lines}\n", encoding="utf-8"
        )
    eng = engine.Engine.open(root, model=minilm_path, db_path=tmp_path / "index.sqlite")
    try:
        eng.sync()
        settings = SearchSettings.defaults("memdesk")
        query = "Tim pottery"  # "tim" is in every chunk, "pottery" in one
        fts = {c.chunk_id: c.text_score for c in eng.fetch_candidates(query, settings, mode="fts").candidates}
        hybrid = eng.fetch_candidates(query, settings, mode="hybrid")
        assert hybrid.query_terms == ("pottery",)
        matched = [c for c in hybrid.candidates if c.text_score]
        assert matched and all("pottery" in c.text for c in matched)
        for c in matched:
            assert c.text_score == pytest.approx(0.5 * (fts[c.chunk_id] or 0.0))
        # Every word searched: the keyword score is the keyword leg's own.
        full = eng.fetch_candidates("pottery class", settings, mode="hybrid")
        alone = {
            c.chunk_id: c.text_score
            for c in eng.fetch_candidates("pottery class", settings, mode="fts").candidates
        }
        assert any(c.text_score for c in full.candidates)
        for c in full.candidates:
            if c.text_score:
                assert c.text_score == pytest.approx(alone[c.chunk_id] or 0.0)
    finally:
        eng.close()
