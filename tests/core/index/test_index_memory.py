"""What a first index keeps in memory grows with the notes only where it must: the
search's caches are not filled with every chunk text (peak RSS at 20,000 notes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.core import engine, errors
from memdesk.core.index import windows
from tests.fakes import HashEmbedder


def test_a_first_index_leaves_the_searchs_window_cache_empty(tmp_path: Path) -> None:
    """Deciding which chunks get passage windows went through ``line_windows``' cache,
    kept for the process's life: 16,384 chunk texts (~17 MB at 20,000 notes, twice:
    the keyword batches and the pending windows) that no search had asked for."""
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    for i in range(40):
        items = "\n".join(f"- item {i}.{j}: bought {j} figs at the market" for j in range(12))
        (root / "memory" / f"2020-01-{i % 28 + 1:02}-{i}.md").write_text(
            f"# Day {i}\n\n{items}\n", encoding="utf-8"
        )
    windows.line_windows.cache_clear()
    eng = engine.Engine(root, embedder=HashEmbedder(64), db_path=tmp_path / "i.sqlite", history=False)
    phases: list[str] = []
    try:
        # Stopped at hybrid-ready (every chunk vector in), as index_2000 --until hybrid measures.
        with pytest.raises(errors.Cancelled):
            eng.sync(progress=lambda p: phases.append(p.phase), cancelled=lambda: "windows" in phases)
        assert "embed" in phases and eng.status().chunks >= 40
        assert windows.line_windows.cache_info().currsize == 0
    finally:
        eng.close()
