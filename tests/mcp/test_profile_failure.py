"""memory_search with an OpenClaw profile that cannot index the workspace (its release's
reindex fails on an over-context chunk): the answer says nothing was searched, not a
hybrid search that found nothing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from memdesk.mcp.tools import MemoryTools

REPO = Path(__file__).resolve().parents[2]


def test_memory_search_says_the_profile_searched_nothing(
    tmp_path: Path, memdesk_home: Path, e5_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "workspace"
    shutil.copytree(REPO / "examples" / "workspace", ws)
    home = tmp_path / "home"  # no ~/.openclaw: the release's defaults
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in [k for k in os.environ if k.startswith("OPENCLAW_")]:
        monkeypatch.delenv(name)
    tools = MemoryTools(ws, model=str(e5_path), sync_on_start=False)
    try:
        tools.engine().sync()
        data = tools.memory_search("deploy window", profile="openclaw-2026.9")
    finally:
        tools.close()
    assert data["results"] == []
    assert data["mode"] == "none"
    assert any("OpenClaw 2026.9 cannot index" in n for n in data["notices"]), data["notices"]
