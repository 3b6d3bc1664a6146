"""The vocabulary-free encoder file llama.cpp computes with, and the token rows fed to it.

The point of it is memory (llama.cpp's logits buffer shrinks from vocabulary x
batch tokens floats to one float per token); the contract is that vectors do not
change at all, which these tests check bit for bit on both built models.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import gguf
import numpy as np
import pytest

from memdesk.core.embed import encoder_file
from memdesk.core.embed.gguf_embedder import GgufEmbedder
from memdesk.core.embed.gguf_header import inspect_gguf, read_gguf_header
from memdesk.core.embed.model_digest import file_sha256

_WORDS = (
    "memory note meeting project deadline agent search vector index retrieval café naïve "
    "alice bob friday coffee preference decision 用户 项目 记忆 会议 東京 한국어 [CLS] </s>"
).split()


def _texts() -> list[str]:
    rng = random.Random(7)
    # Short, ~300-token and over-the-context texts (windowed), the empty text and blanks.
    lengths = [1, 3, 20, 150, 200, 260, 300, 700, 1500]
    return [" ".join(rng.choice(_WORDS) for _ in range(n)) for n in lengths] + ["", "   \n"]


@pytest.mark.parametrize("model", ["minilm_path", "e5_path"])
def test_vectors_are_bit_identical_to_the_full_model(model: str, request: pytest.FixtureRequest) -> None:
    path: Path = request.getfixturevalue(model)
    full = GgufEmbedder(path, input_embeddings=False)
    fast = GgufEmbedder(path)
    try:
        assert full._output_vocab > 30_000  # the model's own vocabulary sizes llama.cpp's logits
        assert fast._output_vocab == 1  # the encoder file's: one float per token
        assert fast._token_rows is not None
        texts = _texts()
        assert [fast.count_tokens(t) for t in texts] == [full.count_tokens(t) for t in texts]
        assert max(full.count_tokens(t) for t in texts) > full.max_input_tokens  # windows too
        np.testing.assert_array_equal(fast.embed_documents(texts), full.embed_documents(texts))
        for text in texts[:4]:
            np.testing.assert_array_equal(fast.embed_query(text), full.embed_query(text))
        for text in texts[2:6]:  # OpenClaw's recipe path: one sequence, flash attention off
            window = full.token_windows(text)[0]
            np.testing.assert_array_equal(fast.encode_reference(window), full.encode_reference(window))
        assert fast.identity == full.identity  # same vectors, same index: nothing to rebuild
    finally:
        full.close()
        fast.close()


@pytest.mark.parametrize("qtype", ["F32", "F16", "Q8_0", "Q4_0"])
def test_token_rows_dequantise_like_ggml(tmp_path: Path, qtype: str) -> None:
    """Rows read in Python equal gguf-py's port of ggml's dequantisation, exactly."""
    kind = gguf.GGMLQuantizationType[qtype]
    rng = np.random.default_rng(3)
    weights = rng.standard_normal((50, 64)).astype(np.float32)
    stored = gguf.quants.quantize(weights, kind) if kind.name.startswith("Q") else weights
    if kind == gguf.GGMLQuantizationType.F16:
        stored = weights.astype(np.float16)
    path = tmp_path / "rows.gguf"
    writer = gguf.GGUFWriter(str(path), "bert")
    writer.add_uint32("bert.embedding_length", 64)
    writer.add_tensor("token_embd.weight", stored, raw_dtype=kind if kind.name.startswith("Q") else None)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    info = read_gguf_header(path)
    assert encoder_file.token_row_bytes(info.tensors["token_embd.weight"][0], 64) is not None
    expected = (
        gguf.quants.dequantize(np.asarray(stored).view(np.uint8), kind)
        if kind.name.startswith("Q")
        else (np.asarray(stored, dtype=np.float32))
    )
    ids = np.array([0, 49, 7, 7, 23], dtype=np.int32)
    got = encoder_file.TokenRows(info).rows(ids)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.asarray(expected, dtype=np.float32).reshape(50, 64)[ids])


def test_stale_or_damaged_encoder_file_is_rebuilt(tmp_path: Path, minilm_path: Path) -> None:
    model = tmp_path / minilm_path.name
    shutil.copyfile(minilm_path, model)
    info = inspect_gguf(model)
    sha = file_sha256(model)
    sidecar = encoder_file.ensure_encoder(info, sha)
    assert sidecar == encoder_file.sidecar_path(model)
    assert read_gguf_header(sidecar).get("memdesk.encoder_of") == sha
    built = sidecar.stat().st_mtime_ns
    assert encoder_file.ensure_encoder(info, sha) == sidecar and sidecar.stat().st_mtime_ns == built
    sidecar.write_bytes(b"GGUF and then nothing")
    assert encoder_file.ensure_encoder(info, sha) == sidecar
    assert read_gguf_header(sidecar).get("memdesk.encoder_of") == sha
    other = "0" * 64  # the model file changed: its encoder file names the old digest
    assert encoder_file.ensure_encoder(info, other) == sidecar
    assert read_gguf_header(sidecar).get("memdesk.encoder_of") == other


def test_unwritable_model_folder(tmp_path: Path, minilm_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only model folder puts the encoder file in the user cache; with no
    folder at all the embedder runs the model file itself, with the same vectors."""
    unwritable = Path("/proc/memdesk-cannot-write-here")
    monkeypatch.setattr(encoder_file, "sidecar_path", lambda _model: unwritable / "x.encoder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cached = GgufEmbedder(minilm_path)
    try:
        assert cached._output_vocab == 1
        assert (tmp_path / "cache") in encoder_file.ensure_encoder(
            cached.info, file_sha256(minilm_path)
        ).parents
        vector = cached.embed_query("where did the Friday release land?")
    finally:
        cached.close()
    monkeypatch.setattr(encoder_file, "_cache_path", lambda _model, _sha: unwritable / "y.encoder")
    fallback = GgufEmbedder(minilm_path)
    try:
        assert fallback._token_rows is None and fallback._output_vocab > 30_000
        np.testing.assert_array_equal(fallback.embed_query("where did the Friday release land?"), vector)
    finally:
        fallback.close()


def test_a_bundles_models_folder_is_never_written(
    tmp_path: Path, minilm_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The installed app writes nothing into its install folder (a package manager
    would find it left behind): a shipped model without its encoder file gets one
    in the user cache; one shipped with it uses it."""
    from memdesk.core import paths

    shipped = tmp_path / "bundle" / "models"
    shipped.mkdir(parents=True)
    model = shipped / minilm_path.name
    shutil.copyfile(minilm_path, model)
    monkeypatch.setattr(paths, "bundled_models_dir", lambda: shipped)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    info = inspect_gguf(model)
    sha = file_sha256(model)
    encoder = encoder_file.ensure_encoder(info, sha)
    assert encoder is not None and (tmp_path / "cache") in encoder.parents
    assert sorted(p.name for p in shipped.iterdir()) == [model.name]
    monkeypatch.setattr(paths, "bundled_models_dir", lambda: None)  # the bundle build's own run
    encoder_file.derive_encoder(info, sha, encoder_file.sidecar_path(model))
    monkeypatch.setattr(paths, "bundled_models_dir", lambda: shipped)
    assert encoder_file.ensure_encoder(info, sha) == encoder_file.sidecar_path(model)
