"""The Changes view's list: a period's versions counted per note and source in one query."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memdesk.core.history import open_history

T0 = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)


def test_counts_per_note_and_source_in_the_period(tmp_path: Path) -> None:
    history = open_history(tmp_path)
    try:
        history.take_baseline([("MEMORY.md", b"v0\n", None, 3)])
        for i, source in enumerate(["memdesk", "disk", "disk", "mcp"]):
            history.capture("MEMORY.md", f"v{i + 1}\n".encode(), source=source, at=T0 + dt.timedelta(hours=i))
        history.capture("memory/a.md", b"a\n", source="disk", at=T0 - dt.timedelta(days=2))  # before
        history.capture("memory/a.md", b"b\n", source="disk", at=T0 + dt.timedelta(days=5))  # after
        rows = history.summarize(T0, T0 + dt.timedelta(days=1))
        assert [(r.note, r.source, r.count) for r in rows] == [
            ("MEMORY.md", "disk", 2),
            ("MEMORY.md", "mcp", 1),
            ("MEMORY.md", "memdesk", 1),
        ]  # the baseline is no change; a.md's versions fall outside
        disk = rows[0]
        assert disk.first == T0 + dt.timedelta(hours=1) and disk.last == T0 + dt.timedelta(hours=2)
        # The same as counting History.changes, which reads every version.
        full = history.changes(T0, T0 + dt.timedelta(days=1))
        assert sum(r.count for r in rows) == len(full) == 4
        found = history.note_changes("MEMORY.md", T0, T0 + dt.timedelta(days=1))
        assert [v.source for v in found] == ["memdesk", "disk", "disk", "mcp"]
        assert history.note_changes("memory/a.md", T0) == [
            v for v in history.timeline("memory/a.md", git=False) if v.at >= T0
        ]
    finally:
        history.close()
