"""The results table's item delegates: how a results cell is painted (score bars, the
location with its annotation badges, the snippet with its matches marked, the
relevance check box), and the text helpers they paint with."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFontMetrics,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from memdesk.qt import models
from memdesk.ui import item_paint, theme

AnyIndex = QModelIndex | QPersistentModelIndex


class ScoreBarDelegate(QStyledItemDelegate):
    """Draws a score in [0, 1] as a small horizontal bar behind its number."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        # The style draws background and selection; we draw bar and number.
        _opt, text = item_paint.draw_item_background(self, painter, option, index)
        painter.save()
        value = index.data(models.ScoreRole)
        if isinstance(value, (int, float)):
            rect = option.rect.adjusted(3, 5, -3, -5)
            width = max(0.0, min(1.0, float(value))) * rect.width()
            painter.fillRect(
                QRectF(rect.left(), rect.top(), width, rect.height()), theme.score_bar(option.palette)
            )
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        painter.setPen(
            option.palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        )
        painter.drawText(
            option.rect.adjusted(4, 0, -4, 0),
            int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
            text,
        )
        painter.restore()


class CheckDelegate(QStyledItemDelegate):
    """A centred check box alone (the cell's text is for screen readers); a click anywhere
    in the narrow cell toggles it, and so do Space and Select."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        state = index.data(Qt.ItemDataRole.CheckStateRole)
        opt.features &= ~QStyleOptionViewItem.ViewItemFeature.HasCheckIndicator
        style = opt.widget.style() if opt.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        box = QStyleOptionViewItem(opt)
        size = style.pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth, None, opt.widget)
        box.rect = QRect(0, 0, size, size)
        box.rect.moveCenter(option.rect.center())
        box.state = box.state & ~(
            QStyle.StateFlag.State_On | QStyle.StateFlag.State_Off | QStyle.StateFlag.State_NoChange
        )
        box.state |= {
            Qt.CheckState.Checked: QStyle.StateFlag.State_On,
            Qt.CheckState.PartiallyChecked: QStyle.StateFlag.State_NoChange,
        }.get(
            Qt.CheckState(state) if state is not None else Qt.CheckState.Unchecked, QStyle.StateFlag.State_Off
        )
        # Fusion's own box all but vanishes on a dark base: theme.IndicatorStyle draws it
        # from the palette.
        style.drawPrimitive(QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck, box, painter, opt.widget)

    def editorEvent(
        self,
        event: QEvent,
        model: QAbstractItemModel,  # Qt override
        option: QStyleOptionViewItem,
        index: AnyIndex,
    ) -> bool:
        if not index.flags() & Qt.ItemFlag.ItemIsUserCheckable:
            return False
        kind = event.type()
        if kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonDblClick):
            return isinstance(event, QMouseEvent) and event.button() == Qt.MouseButton.LeftButton
        if kind == QEvent.Type.MouseButtonRelease:
            if not (
                isinstance(event, QMouseEvent)
                and event.button() == Qt.MouseButton.LeftButton
                and option.rect.contains(event.position().toPoint())
            ):
                return False
        elif kind == QEvent.Type.KeyPress:
            if not (isinstance(event, QKeyEvent) and event.key() in (Qt.Key.Key_Space, Qt.Key.Key_Select)):
                return False
        else:
            return False
        state = index.data(Qt.ItemDataRole.CheckStateRole)
        checked = state is not None and Qt.CheckState(state) == Qt.CheckState.Checked
        new = Qt.CheckState.Unchecked if checked else Qt.CheckState.Checked
        return model.setData(index, new, Qt.ItemDataRole.CheckStateRole)


def spans_html(
    text: str, spans: Sequence[tuple[int, int]], *, background: QColor, foreground: QColor | None = None
) -> str:
    """``text`` escaped, each matched ``(start, end)`` range on a highlight background."""
    style = f"background-color:{background.name()};font-weight:600"
    if foreground is not None:
        style += f";color:{foreground.name()}"
    out: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if start < pos or end <= start:
            continue
        out.append(html.escape(text[pos:start]))
        out.append(f'<span style="{style}">{html.escape(text[start:end])}</span>')
        pos = end
    out.append(html.escape(text[pos:]))
    return "".join(out)


def elide_location(text: str, width: int, metrics: QFontMetrics) -> str:
    """``folder/name.md:5-9`` to fit ``width``: the folders go first, then the name's start."""
    if metrics.horizontalAdvance(text) <= width:
        return text
    _folder, slash, name = text.rpartition("/")
    if slash:
        short = f"…/{name}"
        if metrics.horizontalAdvance(short) <= width:
            return short
        text = name
    return metrics.elidedText(text, Qt.TextElideMode.ElideLeft, width)


class LocationDelegate(QStyledItemDelegate):
    """File and lines with the folders elided first, so a narrow column keeps the name
    (the full path is in the tooltip)."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        opt, text = item_paint.draw_item_background(self, painter, option, index)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        rect = option.rect.adjusted(4, 0, -4, 0)
        painter.save()
        # Annotation badges (importance / project, with the multiplier applied) at the
        # right; the location is elided into what is left.
        badges = index.data(models.BadgesRole) or []
        metrics = opt.fontMetrics
        right = rect.right()
        pill_h = metrics.height()
        top = rect.center().y() - pill_h // 2
        for badge in reversed(badges):
            width = metrics.horizontalAdvance(badge) + 8
            if right - width < rect.left() + rect.width() // 3:
                break  # no room: the tooltip still lists them
            pill = QRectF(right - width, top, width, pill_h)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(theme.match_background(option.palette))
            painter.drawRoundedRect(pill, 4, 4)
            painter.setPen(theme.match_foreground(option.palette))
            painter.drawText(pill, int(Qt.AlignmentFlag.AlignCenter), badge)
            right -= width + 4
        rect.setRight(right)
        painter.setPen(
            option.palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        )
        painter.drawText(
            rect,
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            elide_location(text, rect.width(), metrics),
        )
        painter.restore()


class SnippetDelegate(QStyledItemDelegate):
    """The excerpt around a hit's matches, wrapped to the row's lines, matches marked."""

    def __init__(self, model: models.ResultsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model = model

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        opt, text = item_paint.draw_item_background(self, painter, option, index)
        palette = option.palette
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        doc = QTextDocument()
        doc.setDefaultFont(opt.font)
        doc.setDocumentMargin(2)
        rect = option.rect.adjusted(2, 2, -2, -2)
        doc.setTextWidth(rect.width())
        spans = index.data(models.SpansRole) or []
        doc.setHtml(
            spans_html(
                text,
                spans,
                background=theme.match_background(palette),
                foreground=theme.match_foreground(palette),
            )
        )
        painter.save()
        # Whole lines only: clip below the last laid-out line that fits the row.
        bottom = 0.0
        doc.size()  # lays the document out, so its lines have positions
        layout = doc.firstBlock().layout()
        for i in range(layout.lineCount() if layout is not None else 0):
            line = layout.lineAt(i)
            line_bottom = layout.position().y() + line.y() + line.height()
            if line_bottom > rect.height() and bottom > 0:
                break
            bottom = line_bottom
        painter.setClipRect(QRectF(rect.left(), rect.top(), rect.width(), bottom or rect.height()))
        painter.translate(rect.left(), rect.top())
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette.setColor(
            QPalette.ColorRole.Text,
            palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text),
        )
        doc.documentLayout().draw(painter, context)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        hint = super().sizeHint(option, index)
        return QSize(min(hint.width(), 600), hint.height())
