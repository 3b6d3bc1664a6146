"""GgufEmbedder on a real MiniLM GGUF through real llama.cpp.

Covers the protocol contract, the long-input windowing rule (llama.cpp aborts
the process on a sequence longer than its context, so these tests would crash
the run rather than fail if the rule broke), and refusing bad files before
llama.cpp sees them.
"""

from __future__ import annotations

import math
import os
import random
from pathlib import Path

import numpy as np
import pytest

from memdesk.core.embed.embedder import Embedder, EmbedderIdentity
from memdesk.core.embed.gguf_embedder import GgufEmbedder, family_prefixes
from memdesk.core.embed.gguf_header import inspect_gguf
from memdesk.core.embed.model_digest import file_sha256
from memdesk.core.errors import EmbedderUnavailable

pytestmark = pytest.mark.model

_WORDS = (
    "memory note meeting project deadline agent search vector index retrieval "
    "alice bob friday coffee preference decision 用户 项目 记忆 会议"
).split()


def _paragraph(n_words: int, seed: int) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(_WORDS) for _ in range(n_words))


def _assert_unit_rows(vectors: np.ndarray) -> None:
    assert vectors.dtype == np.float32
    assert np.all(np.isfinite(vectors))
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=-1), 1.0, atol=1e-5)


# --------------------------------------------------------------------------- contract


def test_implements_protocol(gguf_embedder: GgufEmbedder) -> None:
    assert isinstance(gguf_embedder, Embedder)
    assert gguf_embedder.dims == 384
    assert gguf_embedder.max_input_tokens == 512


def test_identity(gguf_embedder: GgufEmbedder, minilm_gguf: Path) -> None:
    ident = gguf_embedder.identity
    assert isinstance(ident, EmbedderIdentity)
    assert ident.provider == "gguf"
    assert ident.model == "all-MiniLM-L6-v2"
    assert (ident.dims, ident.pooling) == (384, "mean")
    assert (ident.query_prefix, ident.document_prefix) == ("", "")
    assert ident.file_sha256 == file_sha256(minilm_gguf)
    assert len(ident.provider_key) == 64


def test_shapes_and_normalisation(gguf_embedder: GgufEmbedder) -> None:
    docs = gguf_embedder.embed_documents(["alpha", "", "Beta gamma.", "北京"])
    assert docs.shape == (4, 384)
    _assert_unit_rows(docs)
    query = gguf_embedder.embed_query("alpha")
    assert query.shape == (384,)
    _assert_unit_rows(query)
    # No prefixes for MiniLM: a query is embedded exactly like a document.
    assert float(query @ docs[0]) > 0.9999
    assert gguf_embedder.embed_documents([]).shape == (0, 384)


def test_semantic_sanity(gguf_embedder: GgufEmbedder) -> None:
    docs = gguf_embedder.embed_documents(
        ["I drink coffee every morning.", "The quarterly budget meeting moved to Friday."]
    )
    query = gguf_embedder.embed_query("What do I like to drink?")
    assert float(query @ docs[0]) > float(query @ docs[1])


def test_odd_text_does_not_crash(gguf_embedder: GgufEmbedder) -> None:
    texts = ["\x00nul\x00", "lone \ud800 surrogate", "[CLS] [SEP] [MASK]", "\u200b" * 10, " \n\t "]
    _assert_unit_rows(gguf_embedder.embed_documents(texts))


def test_count_tokens_includes_special_tokens(gguf_embedder: GgufEmbedder) -> None:
    assert gguf_embedder.count_tokens("") == 2  # [CLS] [SEP]
    assert gguf_embedder.count_tokens("hello world") == 4
    # Literal special-token text in a note is text, not control tokens.
    assert gguf_embedder.count_tokens("[CLS]") > 3  # "[", "cl", "##s", "]", not one [CLS]


def test_family_prefixes() -> None:
    assert family_prefixes("multilingual-e5-small") == ("query: ", "passage: ")
    assert family_prefixes("nomic-embed-text-v1.5") == ("search_query: ", "search_document: ")
    assert family_prefixes("all-MiniLM-L6-v2") == ("", "")


def test_file_sha256_is_cached_by_size_and_mtime(tmp_path: Path) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(b"one")
    first = file_sha256(path)
    assert file_sha256(path) == first
    path.write_bytes(b"two!")
    assert file_sha256(path) != first


# --------------------------------------------------------------------------- long input


