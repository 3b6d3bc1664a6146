"""Help → About names the llama.cpp CPU backend variant that runs here."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.core.embed import cpu_backend


@pytest.fixture
def fts_window(make_window, workspace: Path):  # type: ignore[no-untyped-def]
    return make_window(workspace, model=None)


def test_about_names_the_cpu_backend(fts_window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Even in keyword-only mode (no model loaded), About says which CPU variant would run."""
    llama_cpp = pytest.importorskip("llama_cpp")
    monkeypatch.delenv(cpu_backend.FORCE_ENV, raising=False)
    variants = cpu_backend.variant_libraries(cpu_backend.library_dir(llama_cpp))
    about = fts_window.show_about()
    text = about.label.text()
    about.close()
    assert "llama.cpp CPU backend" in text
    if variants:
        scores = {name: cpu_backend.score(path) for name, path in variants.items()}
        best = max(scores, key=lambda name: scores[name])
        assert f"{best} (runtime dispatch; baseline x64 available)" in text
    else:
        assert "native build (not portable)" in text
