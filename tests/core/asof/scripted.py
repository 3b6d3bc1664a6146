"""A workspace with a scripted history, shared by the as-of tests (core, CLI, UI).

Day 1 (2026-11-01): the notes are written, the ferry note says Dana owns it.
Day 5: the agent rewrites the ferry note: Marcus owns it now.
Day 7: the lighthouse note is deleted.
MEMORY.md was first captured on 2026-10-25 and never changed.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memdesk.core.history import History, open_history

BEFORE = dt.datetime(2026, 10, 25, 12, tzinfo=dt.UTC)
DAY1 = dt.datetime(2026, 11, 1, 12, tzinfo=dt.UTC)
DAY5 = dt.datetime(2026, 11, 5, 12, tzinfo=dt.UTC)
DAY7 = dt.datetime(2026, 11, 7, 12, tzinfo=dt.UTC)

MEMORY = "# MEMORY\n\n- The team keeps its decisions in dated notes and topic notes.\n"
FERRY_V1 = "# Ferry\n\nThe ferry project is owned by Dana Whitfield; she ships the pontoon importer first.\n"
FERRY_V2 = "# Ferry\n\nThe ferry project is owned by Marcus Oyelaran since the reorg.\n"
LIGHTHOUSE = "# 2026-11-01\n\nStandup: the lighthouse migration to the new cluster starts Monday.\n"
FILLER = {
    "memory/2026-10-20.md": "# 2026-10-20\n\nPlanning poker for the quarter.\n",
    "memory/2026-10-21.md": "# 2026-10-21\n\nRelease notes drafted for the mobile app.\n",
    "memory/2026-10-22.md": "# 2026-10-22\n\nHiring loop: two backend interviews.\n",
    "memory/2026-10-23.md": "# 2026-10-23\n\nLunch with the design team; nothing decided.\n",
}
FERRY = "memory/projects/ferry.md"
GONE = "memory/2026-11-01.md"


def write(root: Path, rel: str, text: str) -> bytes:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path.read_bytes()


def day_one(root: Path) -> History:
    """The workspace as on day 1, its versions captured; returns the open history."""
    history = open_history(root)
    history.capture("MEMORY.md", write(root, "MEMORY.md", MEMORY), source="disk", at=BEFORE)
    for rel, text in FILLER.items():
        history.capture(rel, write(root, rel, text), source="disk", at=DAY1)
    history.capture(FERRY, write(root, FERRY, FERRY_V1), source="disk", at=DAY1)
    history.capture(GONE, write(root, GONE, LIGHTHOUSE), source="memdesk", at=DAY1)
    return history


def later_days(root: Path, history: History) -> None:
    """Day 5's rewrite and day 7's deletion, on disk and in the history."""
    history.capture(FERRY, write(root, FERRY, FERRY_V2), source="disk", at=DAY5)
    (root / GONE).unlink()
    history.capture(GONE, None, source="deleted", at=DAY7)


def scripted(root: Path) -> None:
    """The whole script, the history closed after it."""
    history = day_one(root)
    later_days(root, history)
    history.close()
