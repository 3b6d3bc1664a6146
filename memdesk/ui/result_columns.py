"""The results table's column widths: numbers fit their values, the location its file
name and badges, the snippet the rest (never narrower than ``SNIPPET_MIN_CHARS``), and
the columns that say nothing for the settings on show hidden."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QHeaderView, QTableView

from memdesk.core.search import hits as hits_mod
from memdesk.core.search import settings as settings_mod
from memdesk.qt import models

SNIPPET_MIN_CHARS = 40  # below this the snippet column scrolls sideways instead of shrinking


def layout_columns(table: QTableView, model: models.ResultsModel) -> None:
    """Numbers fit their header and values; the location gets room for a file name
    and lines; the snippet takes the rest, on two lines per row."""
    header = table.horizontalHeader()
    metrics = table.fontMetrics()
    header_metrics = header.fontMetrics()
    pad = 12  # cell margins plus the header's separator
    for i, column in enumerate(models.COLUMNS):
        if column.kind == "snippet":
            continue
        if column.key == "location":
            width = metrics.horizontalAdvance("2026-06-08.md:120-140") + pad
        elif column.kind == "check":
            width = max(26, header_metrics.horizontalAdvance(column.header) + pad)
        else:
            sample = "0.000" if column.kind == "score" else "100"
            width = (
                max(
                    metrics.horizontalAdvance(sample),
                    header_metrics.horizontalAdvance(model.headerData(i, Qt.Orientation.Horizontal)),
                )
                + pad
            )
        header.setSectionResizeMode(i, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(i, width)
    # Two lines of snippet, measured with the fallback fonts CJK text and emoji use
    # (taller than the table font's own line spacing).
    probe = QTextDocument()
    probe.setDefaultFont(table.font())
    probe.setDocumentMargin(0)
    probe.setHtml("<b>Ag</b> 鉴权 ✅")
    probe.size()
    layout = probe.firstBlock().layout()
    line = layout.lineAt(0).height() if layout is not None and layout.lineCount() else metrics.lineSpacing()
    table.verticalHeader().setDefaultSectionSize(max(metrics.lineSpacing() * 2, round(line * 2)) + 10)
    model.excerpt_chars = 320
    fit_snippet(table)


def snippet_min_width(table: QTableView) -> int:
    # Latin letters: a CJK font's average width is a wide character's.
    return table.fontMetrics().horizontalAdvance("x" * SNIPPET_MIN_CHARS)


def fixed_columns_width(table: QTableView) -> int:
    """The shown columns' width before the snippet."""
    header = table.horizontalHeader()
    snippet = models.column_index("snippet")
    return sum(
        header.sectionSize(i) for i in range(header.count()) if i != snippet and not header.isSectionHidden(i)
    )


def fit_snippet(table: QTableView) -> None:
    """The snippet fills the row, but never narrower than ``snippet_min_width``: in a
    narrow pane the table scrolls sideways rather than squeezing it out of sight."""
    header = table.horizontalHeader()
    snippet = models.column_index("snippet")
    least = snippet_min_width(table)
    stretch = table.viewport().width() - fixed_columns_width(table) >= least
    if header.stretchLastSection() != stretch:
        header.setStretchLastSection(stretch)
    if not stretch and header.sectionSize(snippet) != least:
        header.resizeSection(snippet, least)


def hide_constant_columns(
    table: QTableView, hits: Sequence[hits_mod.Hit], settings: settings_mod.SearchSettings
) -> None:
    """Columns that say nothing for these settings give their width to the snippet:
    Decay while decay is off (every row 1.000), the two MMR ranks while MMR is
    off (Pre-MMR would repeat # and MMR be —). The explanation pane still names
    both, and the columns return when the sliders switch them on."""
    decay_off = not settings.decay and all(h.decay == 1.0 for h in hits)
    mmr_off = all(h.mmr_rank is None for h in hits) and not settings.mmr
    for key, hidden in (("decay", decay_off), ("pre_mmr", mmr_off), ("mmr", mmr_off)):
        table.setColumnHidden(models.column_index(key), hidden)
    fit_snippet(table)


def fit_location_badges(table: QTableView, model: models.ResultsModel) -> None:
    """Widen the location column so a file name still shows beside its badges."""
    column = models.column_index("location")
    metrics = table.fontMetrics()
    widest = 0
    for row in range(model.rowCount()):
        badges = model.index(row, column).data(models.BadgesRole) or []
        widest = max(widest, sum(metrics.horizontalAdvance(b) + 12 for b in badges))
    if widest:
        needed = metrics.horizontalAdvance("2026-06-08.md:120-140") + 12 + widest
        header = table.horizontalHeader()
        if header.sectionSize(column) < needed:
            header.resizeSection(column, needed)
            fit_snippet(table)
