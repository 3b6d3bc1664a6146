"""Editor and preview: line numbers, the opened hit's matched lines, find, zoom, and a
preview that renders tables, code and task lists without loading anything."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QTextDocument

from memdesk.qt import models
from tests.ui.conftest import search, wait_idle


@pytest.fixture
def fts_window(make_window, workspace: Path):  # type: ignore[no-untyped-def]
    return make_window(workspace, model=None)


def _open_first_hit(qtbot, window, query: str):  # type: ignore[no-untyped-def]
    results = search(qtbot, window, query)
    window.results_table.selectRow(0)
    with qtbot.waitSignal(window.search_panel.hit_activated):
        qtbot.keyClick(window.results_table, Qt.Key.Key_Return)
    return results.hits[0]


def test_editor_has_line_numbers(fts_window) -> None:  # type: ignore[no-untyped-def]
    """The editor reserves a gutter wide enough for its line numbers."""
    fts_window.open_note("MEMORY.md")
    editor = fts_window.editor
    digits = len(str(editor.blockCount()))
    assert editor.viewportMargins().left() == editor.line_number_width()
    assert editor.line_number_width() > editor.fontMetrics().horizontalAdvance("9" * digits)


def test_hit_highlights_matched_lines_and_clears_on_next_query(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """Opening a hit highlights only its lines that hold the query's words, scrolled into
    view; the next query clears the highlight."""
    hit = _open_first_hit(qtbot, fts_window, "deploy freeze")
    editor = fts_window.note_editor
    lines = editor.matched_line_numbers()
    assert lines and all(hit.start_line <= n <= hit.end_line for n in lines)
    assert len(lines) < hit.end_line - hit.start_line + 1  # not the whole chunk
    document = fts_window.editor.document()
    for n in lines:
        text = document.findBlockByNumber(n - 1).text().lower()
        assert "deploy" in text or "freeze" in text
    assert editor.hit_lines == (hit.start_line, hit.end_line)
    cursor_rect = fts_window.editor.cursorRect()
    assert fts_window.editor.viewport().rect().contains(cursor_rect.center())
    search(qtbot, fts_window, "Atlas tech lead")
    assert editor.matched_line_numbers() == [] and editor.hit_lines is None


def test_find_next_and_previous(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """Ctrl+F opens find; Enter goes to the next match, Shift+Enter back, wrapping."""
    fts_window.open_note("MEMORY.md")
    fts_window.activateWindow()
    fts_window.editor.setFocus()
    qtbot.keyClick(fts_window.editor, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = fts_window.note_editor.find_bar
    assert bar.isVisible() and bar.input.hasFocus()
    qtbot.keyClicks(bar.input, "Atlas")
    count = fts_window.editor.toPlainText().lower().count("atlas")  # find ignores case
    assert count >= 2
    first = fts_window.editor.textCursor().selectionStart()
    assert fts_window.editor.textCursor().selectedText().lower() == "atlas"
    qtbot.keyClick(bar.input, Qt.Key.Key_Return)
    second = fts_window.editor.textCursor().selectionStart()
    assert second > first
    assert bar.count_label.text() == f"2 of {count}"
    qtbot.keyClick(bar.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert fts_window.editor.textCursor().selectionStart() == first
    qtbot.keyClick(bar.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert fts_window.editor.textCursor().selectionStart() > second or count == 2  # wrapped
    qtbot.keyClick(bar.input, Qt.Key.Key_Escape)
    assert not bar.isVisible() and fts_window.editor.hasFocus()


def test_zoom_applies_to_editor_and_results_and_is_remembered(
    qtbot,
    make_window,  # type: ignore[no-untyped-def]
    workspace: Path,
) -> None:
    """Ctrl+= / Ctrl+- resize editor and results together; a restart keeps the size."""
    window = make_window(workspace, model=None)
    editor_size = window.editor.font().pointSizeF()
    results_size = window.results_table.font().pointSizeF()
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert window.editor.font().pointSizeF() == pytest.approx(editor_size + 1)
    assert window.results_table.font().pointSizeF() == pytest.approx(results_size + 1)
    row_height = window.results_table.verticalHeader().defaultSectionSize()
    window.close()
    again = make_window(workspace, model=None, wait=False)
    assert again.editor.font().pointSizeF() == pytest.approx(editor_size + 1)
    assert again.results_table.font().pointSizeF() == pytest.approx(results_size + 1)
    assert again.results_table.verticalHeader().defaultSectionSize() == row_height
    wait_idle(qtbot, again)


PREVIEW_NOTE = """# Plan

| step | owner |
|------|-------|
| ship | Mara  |

```python
print("hi")
```

- [ ] write tests
- [x] fix bug

<script>alert(1)</script> <b>bold?</b>

![chart](https://example.com/chart.png)
"""


def test_preview_renders_tables_code_and_tasks_safely(qtbot, fts_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Tables get grid lines, code a background, task lists boxes; raw HTML stays text and
    no image or remote resource is fetched."""
    (workspace / "memory" / "topics" / "plan.md").write_text(PREVIEW_NOTE, encoding="utf-8")
    fts_window.open_note("memory/topics/plan.md")
    editor = fts_window.note_editor
    requested: list[str] = []
    real = editor.preview.loadResource

    def spy(kind, url):  # type: ignore[no-untyped-def]
        requested.append(QUrl(url).toString())
        return real(kind, url)

    editor.preview.loadResource = spy  # type: ignore[method-assign]
    editor.tabs.setCurrentWidget(editor.preview)
    html = editor.preview.toHtml()
    plain = editor.preview.toPlainText()
    assert "☐" in plain and "☑" in plain and "[ ]" not in plain
    assert "<script>alert(1)</script>" in plain and "<b>bold?</b>" in plain  # shown, not run
    assert "[chart]" in plain and not any("example.com" in u for u in requested)
    document: QTextDocument = editor.preview.document()
    tables = [f for f in document.rootFrame().childFrames() if f.frameFormat().isTableFormat()]
    assert tables and tables[0].frameFormat().toTableFormat().border() >= 1
    assert "background-color" in html  # the code block's tint
    code_block = next(b for b in _blocks(document) if b.text().startswith("print("))
    assert (
        code_block.blockFormat().background().style() != Qt.BrushStyle.NoBrush
        or "background-color" in document.defaultStyleSheet()
    )


def _blocks(document: QTextDocument):  # type: ignore[no-untyped-def]
    block = document.begin()
    while block.isValid():
        yield block
        block = block.next()


def test_hit_without_keyword_match_marks_whole_chunk(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """A hit opened with no matched word still shows its whole line range (gutter bar)."""
    fts_window.open_note("MEMORY.md", lines=(3, 6))
    assert fts_window.note_editor.matched_line_numbers() == [3, 4, 5, 6]
    assert fts_window.editor.marked_lines == (3, 6)
    assert models.column_index("snippet") >= 0
