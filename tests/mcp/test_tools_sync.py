"""The server's background sync: a change asked for while a sync runs is synced too."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from memdesk.mcp.tools import MemoryTools


def test_a_sync_asked_for_during_a_sync_runs_after_it(example_workspace: Path, memdesk_home: Path) -> None:
    """An append lands while the start-up sync is listing the notes: that sync may miss
    the new note, so one more runs when it ends (status must not stay stale)."""
    tools = MemoryTools(example_workspace, model="none", allow_write=True, sync_on_start=False)
    try:
        engine = tools.engine()
        real_sync = engine.sync
        listing = threading.Event()
        go_on = threading.Event()
        calls: list[int] = []

        def slow_first_sync(**kwargs: Any) -> Any:
            calls.append(len(calls))
            if len(calls) == 1:
                listing.set()
                assert go_on.wait(30)
            return real_sync(**kwargs)

        engine.sync = slow_first_sync  # type: ignore[method-assign]
        tools.start_sync()
        assert listing.wait(30)
        result = tools.memory_append("- written while the first sync runs")  # asks for a sync
        go_on.set()
        assert tools.wait_for_sync(60)
        assert len(calls) == 2
        status = tools.memory_status()
        assert result["path"] not in status["stale_notes"] and not status["stale_notes"]
    finally:
        tools.close()
