"""Check boxes (the tuning switches and the ✓ relevance column) read clearly in light and dark."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionButton, QWidget

from memdesk.ui import theme
from tests.ui.conftest import search

NON_TEXT_CONTRAST = 3.0  # WCAG 2.1, 1.4.11: a control's outline against what is next to it


def _best_contrast(image: QImage, rect: QRect, against: QColor) -> float:
    """The strongest contrast of any pixel inside ``rect`` with ``against``."""
    best = 1.0
    for y in range(rect.top(), rect.bottom() + 1):
        for x in range(rect.left(), rect.right() + 1):
            best = max(best, theme.contrast(image.pixelColor(x, y), against))
    return best


def _grab(widget: QWidget) -> QImage:
    image = widget.grab().toImage()
    ratio = image.devicePixelRatio()
    return image.scaled(round(image.width() / ratio), round(image.height() / ratio))


@pytest.fixture(params=[False, True], ids=["light", "dark"])
def themed_window(request, qtbot, make_window, workspace):  # type: ignore[no-untyped-def]
    app = QApplication.instance()
    old = app.palette()
    dark = request.param
    app.setPalette(theme.dark_palette() if dark else app.style().standardPalette())
    window = make_window(workspace, model=None)
    qtbot.waitUntil(lambda: theme.is_dark(window.palette()) == dark, timeout=5000)
    yield window
    app.setPalette(old)


def test_tuning_check_boxes_stand_out_in_both_themes(themed_window) -> None:  # type: ignore[no-untyped-def]
    """Ticked and unticked switches: the box is drawn in palette-derived colours that read."""
    tuning = themed_window.tuning
    for box in (tuning.decay_check, tuning.recency_check):
        option = QStyleOptionButton()
        box.initStyleOption(option)
        indicator = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
        image = _grab(box)
        behind = box.palette().color(QPalette.ColorRole.Window)
        assert _best_contrast(image, indicator, behind) >= NON_TEXT_CONTRAST, (
            box.objectName(),
            box.isChecked(),
        )


def test_relevance_column_boxes_stand_out_in_both_themes(qtbot, themed_window) -> None:  # type: ignore[no-untyped-def]
    """The ✓ column's boxes, unticked and ticked, against the table's own background."""
    window = themed_window
    search(qtbot, window, "deploy freeze")
    table = window.results_table
    table.model().setData(table.model().index(0, 0), Qt.CheckState.Checked, Qt.ItemDataRole.CheckStateRole)
    table.clearSelection()
    qtbot.waitUntil(
        lambda: table.model().index(0, 0).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked,
        timeout=5000,
    )
    image = _grab(table.viewport())
    base = table.palette().color(QPalette.ColorRole.Base)
    size = table.style().pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth, None, table)
    for row in (0, 1):
        cell = table.visualRect(table.model().index(row, 0))
        box = QRect(0, 0, size, size)
        box.moveCenter(cell.center())
        assert _best_contrast(image, box, base) >= NON_TEXT_CONTRAST, row
    # The tick of the ticked row reads against the box's own fill.
    cell = table.visualRect(table.model().index(0, 0))
    box = QRect(0, 0, size, size)
    box.moveCenter(cell.center())
    inner = box.adjusted(3, 3, -3, -3)
    fill = image.pixelColor(inner.left(), inner.top())
    assert _best_contrast(image, inner, fill) >= NON_TEXT_CONTRAST
