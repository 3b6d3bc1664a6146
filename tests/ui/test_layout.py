"""Every pane fits or scrolls at 1280x800 and 1920x1080, in English and in Chinese: eight
result rows or more, the explanation beside the note reachable to its last line, the
Ranking column's values whole after auto-tune, and the snippet and the query box kept
usable beside the agent dock. Real window, real index, real search and auto-tune."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QPoint, QTranslator
from PySide6.QtWidgets import QLabel

from memdesk.qt import models, translations
from memdesk.ui.panes import MIN_CENTER_WIDTH
from tests.ui.conftest import search

QUERY = "who owns the ferry project now"
MIN_ROWS = 8


@pytest.fixture(params=["en", "zh_CN"])
def language(request, qapp):  # type: ignore[no-untyped-def]
    if request.param == "zh_CN":
        translations.compile_all()
        assert translations.install(qapp, "zh_CN") == "zh_CN"
    yield request.param
    for translator in qapp.findChildren(QTranslator):
        QCoreApplication.removeTranslator(translator)
        translator.deleteLater()


def _visible_width(label: QLabel, viewport) -> int:  # type: ignore[no-untyped-def]
    """How much of ``label`` the scroll area's viewport shows, in pixels."""
    left = label.mapTo(viewport, QPoint(0, 0)).x()
    return min(left + label.width(), viewport.width()) - max(left, 0)


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_every_pane_fits_or_scrolls(  # type: ignore[no-untyped-def]
    qtbot, language, make_window, workspace: Path, tmp_path: Path, monkeypatch, size: tuple[int, int]
) -> None:
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "openclaw"))  # never the real ~/.openclaw
    window = make_window(workspace, model=None)
    window.set_window_size(*size)
    results = search(qtbot, window, QUERY)
    assert len(results.hits) >= MIN_ROWS
    table = window.results_table
    table.selectRow(0)
    qtbot.waitUntil(lambda: table.viewport().height() > 0 and bool(window.search_panel.detail.toPlainText()))

    # (a) eight whole rows or more.
    rows = table.viewport().height() // table.rowHeight(0)
    assert rows >= MIN_ROWS, (rows, table.viewport().height(), table.rowHeight(0))

    # (b) the explanation is on screen, and its last line ("What if", "MMR") is reachable:
    # the text fits the pane's width and whatever is below the pane scrolls into view.
    detail = window.search_panel.detail
    assert detail.isVisible() and detail.viewport().height() >= 8 * detail.fontMetrics().lineSpacing()
    document = detail.document()
    assert document.idealWidth() <= detail.viewport().width() + 1
    overflow = document.size().height() - detail.viewport().height()
    assert overflow <= 0 or detail.verticalScrollBar().maximum() >= overflow - 2

    # Ranking after auto-tune: no value, label or check box of the column is cut.
    lab = window.lab
    for hit in results.hits[:2]:
        with qtbot.waitSignal(lab.readout_changed, timeout=30_000):
            lab.set_relevant(QUERY, hit, True)
    qtbot.waitUntil(lambda: lab.readout is not None and lab.readout.scored == 1, timeout=30_000)
    with qtbot.waitSignal(lab.tune_finished, timeout=120_000):
        window.quality.tune_button.click()
    viewport = window._right_pane.viewport()
    qtbot.waitUntil(lambda: window.quality.result_box.isVisible())
    qtbot.wait(50)  # the scroll area lays out the taller column
    shown = [w for w in window._right_pane.widget().findChildren(QLabel) if w.isVisible() and w.text()]
    assert any(label.objectName() == "vectorWeightSliderValue" for label in shown)
    for label in shown:
        if label.wordWrap():
            need = label.minimumSizeHint().width()
        else:
            need = label.fontMetrics().horizontalAdvance(label.text()) if "<" not in label.text() else 0
        assert label.width() >= need, (label.objectName(), label.text())
        assert _visible_width(label, viewport) >= label.width(), (label.objectName(), label.text())

    # (c) beside the agent dock the query box stays usable and the snippet readable.
    panel = window.search_panel
    window.agent_dock.show_tab(0)
    header = table.horizontalHeader()
    snippet = models.column_index("snippet")
    chars = table.fontMetrics().averageCharWidth()

    def snippet_shown() -> int:
        return min(
            header.sectionSize(snippet), table.viewport().width() - header.sectionViewportPosition(snippet)
        )

    qtbot.waitUntil(lambda: window.agent_dock.isVisible() and window.agent_dock.width() > 0)
    agent = window.agent_dock.panel  # its contents load meanwhile; the dock then takes their width
    qtbot.waitUntil(lambda: agent.width() >= agent.minimumSizeHint().width(), timeout=5000)
    qtbot.wait(100)
    debug = (
        window.width(),
        window.splitter.sizes(),
        window.agent_dock.width(),
        agent.minimumSizeHint().width(),
        table.viewport().width(),
        header.sectionViewportPosition(snippet),
    )
    assert snippet_shown() >= 26 * chars, (snippet_shown(), 26 * chars, debug)
    assert not header.isSectionHidden(snippet)
    assert panel.search_input.width() >= 35 * panel.search_input.fontMetrics().averageCharWidth()
    # Closing the dock brings the tree back.
    window.agent_dock.setVisible(False)
    qtbot.waitUntil(lambda: window.splitter.sizes()[0] > 0, timeout=5000)


