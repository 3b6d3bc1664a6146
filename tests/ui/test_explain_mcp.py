"""An agent reads the same explanation a person does: for the same hit, ``memory_search``
with ``explain`` (over a real stdio server) returns the explanation pane's text, word for
word, heading and every row (English)."""

from __future__ import annotations

from pathlib import Path

import anyio
from PySide6.QtGui import QTextCursor, QTextTable
from PySide6.QtWidgets import QTextBrowser

from memdesk.qt import models
from tests.mcp.conftest import call, mcp_session, wait_indexed
from tests.ui.conftest import search

QUERY = "which database did we pick for the vector store"


def _cell(table: QTextTable, row: int, column: int) -> str:
    cell = table.cellAt(row, column)
    cursor = cell.firstCursorPosition()
    cursor.setPosition(cell.lastCursorPosition().position(), QTextCursor.MoveMode.KeepAnchor)
    return cursor.selectedText()


def pane_lines(detail: QTextBrowser) -> list[str]:
    """What the pane shows: its heading line, then "Heading: sentence" per table row."""
    doc = detail.document()
    tables = [f for f in doc.rootFrame().childFrames() if isinstance(f, QTextTable)]
    assert len(tables) == 1, detail.toHtml()
    table = tables[0]
    rows = [f"{_cell(table, r, 0)}: {_cell(table, r, 1)}" for r in range(table.rows())]
    return [doc.firstBlock().text(), *rows]


def test_mcp_explain_is_the_panes_text(
    qtbot, make_window, workspace: Path, minilm_path: Path, hybrid_index: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    window = make_window(workspace, model=minilm_path, seed_index=hybrid_index)
    results = search(qtbot, window, QUERY)
    assert results.pool.mode == "hybrid"

    async def body() -> dict:
        # The window's data dir: the server answers from the index the app keeps.
        async with mcp_session(workspace, tmp_path / "data", "--model", str(minilm_path)) as s:
            await wait_indexed(s)
            return await call(s, "memory_search", query=QUERY, max_results=5, explain=True)

    answer = anyio.run(body)
    assert answer["mode"] == "hybrid" and len(answer["results"]) == 5

    table = window.results_table
    rows = {
        (hit.path, hit.start_line): row
        for row in range(table.model().rowCount())
        if (hit := table.model().index(row, 0).data(models.HitRole)) is not None
    }
    compared = 0
    for result in answer["results"]:
        row = rows.get((result["path"], result["start_line"]))
        assert row is not None, (result["path"], sorted(rows))
        table.setCurrentIndex(table.model().index(row, 1))
        lines = pane_lines(window.search_panel.detail)
        assert result["explain_lines"] == lines
        compared += 1
    assert compared == 5
    # The rows the pane shows for a hybrid hit, so the comparison is not of empty texts.
    first = answer["results"][0]["explain_lines"]
    assert first[0].startswith(f"{answer['results'][0]['path']} · lines ")
    assert any(line.startswith("Combined ") and " × vector " in line for line in first)
    assert any(line.startswith("MMR λ ") for line in first)
