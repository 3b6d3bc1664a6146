"""memory_search_as_of on a day whose text the live index never embedded answers at
once, keyword-only and saying so, while the day's changed chunks are embedded in the
background; the next search of that day is hybrid."""

from __future__ import annotations

from pathlib import Path

from memdesk.mcp.tools import MemoryTools
from tests.core.asof import scripted


def test_a_new_days_first_answer_is_keyword_first_then_hybrid(
    tmp_path: Path, memdesk_home: Path, minilm_path: Path
) -> None:
    root = tmp_path / "ws"
    scripted.scripted(root)  # the live index sees only today's notes: day 3's ferry text is new
    tools = MemoryTools(root, model=str(minilm_path), sync_on_start=False)
    try:
        tools.engine().sync()
        first = tools.memory_search_as_of("who owns the ferry project", "2026-11-03")
        assert first["mode"] == "fts" and first["as_of"]["pending_chunks"] == 2
        assert any("keyword-only" in n and "2 passages" in n for n in first["notices"]), first["notices"]
        ferry = [h for h in first["results"] if h["path"] == scripted.FERRY]
        assert ferry and "Dana Whitfield" in ferry[0]["snippet"] and ferry[0]["changed_since"] is True
        assert tools.wait_for_as_of(300)
        second = tools.memory_search_as_of("who owns the ferry project", "2026-11-03")
        assert second["mode"] == "hybrid" and second["as_of"]["pending_chunks"] == 0
        assert not any("keyword-only" in n for n in second["notices"])
        assert (
            "Dana Whitfield" in next(h for h in second["results"] if h["path"] == scripted.FERRY)["snippet"]
        )
    finally:
        tools.close()
    assert tools.wait_for_as_of(0)  # no thread outlives the tools


def test_closing_stops_a_finish_under_way(tmp_path: Path, memdesk_home: Path, minilm_path: Path) -> None:
    root = tmp_path / "ws"
    scripted.scripted(root)
    tools = MemoryTools(root, model=str(minilm_path), sync_on_start=False)
    try:
        tools.engine().sync()
        tools.memory_search_as_of("ferry", "2026-11-03")
    finally:
        tools.close()
    assert tools.wait_for_as_of(0)