def test_windows_at_the_context_boundary(gguf_embedder: GgufEmbedder) -> None:
    limit = gguf_embedder.max_input_tokens
    # "memory" is one token: n words -> n + 2 tokens.
    fits = " ".join(["memory"] * (limit - 2))
    over = " ".join(["memory"] * (limit - 1))
    assert gguf_embedder.count_tokens(fits) == limit
    assert len(gguf_embedder.token_windows(fits)) == 1
    assert gguf_embedder.count_tokens(over) == limit + 1
    windows = gguf_embedder.token_windows(over)
    assert [len(w) for w in windows] == [limit, 3]
    _assert_unit_rows(gguf_embedder.embed_documents([fits, over]))


def test_20k_token_paragraph(gguf_embedder: GgufEmbedder) -> None:
    text = _paragraph(20_000, seed=1)
    n_tokens = gguf_embedder.count_tokens(text)
    assert n_tokens >= 20_000
    windows = gguf_embedder.token_windows(text)
    limit = gguf_embedder.max_input_tokens
    wrap = 2  # [CLS] ... [SEP] around every window, no prefix for MiniLM
    assert all(len(w) <= limit for w in windows)
    assert len(windows) == math.ceil((n_tokens - wrap) / (limit - wrap))
    # The split rule loses and duplicates nothing: windows' bodies tile the text.
    assert sum(len(w) - wrap for w in windows) == n_tokens - wrap
    body = gguf_embedder._tokenize(text, special=False)
    assert [t for w in windows for t in w[1:-1]] == body
    vector = gguf_embedder.embed_documents([text])
    _assert_unit_rows(vector)
    # Mean pooling over windows stays on topic: close to a single-window sample of it.
    sample = gguf_embedder.embed_documents([_paragraph(300, seed=1)])
    assert float(vector[0] @ sample[0]) > 0.8


def test_2mb_single_line(gguf_embedder: GgufEmbedder) -> None:
    text = _paragraph(400_000, seed=2)[: 2 * 1024 * 1024]
    assert "\n" not in text and len(text.encode()) >= 2_000_000
    n_tokens = gguf_embedder.count_tokens(text)
    windows = gguf_embedder.token_windows(text)
    assert len(windows) == math.ceil((n_tokens - 2) / 510)
    assert max(len(w) for w in windows) <= gguf_embedder.max_input_tokens
    vectors = gguf_embedder.embed_documents([text, "short"])
    _assert_unit_rows(vectors)


def test_long_text_mixed_with_short_ones(gguf_embedder: GgufEmbedder) -> None:
    texts = ["a", _paragraph(3_000, seed=3), "", "b c d"]
    together = gguf_embedder.embed_documents(texts)
    _assert_unit_rows(together)
    for text, row in zip(texts, together, strict=True):
        assert float(gguf_embedder.embed_documents([text])[0] @ row) > 0.99999


# --------------------------------------------------------------------------- bad files


