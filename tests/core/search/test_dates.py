"""Which date a note ages from under the memdesk profile, on real files."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from memdesk.core.search import dates

MEMDESK = "memdesk"


@pytest.mark.parametrize(
    ("rel", "date"),
    [
        ("memory/2026-01-11.md", dt.date(2026, 1, 11)),
        ("memory/2026-01-11-vendor-pitch.md", dt.date(2026, 1, 11)),
        ("memory/2026_01_11.md", dt.date(2026, 1, 11)),
        ("memory/2026/01/11.md", dt.date(2026, 1, 11)),
        ("memory/2026/01/11-standup.md", dt.date(2026, 1, 11)),
        ("memory/projects/harbor.md", None),
        ("notes/2026-01-11.md", None),  # outside memory/: no dated name
        ("memory/2026-02-30.md", None),  # no such day
    ],
)
def test_dates_named_by_memory_paths(rel: str, date: dt.date | None) -> None:
    assert dates.memdesk_path_date(rel) == date


def test_evergreen_and_dated_notes(tmp_path: Path) -> None:
    for rel in ("MEMORY.md", "memory/projects/harbor.md", "memory/2026-01-11.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n", encoding="utf-8")
    assert dates.decay_date("MEMORY.md", profile=MEMDESK, workspace=tmp_path) is None
    assert dates.decay_date("memory/projects/harbor.md", profile=MEMDESK, workspace=tmp_path) is None
    assert dates.decay_date("memory/2026-01-11.md", profile=MEMDESK, workspace=tmp_path) == dt.date(
        2026, 1, 11
    )


@pytest.mark.parametrize(
    "rel", ["memory/2026-02-30.md", "memory/2026/13/01.md", "memory/2026-02-30-retro.md"]
)
def test_a_daily_note_with_an_impossible_date_ages_from_its_modification_time(
    tmp_path: Path, rel: str
) -> None:
    """Not evergreen: an evergreen note counts as current for ever and would take the
    whole recency bonus from every real daily note."""
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("- a note\n", encoding="utf-8")
    stamp = dt.datetime(2025, 3, 4, 12, tzinfo=dt.UTC).timestamp()
    os.utime(path, (stamp, stamp))
    assert dates.decay_date(rel, profile=MEMDESK, workspace=tmp_path) == dt.date(2025, 3, 4)
