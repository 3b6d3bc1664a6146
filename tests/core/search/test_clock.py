"""The workspace clock: its default (the newest dated note), the override, and relative
dates ("last week", "in March", "7月14日") measured against it, not the wall clock.

The notes are from 2023 (as a conversation memory written back then): against the wall
clock "in March" would name March of this year, when no note was written.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from memdesk.core import engine as engine_mod
from memdesk.core.embed import gguf_embedder
from memdesk.core.index import workspace
from memdesk.core.search import clock
from memdesk.core.search.settings import SearchSettings

MEMDESK = SearchSettings.defaults("memdesk").replace(mmr=False)


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def old_memory(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    _write(root, "MEMORY.md", "# Memory\n\nMelanie likes painting and hiking.\n")
    _write(
        root, "memory/2023-03-12.md", "# 2023-03-12\n\nMelanie went hiking in the mountains with her kids.\n"
    )
    _write(root, "memory/2023-07-14.md", "# 2023-07-14\n\nMelanie went hiking by the lake and painted it.\n")
    _write(root, "memory/2023-10-16.md", "# 2023-10-16\n\nMelanie went hiking on a rainy trail.\n")
    _write(root, "memory/2023-10-22.md", "# 2023-10-22\n\nMelanie talked about her pottery class.\n")
    return root


def _default(root: Path) -> dt.date | None:
    return clock.default_clock(root, workspace.list_memory_files(root))


def test_the_default_is_the_newest_dated_note_not_the_newest_write(old_memory: Path) -> None:
    os.utime(old_memory / "MEMORY.md")  # written just now: not a dated note
    assert _default(old_memory) == dt.date(2023, 10, 22)
    # A note named for a day still to come is a plan: it does not move the clock.
    _write(old_memory, "memory/2999-01-01.md", "# plans\n")
    assert _default(old_memory) == dt.date(2023, 10, 22)


def test_without_dated_notes_the_default_is_the_newest_write(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    a = _write(root, "MEMORY.md", "# Memory\n")
    b = _write(root, "memory/projects/ferry.md", "# Ferry\n")
    os.utime(a, (1_600_000_000, 1_600_000_000))  # 2020-09-13
    os.utime(b, (1_700_000_000, 1_700_000_000))  # 2023-11-14
    assert _default(root) == dt.date(2023, 11, 14)
    assert clock.default_clock(tmp_path / "empty", []) is None


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("where did Melanie go hiking in March", "memory/2023-03-12.md"),
        ("where did Melanie go hiking last week", "memory/2023-10-16.md"),
        ("Melanie 7月14日 hiking", "memory/2023-07-14.md"),
    ],
)
def test_relative_dates_resolve_against_the_workspace_clock(
    old_memory: Path, tmp_path: Path, minilm_path: Path, query: str, answer: str
) -> None:
    eng = engine_mod.Engine(
        old_memory, embedder=gguf_embedder.GgufEmbedder(minilm_path), db_path=tmp_path / "i.sqlite"
    )
    try:
        eng.sync()
        assert eng.default_clock() == dt.date(2023, 10, 22)
        hits = eng.search(query, MEMDESK).hits  # no --now: the workspace's clock
        boosted = {h.path for h in hits if h.date_boost > 0}
        # (a note up to three days after the period counts too: "last week" takes 2023-10-22)
        assert answer in boosted and "MEMORY.md" not in boosted
        assert hits[0].path == answer
        # An explicit clock overrides it: a year later, the same words name other days.
        later = eng.search(query, MEMDESK, now=dt.date(2024, 12, 1)).hits
        assert not any(h.date_boost > 0 for h in later)
    finally:
        eng.close()


def test_a_new_dated_note_moves_the_clock_at_the_next_sync(old_memory: Path, tmp_path: Path) -> None:
    eng = engine_mod.Engine(old_memory, embedder=None, db_path=tmp_path / "i.sqlite")
    try:
        eng.sync()
        assert eng.clock() == dt.date(2023, 10, 22)
        assert eng.clock(dt.date(2024, 1, 1)) == dt.date(2024, 1, 1)
        _write(old_memory, "memory/2023-11-02.md", "# 2023-11-02\n\nA new session.\n")
        eng.sync()
        assert eng.clock() == dt.date(2023, 11, 2)
    finally:
        eng.close()
