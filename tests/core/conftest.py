"""Fixtures shared by the core tests: a freshly converted MiniLM GGUF and its embedder.

The suite-wide ``minilm_path`` (tests/conftest.py) reuses a cached build; these
build from the pinned source package into a temp dir once per session, so the
converter itself is exercised on every run (it takes about a second).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def minilm_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """all-MiniLM-L6-v2 converted to an F16 GGUF in a session temp dir."""
    from memdesk.core.embed.models import minilm

    path = tmp_path_factory.mktemp("minilm") / "all-MiniLM-L6-v2.gguf"
    minilm.build(path, lambda _msg: None)
    return path


@pytest.fixture(scope="session")
def minilm_gguf_f32(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same model with F32 weights (closest to the reference implementation)."""
    from memdesk.core.embed.models import minilm

    path = tmp_path_factory.mktemp("minilm-f32") / "all-MiniLM-L6-v2-f32.gguf"
    minilm.build(path, lambda _msg: None, weights="f32")
    return path


@pytest.fixture(scope="session")
def gguf_embedder(minilm_gguf: Path) -> Iterator[object]:
    """A ``GgufEmbedder`` on the fresh MiniLM build."""
    from memdesk.core.embed.gguf_embedder import GgufEmbedder

    embedder = GgufEmbedder(minilm_gguf)
    yield embedder
    embedder.close()
