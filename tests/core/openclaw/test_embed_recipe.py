"""The token sequences each OpenClaw version feeds the model (real GGUF files)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memdesk.core.embed import openclaw_recipe as embed_recipe
from memdesk.core.eval import fixture_parity

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def e5(e5_path: Path):  # type: ignore[no-untyped-def]
    from memdesk.core.embed import gguf_embedder

    return gguf_embedder.GgufEmbedder(e5_path)


def test_node_llama_cpp_feeds_e5_without_bos_and_without_prefix(e5) -> None:  # type: ignore[no-untyped-def]
    old = embed_recipe.RecipeEmbedder(e5, embed_recipe.recipe_for("2026.4.12"))
    new = embed_recipe.RecipeEmbedder(e5, embed_recipe.recipe_for("2026.9.6"))
    body = e5._tokenize("hello world", special=False)
    bos, eos = e5.info.get("tokenizer.ggml.bos_token_id"), e5.info.get("tokenizer.ggml.eos_token_id")
    assert old.tokens("hello world") == [*body, eos]  # SentencePiece unigram: EOS only
    assert new.tokens("hello world") == [bos, *body, eos]  # llama-server: the model's own specials
    # memdesk's own recipe adds "query: "; OpenClaw's never does, so the vectors differ.
    assert e5.query_prefix == "query: "
    assert float(new.embed_query("hello world") @ e5.embed_query("hello world")) < 0.999
    assert old.identity.provider_key != new.identity.provider_key != e5.identity.provider_key


def test_recipe_refuses_inputs_over_the_context(e5) -> None:  # type: ignore[no-untyped-def]
    emb = embed_recipe.RecipeEmbedder(e5, embed_recipe.recipe_for("2026.9"))
    with pytest.raises(embed_recipe.OverContext):
        emb.embed_documents(["word " * 2000])
    vec = emb.embed_documents(["short note"])[0]
    assert abs(float(np.linalg.norm(vec)) - 1) < 1e-5


def test_recipe_vectors_are_the_ones_node_llama_cpp_stored(minilm_path: Path) -> None:
    """OpenClaw 2026.4 keeps each chunk's vector (node-llama-cpp, flash attention off) in
    its index; the 2026.4 recipe must reproduce them, not just rank alike.

    They were stored on the recording machine's kernels (AVX2); this machine's llama.cpp
    is compiled for its own CPU (GGML_NATIVE), so the vectors are held to what another
    CPU moves them by (``fixture_parity.VECTOR_COSINE_FLOOR``, and every cosine between
    two chunks within the replay's score tolerance), not to their last digits."""
    import json

    import apsw

    from memdesk.core.embed import gguf_embedder

    db = (
        Path(__file__).resolve().parents[2]
        / "fixtures/openclaw/2026.4.12/agent-index/generated-minilm-main.sqlite"
    )
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    rows = list(conn.execute("SELECT text, embedding FROM chunks ORDER BY id LIMIT 12"))
    conn.close()
    assert len(rows) == 12
    emb = embed_recipe.RecipeEmbedder(
        gguf_embedder.GgufEmbedder(minilm_path), embed_recipe.recipe_for("2026.4.12")
    )
    texts = [text for text, _ in rows]
    stored = np.array([json.loads(vector) for _, vector in rows], dtype=np.float64)
    got = emb.embed_documents(texts)
    for text, vec, ref in zip(texts, got, stored, strict=True):
        assert fixture_parity.cosine(vec, ref) >= fixture_parity.VECTOR_COSINE_FLOOR, text[:40]
    assert fixture_parity.cosine_shift(got, stored) <= fixture_parity.EMBEDDING_SCORE_TOLERANCE
    # The bound still tells another token sequence apart: the same chunks without the
    # [SEP] node-llama-cpp appends.
    for text, ref in zip(texts[:3], stored[:3], strict=True):
        without_sep = emb.base.encode_reference(emb.tokens(text)[:-1])
        assert fixture_parity.cosine(without_sep, ref) < fixture_parity.VECTOR_COSINE_FLOOR, text[:40]
