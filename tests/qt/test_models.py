"""Item models checked with pytest-qt's model tester, and their column/tree contracts."""

from __future__ import annotations

import dataclasses
import datetime as dt

from PySide6.QtCore import Qt

from memdesk.core.search import hits
from memdesk.qt import models


def _hit(rank: int, *, vector: float | None = 0.5, mmr: int | None = 1) -> hits.Hit:
    return hits.Hit(
        rank=rank,
        chunk_id=f"c{rank}",
        path=f"memory/n{rank}.md",
        source="memory",
        start_line=1,
        end_line=4,
        snippet="some  text\nhere",
        text="some text here",
        vector_score=vector,
        text_score=0.25,
        merged_score=0.4,
        decay=0.9,
        score=0.36,
        pre_mmr_rank=rank,
        mmr_rank=mmr,
        date=dt.date(2026, 6, 1),
    )


def test_results_model_passes_model_tester(qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    """The results table model is a well-behaved Qt model, empty and filled."""
    model = models.ResultsModel()
    qtmodeltester.check(model)
    model.set_hits([_hit(1), _hit(2, vector=None, mmr=None)], ["text"])
    qtmodeltester.check(model)


def test_results_columns_are_data() -> None:
    """Every column has a header and text; score columns expose a bar value."""
    model = models.ResultsModel()
    model.set_hits([_hit(1, vector=None, mmr=None)])
    headers = [model.headerData(i, Qt.Orientation.Horizontal) for i in range(model.columnCount())]
    assert headers == [c.header for c in models.COLUMNS]
    row = {c.key: model.index(0, i).data() for i, c in enumerate(models.COLUMNS)}
    assert row["vector"] == "—" and row["mmr"] == "—"
    assert row["location"] == "memory/n1.md:1-4"
    assert row["snippet"] == "some text here"  # whitespace folded for one table line
    final = model.index(0, models.column_index("final"))
    assert final.data(models.ScoreRole) == 0.36
    assert model.index(0, 0).data(models.ScoreRole) is None


def test_a_hit_whose_text_changed_in_place_gets_its_marks_anew() -> None:
    """A note edited on disk is searched again: the same chunk in the same row (no reset,
    so the selection stays) with a new text. Its match marks are found in the new text,
    not kept from the old one, where they would mark the wrong words."""
    model = models.ResultsModel()
    before = dataclasses.replace(_hit(1), text="deploy day is Thursday")
    model.set_hits([before], ["deploy"])
    snippet = model.index(0, models.column_index("snippet"))
    assert snippet.data(models.SpansRole) == [(0, 6)]
    after = dataclasses.replace(before, text="Edited at the desk. deploy day is Thursday")
    assert model.set_hits([after], ["deploy"]) is False  # same rows: no reset
    text = snippet.data(Qt.ItemDataRole.DisplayRole)
    assert [text[a:b] for a, b in snippet.data(models.SpansRole)] == ["deploy"]


def test_tree_model_passes_model_tester(qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    """The workspace tree model nests folders and marks file states."""
    model = models.WorkspaceTreeModel()
    qtmodeltester.check(model)
    model.set_files(["memory/a.md", "MEMORY.md", "memory/projects/x.md"])
    model.set_states({"memory/a.md": ("failed", "binary"), "MEMORY.md": ("indexed", "")})
    qtmodeltester.check(model)
    top = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert top == ["MEMORY.md", "memory"]
    failed = model.index_of("memory/a.md")
    assert failed.data(models.StateRole) == "failed"
    assert "binary" in failed.data(Qt.ItemDataRole.ToolTipRole)
    assert model.index_of("memory/projects/x.md").data(models.StateRole) == "pending"
    model.set_files(["MEMORY.md"])
    assert not model.index_of("memory/a.md").isValid()
