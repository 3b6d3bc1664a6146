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


def _this_cpu_kernels() -> str:
    """The kernel class tools/record_openclaw.py writes into ``recorded_on.kernels``."""
    flags: set[str] = set()
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    if "avx512f" in flags:
        return "x86-64 AVX-512"
    return "x86-64 AVX2, no AVX-512" if "avx2" in flags else "x86-64 without AVX2"


def test_2026_9_recipe_gives_the_vectors_the_real_server_computed(minilm_path: Path) -> None:
    """OpenClaw 2026.9.6 embeds through its llama.cpp plugin's managed llama-server, which
    runs flash attention ("auto": on for a CPU) and packs the inputs of one request into
    shared batches over 4 slots. Its index keeps every chunk's vector. The 2026.9 recipe
    (flash attention on, each sequence alone) reproduces the vectors the server computed
    for an input alone, to float rounding, on the kernels they were recorded on; with
    flash attention off (the stand-in's computation) none of them. The others, packed
    with other inputs, are the agent's own jitter: held to the replay's tolerance."""
    import dataclasses
    import json

    import apsw

    from memdesk.core.embed import gguf_embedder

    root = Path(__file__).resolve().parents[2] / "fixtures/openclaw/2026.9.6"
    fixture = json.loads((root / "generated-minilm.json").read_text(encoding="utf-8"))
    assert fixture["embedder"].startswith("local -> @openclaw/llama-cpp-provider")
    conn = apsw.Connection(str(root / "agent-index" / "generated-minilm-openclaw-agent.sqlite"))
    rows = list(conn.execute("SELECT text, embedding FROM memory_index_chunks ORDER BY id"))
    conn.close()
    texts = [text for text, _ in rows]
    stored = np.array([np.frombuffer(blob, dtype=np.float64) for _, blob in rows])
    recipe = embed_recipe.recipe_for("2026.9.6")
    base = gguf_embedder.GgufEmbedder(minilm_path)
    got = embed_recipe.RecipeEmbedder(base, recipe).embed_documents(texts).astype(np.float64)
    off = embed_recipe.RecipeEmbedder(
        base, dataclasses.replace(recipe, compute="reference", flash_attention=False)
    ).embed_documents(texts)
    for text, vec, ref in zip(texts, got, stored, strict=True):
        assert fixture_parity.cosine(vec, ref) >= fixture_parity.VECTOR_COSINE_FLOOR, text[:40]
    # No bound on the cosines between two chunks here: the agent's own vectors are a mix
    # of alone and packed computations, and move between two of its reindexes.
    if fixture["recorded_on"]["kernels"] != _this_cpu_kernels():
        pytest.skip("recorded on another CPU class: its last digits are that CPU's kernels'")
    exact_on = int(np.sum(np.max(np.abs(got - stored), axis=1) <= 1e-6))
    exact_off = int(np.sum(np.max(np.abs(off - stored), axis=1) <= 1e-6))
    assert exact_off == 0
    # Which inputs the server embeds alone depends on timing: 20 of 66 in this recording
    # (to 1.5e-8), while two of OpenClaw's own reindexes agreed on 10 to 31 of 66 vectors.
    assert exact_on * 5 >= len(texts), (exact_on, len(texts))