def _bad_files(tmp_path: Path, real: Path) -> dict[str, Path]:
    files = {
        "missing": tmp_path / "missing.gguf",
        "truncated": tmp_path / "truncated.gguf",
        "truncated_data": tmp_path / "truncated-data.gguf",
        "random": tmp_path / "random.gguf",
        "text": tmp_path / "notes.gguf",
        "empty": tmp_path / "empty.gguf",
        "directory": tmp_path / "dir.gguf",
    }
    data = real.read_bytes()
    files["truncated"].write_bytes(data[:1024])
    files["truncated_data"].write_bytes(data[: len(data) * 9 // 10])
    files["random"].write_bytes(os.urandom(64 * 1024))
    files["text"].write_text("# My notes\n\nNot a model at all.\n", encoding="utf-8")
    files["empty"].write_bytes(b"")
    files["directory"].mkdir()
    return files


@pytest.mark.parametrize(
    "kind", ["missing", "truncated", "truncated_data", "random", "text", "empty", "directory"]
)
def test_bad_files_are_refused(tmp_path: Path, minilm_gguf: Path, kind: str) -> None:
    path = _bad_files(tmp_path, minilm_gguf)[kind]
    with pytest.raises(EmbedderUnavailable) as info:
        GgufEmbedder(path)
    assert str(path) in str(info.value)


def test_garbage_after_magic_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "magic.gguf"
    path.write_bytes(b"GGUF" + os.urandom(4096))
    with pytest.raises(EmbedderUnavailable, match=r"magic\.gguf"):
        inspect_gguf(path)


def test_non_embedding_architecture_is_refused(tmp_path: Path) -> None:
    import gguf

    path = tmp_path / "llama.gguf"
    writer = gguf.GGUFWriter(path, arch="llama")
    writer.add_context_length(64)
    writer.add_embedding_length(8)
    writer.add_tensor("token_embd.weight", np.zeros((4, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(EmbedderUnavailable, match="not a supported embedding model"):
        GgufEmbedder(path)


def test_real_file_passes_inspection(minilm_gguf: Path) -> None:
    info = inspect_gguf(minilm_gguf)
    assert info.architecture == "bert"
    assert (info.context_length, info.embedding_length, info.pooling_type) == (512, 384, 1)
    assert info.model_name == "all-MiniLM-L6-v2"


# --------------------------------------------------------------------------- lazy loading


def test_lazy_embedder_knows_its_identity_without_loading(
    minilm_gguf: Path, gguf_embedder: GgufEmbedder
) -> None:
    """Opening a workspace needs the identity (for the index meta) but not the weights."""
    lazy = GgufEmbedder(minilm_gguf, lazy=True)
    try:
        assert not lazy.loaded
        assert lazy.identity == gguf_embedder.identity
        assert (lazy.dims, lazy.max_input_tokens) == (384, 512)
        assert not lazy.loaded
        vector = lazy.embed_query("coffee without sugar")
        assert lazy.loaded
        np.testing.assert_allclose(vector, gguf_embedder.embed_query("coffee without sugar"), atol=1e-6)
    finally:
        lazy.close()
    assert not lazy.loaded


def test_a_bundles_shipped_models_get_no_sidecar_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installed bundle's models folder (/opt/memdesk/...) is never written to, even by
    root: the package manager would find the sidecar left behind at removal."""
    from memdesk.core import paths

    shipped = tmp_path / "bundle" / "models"
    shipped.mkdir(parents=True)
    (shipped / "model.gguf").write_bytes(b"GGUF shipped weights")
    (tmp_path / "own.gguf").write_bytes(b"GGUF the user's weights")
    monkeypatch.setattr(paths, "bundled_models_dir", lambda: shipped)
    assert len(file_sha256(shipped / "model.gguf")) == 64
    assert sorted(p.name for p in shipped.iterdir()) == ["model.gguf"]
    file_sha256(tmp_path / "own.gguf")  # a model outside the bundle keeps its sidecar
    assert (tmp_path / "own.gguf.sha256").is_file()


def test_digest_sidecar_is_reused_and_checked(tmp_path: Path, minilm_gguf: Path) -> None:
    """A second process reads the digest from the sidecar; a changed file is hashed again."""
    import hashlib
    import json
    import shutil

    from memdesk.core.embed import model_digest as module

    copy = tmp_path / "model.gguf"
    shutil.copy(minilm_gguf, copy)
    real = hashlib.sha256(copy.read_bytes()).hexdigest()
    assert file_sha256(copy) == real
    sidecar = tmp_path / "model.gguf.sha256"
    assert json.loads(sidecar.read_text())["sha256"] == real
    module._sha_cache.clear()  # as in a new process
    stamp = json.loads(sidecar.read_text())
    sidecar.write_text(json.dumps(stamp | {"sha256": "f" * 64}))
    assert file_sha256(copy) == "f" * 64  # trusted while size and mtime match
    module._sha_cache.clear()
    with open(copy, "ab") as handle:
        handle.write(b"\0" * 32)
    assert file_sha256(copy) == hashlib.sha256(copy.read_bytes()).hexdigest()


def test_lazy_load_failure_is_a_clear_error(tmp_path: Path, minilm_gguf: Path) -> None:
    """A file whose header passes but that llama.cpp refuses fails at first use, cleanly."""
    import gguf

    path = tmp_path / "no-weights.gguf"
    reader = gguf.GGUFReader(minilm_gguf)
    writer = gguf.GGUFWriter(path, arch="bert")
    for field in reader.fields.values():
        if field.name.startswith(("bert.", "tokenizer.", "memdesk.")) and field.types:
            if field.types[0] == gguf.GGUFValueType.ARRAY:
                writer.add_array(field.name, list(field.contents()))
            else:
                writer.add_key_value(field.name, field.contents(), field.types[0])
    writer.add_tensor("token_embd.weight", np.zeros((8, 384), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    lazy = GgufEmbedder(path, lazy=True)
    with pytest.raises(EmbedderUnavailable, match=r"no-weights\.gguf"):
        lazy.embed_query("x")
    assert not lazy.loaded


def test_queries_run_beside_document_embedding(gguf_embedder: GgufEmbedder) -> None:
    """Queries have their own llama.cpp context: embedding them while another thread
    embeds documents gives the same vectors as embedding them alone."""
    import threading

    queries = [f"what did we decide about {w}?" for w in _WORDS[:12]]
    documents = [_paragraph(200, seed=i) for i in range(16)]
    alone_q = [gguf_embedder.embed_query(q) for q in queries]
    alone_d = gguf_embedder.embed_documents(documents)
    together_d: list[np.ndarray] = []
    worker = threading.Thread(target=lambda: together_d.append(gguf_embedder.embed_documents(documents)))
    worker.start()
    together_q = [gguf_embedder.embed_query(q) for q in queries]
    worker.join()
    np.testing.assert_allclose(np.stack(together_q), np.stack(alone_q), atol=1e-6)
    np.testing.assert_allclose(together_d[0], alone_d, atol=1e-6)


# --------------------------------------------------------------------------- memory


def _resident_bytes_of_mapping(address: int) -> int:
    """Rss of the /proc/self/smaps mapping that contains ``address``."""
    inside = False
    with open("/proc/self/smaps", encoding="ascii") as handle:
        for line in handle:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(x, 16) for x in head.split("-"))
                inside = lo <= address < hi
            elif inside and head == "Rss:":
                return int(line.split()[1]) * 1024
    raise AssertionError("no mapping holds the logits buffer")


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="needs Linux /proc")
def test_unused_logits_buffer_goes_back_to_the_os(e5_path: Path) -> None:
    """Running the model file itself (no encoder file), llama.cpp writes a vocabulary x
    batch-tokens logits buffer that an embedding never reads (250k x 4 bytes per token
    for e5); its pages are released after the call, and the vectors stay the same."""
    import ctypes

    emb = GgufEmbedder(e5_path, input_embeddings=False)
    try:
        text = _paragraph(260, seed=5)
        assert 300 < emb.count_tokens(text) <= emb.max_input_tokens
        first = emb.embed_documents([text])
        context = emb._documents
        assert context is not None
        address = ctypes.cast(emb._lc.llama_get_logits(context.ctx), ctypes.c_void_p).value
        assert address
        buffer_bytes = 250_037 * context.output_rows * 4
        assert buffer_bytes > 256 << 20  # the buffer llama.cpp made for this batch
        assert _resident_bytes_of_mapping(address) < buffer_bytes // 50
        emb.embed_documents(["a short note"])  # a smaller batch reuses the buffer
        np.testing.assert_array_equal(emb.embed_documents([text]), first)
        assert _resident_bytes_of_mapping(address) < buffer_bytes // 50
    finally:
        emb.close()


def test_packing_budget_above_the_context_is_capped(minilm_gguf: Path) -> None:
    """llama.cpp aborts the whole process on a BERT batch longer than the trained
    context; a larger packing budget is capped to it (this test would crash the run)."""
    emb = GgufEmbedder(minilm_gguf, batch_tokens=4 * 512)
    try:
        texts = [_paragraph(200, seed=i) for i in range(4)]
        assert sum(emb.count_tokens(t) for t in texts) > emb.max_input_tokens
        vectors = emb.embed_documents(texts)
        _assert_unit_rows(vectors)
    finally:
        emb.close()


def test_a_query_is_embedded_once_and_its_vector_kept(
    gguf_embedder: GgufEmbedder, minilm_gguf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An evaluation asks each query once per mode and profile (SciFact: 809 queries, three
    modes with a vector leg): the vector is computed once, and is the one a fresh
    computation gives, so every score stays what it was."""
    calls: list[list[str]] = []
    real = GgufEmbedder._embed

    def embed(self: GgufEmbedder, prefixes: list[str], texts: list[str], **kw: object) -> np.ndarray:
        calls.append(list(texts))
        return real(self, prefixes, texts, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(GgufEmbedder, "_embed", embed)
    query = f"which friday did alice move the deadline {random.random()}"
    first = gguf_embedder.embed_query(query)
    first[:] = 0  # a caller's copy: the kept vector does not change with it
    again = gguf_embedder.embed_query(query)
    assert calls == [[query]]
    fresh = GgufEmbedder(minilm_gguf).embed_query(query)
    assert np.array_equal(again, fresh) and np.any(fresh)
