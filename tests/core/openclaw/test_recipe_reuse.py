"""Reuse across recipes: a profile takes a vector already computed exactly when the token
ids (and model, and how they were computed) are the same, never when the prefix rule differs."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from memdesk.core import engine as engine_mod
from memdesk.core.embed import openclaw_recipe
from memdesk.core.index import recipe_cache
from memdesk.core.search.profiles import runner_common

NOTES = {
    "MEMORY.md": "# Memory\n\n- Lin Wei owns the Atlas migration.\n- We keep SQLite for the local index.\n",
    "memory/2026-11-02.md": "# 2026-11-02\n\nBenchmarked sqlite-vec against a numpy scan; the scan wins below 5k chunks.\n",
    "memory/2026-11-03.md": "# 2026-11-03\n\n周航负责值班轮换，下周开始。The on-call rota starts next week.\n",
    "memory/2026-11-04.md": "# 2026-11-04\n\nThe retry policy backs off to 30 s; Jonas asked about the budget review.\n",
}


def _workspace(root: Path) -> Path:
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _prepared(tmp_path: Path, model: Path) -> tuple[engine_mod.Engine, runner_common.Reuse, list[str]]:
    ws = _workspace(tmp_path / "ws")
    eng = engine_mod.Engine.open(ws, model=model, db_path=tmp_path / "i.sqlite")
    eng.pin_agent_settings(runner_common.AgentSettings())
    eng.sync()
    eng.prepare_profile("openclaw-2026.9")
    runner = eng._runners["openclaw-2026.9"]
    texts = [c.text for c in runner.searcher(eng.embedder, None, eng.embed_lock).index.chunks]
    return eng, runner.reuse, texts


def test_main_index_vectors_are_reused_exactly_when_the_tokens_match(
    tmp_path: Path, minilm_path: Path
) -> None:
    """MiniLM: memdesk's index and 2026.9 both feed ``[CLS] text [SEP]``, and memdesk's
    index computes with flash attention as the 2026.9 recipe does: the chunks whose
    tokens are the same come from the main index, and they are the recipe's vectors."""
    eng, reuse, texts = _prepared(tmp_path, minilm_path)
    try:
        emb = openclaw_recipe.RecipeEmbedder(eng.embedder, openclaw_recipe.RECIPES["2026.9"])
        same = [t for t in texts if emb.index_tokens(t) == [emb.document_tokens(t)]]
        # Every 2026.9 chunk the main index also holds as a chunk of the same text.
        assert same and reuse.main_index > 0
        assert reuse.main_index + reuse.embedded == len(set(texts))
        runner = eng._runners["openclaw-2026.9"]
        index = runner.searcher(eng.embedder, None, eng.embed_lock).index
        fresh = emb.embed_documents([c.text for c in index.chunks])
        cosines = np.sum(fresh * index.vectors, axis=1) / np.linalg.norm(index.vectors, axis=1)
        assert float(np.max(1 - cosines)) < 1e-6  # float32 rounding, not the agent's 3e-4
    finally:
        eng.close()


def test_no_reuse_when_the_prefix_rule_differs(tmp_path: Path, e5_path: Path) -> None:
    """e5: memdesk's index embeds ``passage: `` + text, 2026.9 the bare text; the same
    chunk texts, other token ids: nothing comes from the main index."""
    eng, reuse, texts = _prepared(tmp_path, e5_path)
    try:
        assert texts and reuse.main_index == 0 and reuse.embedded == len(set(texts))
    finally:
        eng.close()


def test_another_recipes_vectors_by_key_only_for_the_same_tokens_and_computation(
    tmp_path: Path, e5_path: Path
) -> None:
    """A recipe that hands the model the same tokens computed the same way takes the
    vectors another recipe stored; one whose special tokens differ (node-llama-cpp drops
    e5's ``<s>``) does not, nor does the same tokens with flash attention off."""
    from memdesk.core.embed.loader import load_embedder

    base, _ = load_embedder(e5_path)
    cache = recipe_cache.RecipeCache(tmp_path / "v.openclaw-vectors")
    lock = threading.RLock()
    texts = list(NOTES.values())
    try:
        first = runner_common.RecipeVectors("2026.9", cache)
        emb9 = first.embedder_for(base)
        assert emb9 is not None
        stored = first.documents(emb9, None, lock, texts)
        assert first.reuse.embedded == len(texts)

        def twin(recipe: openclaw_recipe.OpenClawRecipe) -> runner_common.RecipeVectors:
            other = runner_common.RecipeVectors("2026.9", cache)
            other.recipe = recipe
            return other

        same = twin(
            openclaw_recipe.OpenClawRecipe(
                "same-tokens", "model", compute="reference-fa", flash_attention=True
            )
        )
        emb = same.embedder_for(base)
        assert emb is not None and emb.identity.provider_key != emb9.identity.provider_key
        assert np.array_equal(same.documents(emb, None, lock, texts), stored)
        assert (same.reuse.other_recipe, same.reuse.embedded) == (len(texts), 0)

        for recipe in (
            openclaw_recipe.OpenClawRecipe(
                "no-bos", "node-llama-cpp", compute="reference-fa", flash_attention=True
            ),
            openclaw_recipe.OpenClawRecipe("fa-off", "model", compute="reference", flash_attention=False),
        ):
            other = twin(recipe)
            emb = other.embedder_for(base)
            assert emb is not None
            other.documents(emb, None, lock, texts)
            assert (other.reuse.other_recipe, other.reuse.embedded) == (0, len(texts)), recipe.name
    finally:
        cache.close()
        base.close()  # type: ignore[union-attr]