def test_a_narrow_window_gives_the_note_the_ranking_columns_room(  # type: ignore[no-untyped-def]
    qtbot, language, make_window, workspace: Path, tmp_path: Path, monkeypatch
) -> None:
    """At 785 px the Ranking column kept its ~310 px and the note had ~145 px of a ~290 px
    middle column. Narrowed, the window folds the Ranking column (nothing of it cut: it
    keeps its least width or none) and the note gets twice that; widened again, the
    column comes back as wide as it was at 1280x800, which is laid out as before."""
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "openclaw"))  # never the real ~/.openclaw
    window = make_window(workspace, model=None)
    window.set_window_size(1280, 800)
    panes = window.panes
    pane = window._right_pane
    body = pane.widget()
    qtbot.waitUntil(lambda: pane.viewport().width() >= body.sizeHint().width())
    wide = window.splitter.sizes()
    assert wide[2] >= panes.ranking_width()  # the whole column at 1280x800
    assert wide[1] >= 2 * wide[2]

    def note_width() -> int:
        return window.note_splitter.sizes()[0]

    wide_note = note_width()
    for narrow in (window.resize, window.set_window_size):  # by the user's hand, and fixed
        narrow(785, 800)
        qtbot.waitUntil(lambda: window.width() == 785)
        _tree, center, ranking = window.splitter.sizes()
        assert ranking == 0 or ranking >= panes.ranking_least, window.splitter.sizes()
        assert center >= MIN_CENTER_WIDTH
        assert note_width() >= 250, (note_width(), window.splitter.sizes(), window.note_splitter.sizes())

        # Between, the column is whole or folded, and shown only beside a wide enough middle.
        for width in (860, 940, 1020, 1100):
            window.resize(width, 800)
            qtbot.waitUntil(lambda w=width: window.width() == w)
            _tree, center, ranking = window.splitter.sizes()
            assert ranking == 0 or (ranking >= panes.ranking_least and center >= MIN_CENTER_WIDTH), (
                width,
                window.splitter.sizes(),
            )

        window.resize(1280, 800)
        qtbot.waitUntil(lambda: window.width() == 1280)
        qtbot.waitUntil(lambda: window.splitter.sizes()[2] >= panes.ranking_width())
        # (The tree keeps what the narrow window left it: Qt's splitter and share_width.)
        assert window.splitter.sizes()[2] == wide[2]
        assert note_width() >= wide_note - 8
