"""Search filters: folders and a date range, applied in the engine before any ranking."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from memdesk.core import engine as engine_mod
from memdesk.core.embed import gguf_embedder
from memdesk.core.search import filters
from memdesk.core.search.settings import SearchSettings

MEMDESK = SearchSettings.defaults("memdesk")


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_folders_are_prefixes_inside_the_workspace() -> None:
    f = filters.SearchFilter.build(["memory/projects/", "./memory/people", "memory\\projects", ""])
    assert f.folders == ("memory/projects/", "memory/people/")
    assert f.keeps_path("memory/projects/ferry.md") and f.keeps_path("memory/people/ana.md")
    assert not f.keeps_path("memory/projects-old/x.md") and not f.keeps_path("MEMORY.md")
    for bad in ("../elsewhere", "/etc", "memory/../../x"):
        with pytest.raises(filters.FilterError, match="a folder inside the workspace"):
            filters.SearchFilter.build([bad])
    with pytest.raises(filters.FilterError, match="ends before it starts"):
        filters.SearchFilter.build(since=dt.date(2026, 11, 30), until=dt.date(2026, 11, 1))
    assert not filters.SearchFilter.build().active


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    _write(root, "MEMORY.md", "# Memory\n\nFerry ships on Fridays. Ferry owner: Ana.\n")
    _write(root, "memory/2026-10-03.md", "# 2026-10-03\n\nFerry planning started; owner unclear.\n")
    _write(root, "memory/2026-11-10.md", "# 2026-11-10\n\nFerry owner: Bo takes over from Ana.\n")
    ferry = _write(
        root, "memory/projects/ferry.md", "# Ferry\n\nThe ferry project: owner Bo, ships weekly.\n"
    )
    old = _write(root, "memory/projects/canal.md", "# Canal\n\nThe canal project, ferry's predecessor.\n")
    # Undated notes count by their last change.
    os.utime(ferry, (dt.datetime(2026, 11, 12, 12, tzinfo=dt.UTC).timestamp(),) * 2)
    os.utime(old, (dt.datetime(2026, 6, 1, 12, tzinfo=dt.UTC).timestamp(),) * 2)
    os.utime(root / "MEMORY.md", (dt.datetime(2026, 9, 1, 12, tzinfo=dt.UTC).timestamp(),) * 2)
    return root


def test_the_engine_keeps_only_the_filtered_folders_and_days(
    ws: Path, tmp_path: Path, minilm_path: Path
) -> None:
    eng = engine_mod.Engine(
        ws, embedder=gguf_embedder.GgufEmbedder(minilm_path), db_path=tmp_path / "i.sqlite"
    )
    try:
        eng.sync()
        everything = {h.path for h in eng.search("who owns the ferry project", MEMDESK).hits}
        assert {"MEMORY.md", "memory/2026-10-03.md", "memory/projects/canal.md"} <= everything

        def paths(flt: filters.SearchFilter) -> set[str]:
            return {h.path for h in eng.search("who owns the ferry project", MEMDESK, filters=flt).hits}

        assert paths(filters.SearchFilter.build(["memory/projects"])) == {
            "memory/projects/ferry.md",
            "memory/projects/canal.md",
        }
        november = filters.SearchFilter.build(since=dt.date(2026, 11, 1), until=dt.date(2026, 11, 30))
        assert paths(november) == {"memory/2026-11-10.md", "memory/projects/ferry.md"}
        both = filters.SearchFilter.build(["memory/projects"], dt.date(2026, 11, 1), dt.date(2026, 11, 30))
        assert paths(both) == {"memory/projects/ferry.md"}
        assert paths(filters.SearchFilter.build(until=dt.date(2026, 9, 30))) == {
            "MEMORY.md",
            "memory/projects/canal.md",
        }
        # The OpenClaw profiles take the same filter (it is applied to the candidates).
        oc = eng.search(
            "who owns the ferry project",
            SearchSettings.defaults("openclaw-2026.4"),
            filters=filters.SearchFilter.build(["memory/projects"]),
        )
        assert {h.path for h in oc.hits} <= {"memory/projects/ferry.md", "memory/projects/canal.md"}
    finally:
        eng.close()


def test_a_filter_widens_the_pool_so_a_folder_is_not_crowded_out(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    # Forty notes match better than the one in the folder; the default pool (40 rows a
    # leg at 10 results) would not reach it.
    for i in range(60):
        _write(root, f"memory/bulk/n{i:02d}.md", f"# Harbor {i}\n\nharbor harbor harbor schedule {i}\n")
    _write(root, "memory/projects/ferry.md", "# Ferry\n\nThe harbor schedule, once.\n")
    eng = engine_mod.Engine(root, embedder=None, db_path=tmp_path / "i.sqlite")
    try:
        eng.sync()
        assert "memory/projects/ferry.md" not in {h.path for h in eng.search("harbor schedule", MEMDESK).hits}
        found = eng.search(
            "harbor schedule", MEMDESK, filters=filters.SearchFilter.build(["memory/projects"])
        )
        assert [h.path for h in found.hits] == ["memory/projects/ferry.md"]
    finally:
        eng.close()
