"""Search panel: query box and scope, the results table with score bars and highlighted
snippets, and a detail pane that explains the selected hit's score."""

from __future__ import annotations

import datetime as dt
import html
import re
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
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.eval import golden as eval_golden
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import settings as settings_mod
from memdesk.qt import models
from memdesk.ui import item_paint

AnyIndex = QModelIndex | QPersistentModelIndex
BAR_COLOR = QColor(86, 140, 214, 110)


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
            painter.fillRect(QRectF(rect.left(), rect.top(), width, rect.height()), BAR_COLOR)
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


def highlight_html(text: str, terms: Sequence[str]) -> str:
    """``text`` escaped, with each query term (case-insensitive) in a marked span."""
    escaped = html.escape(text)
    usable = sorted({t for t in terms if t and t.strip()}, key=len, reverse=True)
    if not usable:
        return escaped
    pattern = re.compile("|".join(re.escape(html.escape(t)) for t in usable), re.IGNORECASE)
    return pattern.sub(
        lambda m: f'<span style="background:#ffe066;font-weight:600">{m.group(0)}</span>', escaped
    )


class SnippetDelegate(QStyledItemDelegate):
    """One line of snippet text with the query's terms highlighted."""

    def __init__(self, model: models.ResultsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model = model

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        opt, text = item_paint.draw_item_background(self, painter, option, index)
        doc = QTextDocument()
        doc.setDefaultFont(opt.font)
        doc.setDocumentMargin(2)
        doc.setHtml(highlight_html(text, self._model.query_terms))
        painter.save()
        rect = option.rect.adjusted(2, 0, -2, 0)
        painter.setClipRect(rect)
        offset_y = max(0.0, (rect.height() - doc.size().height()) / 2)
        painter.translate(rect.left(), rect.top() + offset_y)
        context = QAbstractTextDocumentLayout.PaintContext()
        if option.state & QStyle.StateFlag.State_Selected:
            context.palette.setColor(
                QPalette.ColorRole.Text, option.palette.color(QPalette.ColorRole.HighlightedText)
            )
        doc.documentLayout().draw(painter, context)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        hint = super().sizeHint(option, index)
        return QSize(min(hint.width(), 600), hint.height())


def explain_hit(
    hit: hits_mod.Hit,
    settings: settings_mod.SearchSettings,
    hits: Sequence[hits_mod.Hit],
    *,
    mode: str = "hybrid",
    today: dt.date | None = None,
) -> str:
    """HTML explaining how ``hit``'s final score came about."""
    vw, tw = settings.normalized_weights
    rows = [
        f"<b>{html.escape(hit.path)}</b> lines {hit.start_line}–{hit.end_line} &nbsp;·&nbsp; rank {hit.rank}"
    ]
    if mode == "fts":
        rows.append(
            f"<b>Merged</b> = text {_s(hit.text_score)} (keyword-only mode: the "
            f"weights do not apply) = <b>{hit.merged_score:.4f}</b>"
        )
    elif mode == "vector":
        rows.append(
            f"<b>Merged</b> = vector {_s(hit.vector_score)} (vector-only mode) = "
            f"<b>{hit.merged_score:.4f}</b>"
        )
    else:
        rows.append(
            f"<b>Merged</b> = {vw:.2f} × vector {_s(hit.vector_score)} + {tw:.2f} × "
            f"text {_s(hit.text_score)} = <b>{hit.merged_score:.4f}</b>"
        )
    if not settings.decay:
        rows.append("<b>Decay</b> off → ×1.000")
    elif hit.date is None:
        rows.append("<b>Decay</b> ×1.000: evergreen note (no date)")
    else:
        age = ((today or dt.date.today()) - hit.date).days
        rows.append(
            f"<b>Decay</b> ×{hit.decay:.4f}: dated {hit.date.isoformat()} "
            f"({age} days old), half-life {settings.half_life_days} days"
        )
    rows.append(f"<b>Final</b> = {hit.merged_score:.4f} × {hit.decay:.4f} = <b>{hit.score:.4f}</b>")
    if hit.mmr_rank is None:
        rows.append(f"<b>MMR</b> off; rank after decay {hit.pre_mmr_rank}")
    else:
        against = next((h for h in hits if h.chunk_id == hit.mmr_against), None)
        where = (
            f"{html.escape(against.path)}:{against.start_line}"
            if against
            else html.escape(hit.mmr_against or "—")
        )
        penalty = (
            f"max similarity {hit.mmr_penalty:.3f} to {where}"
            if hit.mmr_against
            else "first pick, no penalty"
        )
        rows.append(
            f"<b>MMR</b> (λ={settings.mmr_lambda:.2f}): rank {hit.pre_mmr_rank} → {hit.mmr_rank}; {penalty}"
        )
    if settings.min_score > 0:
        rows.append(f"Min score {settings.min_score:.2f} · profile {settings.profile}")
    else:
        rows.append(f"Profile {settings.profile}")
    return "<br>".join(rows)


def _s(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


class SearchPanel(QWidget):
    """Query box, scope selector, results table and detail pane.

    Signals:
        query_changed(str): the text in the query box changed.
        scope_changed(str): ``"all"`` or ``"shared"``.
        hit_activated(object): the user picked a ``Hit`` (click or Enter).
        relevance_toggled(object, bool): the user ticked (True) or unticked a ``Hit`` as
            relevant to the query on show.
    """

    query_changed = Signal(str)
    scope_changed = Signal(str)
    hit_activated = Signal(object)
    relevance_toggled = Signal(object, bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = settings_mod.SearchSettings()
        self._mode = "hybrid"
        self.search_input = QLineEdit()
        self.search_input.setObjectName("searchInput")
        self.search_input.setPlaceholderText("Search memory as the agent would  (Ctrl+K)")
        self.search_input.setClearButtonEnabled(True)
        self.scope_combo = QComboBox()
        self.scope_combo.setObjectName("scopeCombo")
        self.scope_combo.addItem("Private chat: all memory", "all")
        self.scope_combo.addItem("Group chat: no MEMORY.md", "shared")
        self.scope_combo.setToolTip(
            "Search as the agent would in a private chat (all memory "
            "files) or a group chat (without MEMORY.md / memory.md)"
        )
        self.summary = QLabel("")
        self.summary.setObjectName("searchSummary")

        self.model = models.ResultsModel(self)
        self.table = QTableView()
        self.table.setObjectName("resultsTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # keep file names and lines
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self._bar_delegate = ScoreBarDelegate(self.table)
        self._snippet_delegate = SnippetDelegate(self.model, self.table)
        self._check_delegate = CheckDelegate(self.table)
        header = self.table.horizontalHeader()
        widths = {
            "relevant": 26,
            "rank": 26,
            "location": 200,
            "vector": 54,
            "text": 54,
            "decay": 54,
            "final": 54,
            "pre_mmr": 60,
            "mmr": 42,
        }
        for i, column in enumerate(models.COLUMNS):
            if column.kind == "score":
                self.table.setItemDelegateForColumn(i, self._bar_delegate)
            elif column.kind == "snippet":
                self.table.setItemDelegateForColumn(i, self._snippet_delegate)
            elif column.kind == "check":
                self.table.setItemDelegateForColumn(i, self._check_delegate)
            if column.key in widths:
                header.setSectionResizeMode(i, QHeaderView.ResizeMode.Interactive)
                header.resizeSection(i, widths[column.key])
        header.setStretchLastSection(True)
        header.setMinimumSectionSize(28)

        self.detail = QTextBrowser()
        self.detail.setObjectName("hitDetail")
        self.detail.setOpenLinks(False)
        self.detail.setPlaceholderText("Select a hit to see how its score was computed.")

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.search_input, 1)
        top.addWidget(self.scope_combo)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setObjectName("resultsSplitter")
        splitter.addWidget(self.table)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([260, 110])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 0)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(splitter, 1)

        self.search_input.textChanged.connect(self.query_changed)
        self.search_input.returnPressed.connect(self._on_search_input_return_pressed)
        self.scope_combo.currentIndexChanged.connect(self._on_scope_combo_current_index_changed)
        self.table.clicked.connect(self._on_table_clicked)
        self.table.activated.connect(self._on_table_clicked)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current_row_changed)
        self.model.relevance_toggled.connect(self.relevance_toggled)

    def set_scope(self, scope: str) -> None:
        index = self.scope_combo.findData(scope)
        if index >= 0:
            self.scope_combo.setCurrentIndex(index)

    def show_results(
        self,
        hits: Sequence[hits_mod.Hit],
        *,
        terms: Sequence[str],
        settings: settings_mod.SearchSettings,
        summary: str,
        mode: str = "hybrid",
        relevant: Sequence[eval_golden.Relevant] | None = None,
    ) -> None:
        """Replace the table's hits, keeping the selected chunk selected if still there.

        ``relevant``: the query's golden labels, shown in the check column.
        """
        self._settings = settings
        self._mode = mode
        selected = self.current_hit()
        self.model.set_hits(hits, terms, relevant)
        self.summary.setText(summary)
        row = next(
            (i for i, h in enumerate(hits) if selected is not None and h.chunk_id == selected.chunk_id), -1
        )
        if row >= 0:
            self.table.selectRow(row)
            self._show_detail(self.model.hit(row))
        else:
            self.detail.clear()

    def current_hit(self) -> hits_mod.Hit | None:
        index = self.table.currentIndex()
        return self.model.hit(index.row()) if index.isValid() else None

    def _show_detail(self, hit: hits_mod.Hit | None) -> None:
        if hit is None:
            self.detail.clear()
        else:
            self.detail.setHtml(explain_hit(hit, self._settings, self.model.hits, mode=self._mode))

    @Slot()
    def _on_search_input_return_pressed(self) -> None:
        if self.model.rowCount() > 0:
            self.table.selectRow(0)
            self.hit_activated.emit(self.model.hit(0))

    @Slot(int)
    def _on_scope_combo_current_index_changed(self, _index: int) -> None:
        self.scope_changed.emit(str(self.scope_combo.currentData()))

    @Slot(QModelIndex)
    def _on_table_clicked(self, index: QModelIndex) -> None:
        if models.COLUMNS[index.column()].kind == "check":
            return  # ticking relevance is not opening the note
        hit = self.model.hit(index.row())
        if hit is not None:
            self._show_detail(hit)
            self.hit_activated.emit(hit)

    @Slot(QModelIndex, QModelIndex)
    def _on_table_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_detail(self.model.hit(current.row()) if current.isValid() else None)
