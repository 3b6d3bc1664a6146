"""The main window in Chinese: menus, column headers and the score explanation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt, QTranslator

from memdesk.qt import translations
from tests.ui.conftest import search

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def chinese(qapp):  # type: ignore[no-untyped-def]
    translations.compile_all()
    assert translations.install(qapp, "zh_CN") == "zh_CN"
    yield
    for translator in qapp.findChildren(QTranslator):
        QCoreApplication.removeTranslator(translator)
        translator.deleteLater()


def test_window_is_chinese(qtbot, chinese, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(workspace, model=None)
    menus = [action.text() for action in window.menuBar().actions()]
    assert menus[:3] == ["文件(&F)", "编辑(&E)", "视图(&V)"]
    assert all(CJK.search(text) for text in menus)
    model = window.results_table.model()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    for word in ("向量分数", "文本分数", "时间衰减", "最终分数"):
        assert word in headers
    search(qtbot, window, "鉴权")
    assert model.rowCount() > 0
    window.results_table.selectRow(0)
    window.search_panel.hit_activated.emit(window.search_panel.current_hit())
    detail = window.search_panel.detail.toPlainText()
    assert "文本分数" in detail and "最终分数" in detail, detail
    # Apart from numbers, paths and the query's own words, the explanation is Chinese.
    leftover = re.findall(r"\b[A-Za-z]{4,}\b", re.sub(r"\S*\.md\S*|BM25|MMR", "", detail))
    assert leftover == [], detail


def test_status_bar_reasons_are_chinese_too(qtbot, chinese, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """The core's reasons (why search is keyword-only, why a note was skipped) reach the
    status bar translated, also when they are read back from the index later."""
    import os

    (workspace / "memory" / "utf16.md").write_bytes("# note\n\nwritten by Notepad\n".encode("utf-16"))
    (workspace / "memory" / "blob.md").write_bytes(b"\x00\x01\x02 binary\n")
    os.symlink(workspace / "MEMORY.md", workspace / "memory" / "link.md")
    window = make_window(workspace, model=None)
    qtbot.waitUntil(lambda: window.skipped_button.isVisible(), timeout=30_000)
    assert CJK.search(window.skipped_button.text())
    mode = window.mode_label.text()
    assert CJK.search(mode) and not re.search(r"\b(model|embedding|keyword)\b", mode), mode
    reasons = dict(window.show_skipped().rows())
    assert set(reasons) == {"memory/utf16.md", "memory/blob.md", "memory/link.md"}
    for path, reason in reasons.items():
        assert CJK.search(reason) and "skipped" not in reason, (path, reason)
        assert not reason.startswith(path), reason
    window.skipped_dialog.close()
    # A second window reads the two unreadable notes' reasons back from the index.
    window.close()
    again = make_window(workspace, model=None)
    qtbot.waitUntil(lambda: again.skipped_button.isVisible(), timeout=30_000)
    assert dict(again.show_skipped().rows()) == reasons
