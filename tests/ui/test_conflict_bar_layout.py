"""The conflict bar in the real window at 1280x800 and at a 1000 px window, in English
and in Chinese: the changed-on-disk bar and, after Merge, the conflict bar take the
note pane's width as it is (the explanation beside it keeps its width), every button
shows its whole text, and at 1280x800 the count and the buttons share one row."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QRect, QTranslator
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QAbstractButton, QWidget

from memdesk.qt import translations

NOTE = "memory/2026-06-08.md"


@pytest.fixture(params=["en", "zh_CN"])
def language(request, qapp):  # type: ignore[no-untyped-def]
    if request.param == "zh_CN":
        translations.compile_all()
        assert translations.install(qapp, "zh_CN") == "zh_CN"
    yield request.param
    for translator in qapp.findChildren(QTranslator):
        QCoreApplication.removeTranslator(translator)
        translator.deleteLater()


def _whole(bar: QWidget) -> list[str]:
    """The buttons of ``bar`` that are cut: outside it or narrower than their text."""
    cut = []
    inside = QRect(0, 0, bar.width(), bar.height())
    for button in bar.findChildren(QAbstractButton):
        if not button.isVisibleTo(bar):
            continue
        at = QRect(button.mapTo(bar, button.rect().topLeft()), button.size())
        if not inside.contains(at) or button.width() < button.sizeHint().width():
            cut.append(f"{button.objectName() or button.text()}: {at} in {inside}, hint {button.sizeHint()}")
    return cut


@pytest.mark.parametrize("width", [1280, 1000])
def test_the_conflict_bars_fit_the_note_pane_without_moving_the_splitter(  # type: ignore[no-untyped-def]
    qtbot, language, make_window, workspace: Path, tmp_path: Path, monkeypatch, width: int
) -> None:
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "openclaw"))  # never the real ~/.openclaw
    window = make_window(workspace, model=None)
    window.set_window_size(width, 800)
    qtbot.waitUntil(lambda: window.width() == width and window.editor.width() > 0, timeout=5000)
    assert window.open_note(NOTE)
    qtbot.wait(100)
    splitter = window.panes.note_splitter
    sizes = splitter.sizes()
    explanation = window.search_panel.detail.width()
    editor = window.note_editor
    first = window.editor.document().firstBlock()
    cursor = window.editor.textCursor()
    cursor.setPosition(first.position() + first.length() - 1)
    cursor.insertText(" (mine)")
    path = workspace / NOTE
    lines = path.read_text(encoding="utf-8").split("\n", 1)
    path.write_text(lines[0] + " (theirs)\n" + lines[1], encoding="utf-8")
    with qtbot.waitSignal(editor.conflict_detected, timeout=10_000):
        editor.on_files_changed([NOTE])
    dialog = editor.open_dialog(NOTE)
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    qtbot.wait(100)  # the splitter would follow a larger minimum here
    assert splitter.sizes() == sizes and window.search_panel.detail.width() == explanation
    assert window.width() == width
    assert _whole(dialog) == [], (language, width, dialog.width())  # "erg", "ep mir" at 1000 px
    with qtbot.waitSignal(editor.conflicts_changed, timeout=5000):
        dialog.merge_button.click()
    bar = editor.conflict_bar
    qtbot.waitUntil(bar.isVisible, timeout=2000)
    editor.go_to_conflict(1)  # "Conflict 1 of 1", then between hunks: the rows stay
    qtbot.wait(100)
    debug = (language, width, sizes, splitter.sizes(), bar.width(), bar.minimumSizeHint().width())
    assert splitter.sizes() == sizes, debug
    assert window.search_panel.detail.width() == explanation and window.width() == width, debug
    assert _whole(bar) == [], debug
    assert bar.label.text() == bar.label.full_text(), debug  # the count is not shortened
    height = bar.height()
    if width == 1280:
        assert bar.one_row, debug  # the note keeps its lines
    window.editor.moveCursor(QTextCursor.MoveOperation.End)  # below the hunk
    qtbot.wait(50)
    assert bar.label.full_text() in ("1 conflict to resolve", "还有 1 处冲突待解决"), debug
    assert bar.label.text() == bar.label.full_text(), debug
    assert bar.height() == height and _whole(bar) == [] and splitter.sizes() == sizes, debug
