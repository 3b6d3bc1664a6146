"""Search panel: query box and scope, the results table with score bars and highlighted
snippets, and a detail pane that explains the selected hit's score."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, Signal, Slot
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.eval import golden as eval_golden
from memdesk.core.search import highlight
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import near_ties as near_ties_mod
from memdesk.core.search import settings as settings_mod
from memdesk.qt import models
from memdesk.ui import explain as explain_mod
from memdesk.ui import result_columns, result_delegates, search_filters


def _most_overlapping(hits: Sequence[hits_mod.Hit], wanted: hits_mod.Hit) -> int:
    """Row of the hit in ``wanted``'s note whose lines overlap it most; -1 if none does."""
    best, row = 0, -1
    for i, hit in enumerate(hits):
        if hit.path == wanted.path:
            shared = min(hit.end_line, wanted.end_line) - max(hit.start_line, wanted.start_line) + 1
            if shared > best:
                best, row = shared, i
    return row


class SearchPanel(QWidget):
    """Query box, scope selector, results table and detail pane (``detail``, the score
    explanation: not in this widget's layout; its owner places it).

    Keyboard: Down in the query box moves into the results; Enter opens the selected
    hit from any column; Esc in the results goes back to the query box.

    Signals:
        query_changed(str): the text in the query box changed.
        scope_changed(str): ``"all"`` or ``"shared"``.
        hit_activated(object): the user picked a ``Hit`` (click or Enter).
        search_requested(str): Enter in the query box before its results are shown:
            search this text now, without the typing debounce.
        relevance_toggled(object, bool): the user ticked (True) or unticked a ``Hit`` as
            relevant to the query on show.
        zoom_changed(float): the results' font point size changed.
    """

    query_changed = Signal(str)
    scope_changed = Signal(str)
    hit_activated = Signal(object)
    search_requested = Signal(str)
    relevance_toggled = Signal(object, bool)
    zoom_changed = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = settings_mod.SearchSettings()
        self._mode = "hybrid"
        self._pool: hits_mod.CandidatePool | None = None
        self._query = ""
        # Enter pressed before the query's results came: open its top hit when they do.
        self._open_first_of: str | None = None
        # The hit selected before the current query was run again; kept while an answer
        # lacks it, so the next answer that has it selects it again.
        self._wanted: hits_mod.Hit | None = None
        # Likewise the table's scroll position, when a shorter answer could not hold it
        # (forgotten as soon as the user scrolls).
        self._wanted_scroll: int | None = None
        self._wanted_detail_scroll: int | None = None  # the same for the explanation
        self._restoring = False
        # The explanation's first lines for a hit, as HTML (a search as of a past day says
        # which version the hit came from and whether its note changed since).
        self.detail_note: Callable[[hits_mod.Hit], str] | None = None
        self.search_input = QLineEdit()
        self.search_input.setObjectName("searchInput")
        self.search_input.setPlaceholderText(self.tr("Search memory as the agent would  (Ctrl+K)"))
        self.search_input.setClearButtonEnabled(True)
        self.scope_combo = QComboBox()
        self.scope_combo.setObjectName("scopeCombo")
        self.scope_combo.addItem(self.tr("Private chat: all memory"), "all")
        self.scope_combo.addItem(self.tr("Group chat: no MEMORY.md"), "shared")
        self.scope_combo.setToolTip(
            self.tr(
                "Search as the agent would in a private chat (all "
                "memory files) or a group chat (without MEMORY.md / "
                "memory.md)"
            )
        )
        # The search clock ("as of 2026-11-10") and the folder and date filters.
        self.clock_button = search_filters.ClockButton()
        self.filter_button = search_filters.FilterButton()
        self._clock: dt.date | None = None  # the day the shown hits were ranked at
        self.summary = QLabel("")
        self.summary.setObjectName("searchSummary")
        self.summary.setWordWrap(True)
        # An agent profile's decay hiding notes memdesk finds: said beside the results.
        self.decay_note = QLabel("")
        self.decay_note.setObjectName("decayNote")
        self.decay_note.setWordWrap(True)
        self.decay_note.setVisible(False)

        self.model = models.ResultsModel(self)
        self.table = QTableView()
        self.table.setObjectName("resultsTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        # Rows are selected whole, so Tab walking cell by cell moved nothing visible and
        # never left the table: Tab goes on to the explanation and the editor instead.
        self.table.setTabKeyNavigation(False)
        self.table.verticalHeader().setVisible(False)
        self._bar_delegate = result_delegates.ScoreBarDelegate(self.table)
        self._snippet_delegate = result_delegates.SnippetDelegate(self.model, self.table)
        self._check_delegate = result_delegates.CheckDelegate(self.table)
        self._location_delegate = result_delegates.LocationDelegate(self.table)
        for i, column in enumerate(models.COLUMNS):
            if column.kind == "score":
                self.table.setItemDelegateForColumn(i, self._bar_delegate)
            elif column.kind == "snippet":
                self.table.setItemDelegateForColumn(i, self._snippet_delegate)
            elif column.kind == "check":
                self.table.setItemDelegateForColumn(i, self._check_delegate)
            elif column.key == "location":
                self.table.setItemDelegateForColumn(i, self._location_delegate)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setMinimumSectionSize(24)
        header.setHighlightSections(False)
        self._layout_columns()
        self.table.installEventFilter(self)
        self.table.viewport().installEventFilter(self)
        self.search_input.installEventFilter(self)

        self.detail = QTextBrowser()  # placed by the window (see below)
        self.detail.setObjectName("hitDetail")
        self.detail.setOpenLinks(False)
        self.detail.setPlaceholderText(self.tr("Select a hit to see how its score was computed."))

        # The query box keeps room for a question beside a narrow window's other panes;
        # the scope combo takes its entries' width while there is room, and gives way before
        # the query box does (its list and tooltip say them whole).
        self.search_input.setMinimumWidth(self.search_input.fontMetrics().averageCharWidth() * 24)
        self.scope_combo.setMinimumWidth(self.scope_combo.fontMetrics().averageCharWidth() * 14)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.search_input, 1)
        top.addWidget(self.scope_combo)
        top.addWidget(self.clock_button)
        top.addWidget(self.filter_button)
        self.top_row = top  # the window adds the folded Ranking column's button here
        # The explanation pane (``detail``) is not laid out here: the window puts it beside
        # the editor, so the table keeps the height for eight or more rows at 1280x800.
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 0)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.decay_note)
        layout.addWidget(self.table, 1)

        self.search_input.textChanged.connect(self._on_search_input_text_changed)
        self.search_input.textChanged.connect(self.query_changed)
        self.search_input.returnPressed.connect(self._on_search_input_return_pressed)
        self.scope_combo.currentIndexChanged.connect(self._on_scope_combo_current_index_changed)
        self.table.clicked.connect(self._on_table_clicked)
        self.table.doubleClicked.connect(self._on_table_clicked)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current_row_changed)
        self.table.verticalScrollBar().valueChanged.connect(self._on_table_scroll_value_changed)
        self.detail.verticalScrollBar().valueChanged.connect(self._on_detail_scroll_value_changed)
        self.model.relevance_toggled.connect(self.relevance_toggled)

    # layout --------------------------------------------------------------------------
    def _layout_columns(self) -> None:
        result_columns.layout_columns(self.table, self.model)

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            # The columns were as wide as their headers in the old language: "Pre-MMR"
            # was cut after a switch from Chinese.
            self._layout_columns()
            result_columns.fit_location_badges(self.table, self.model)

    def snippet_min_width(self) -> int:
        return result_columns.snippet_min_width(self.table)

    def fixed_columns_width(self) -> int:
        """The shown columns' width before the snippet."""
        return result_columns.fixed_columns_width(self.table)

    def _fit_snippet(self) -> None:
        result_columns.fit_snippet(self.table)

    def results_height(self, rows: int) -> int:
        """The panel's height at which the table shows ``rows`` whole rows (the summary
        counted on two lines, as it wraps in a narrow pane)."""
        layout = self.layout()
        assert layout is not None  # set in __init__
        margins = layout.contentsMargins()
        spacing = layout.spacing()
        top = max(self.search_input.sizeHint().height(), self.scope_combo.sizeHint().height())
        summary = self.summary.fontMetrics().lineSpacing() * 2
        frame = self.table.frameWidth() * 2
        header = self.table.horizontalHeader().sizeHint().height()
        row = self.table.verticalHeader().defaultSectionSize()
        # Half a row spare: a sideways scroll bar (the snippet at its least width) and
        # the styles' rounding took the last row's bottom pixels.
        spare = row // 2
        return (
            margins.top()
            + margins.bottom()
            + top
            + summary
            + 2 * spacing
            + frame
            + header
            + rows * row
            + spare
        )

    def point_size(self) -> float:
        return self.table.font().pointSizeF()

    def set_point_size(self, size: float) -> None:
        size = max(6.0, min(40.0, float(size)))
        if abs(size - self.point_size()) < 0.01:
            return
        font = self.table.font()
        font.setPointSizeF(size)
        self.table.setFont(font)
        self.detail.setFont(font)
        self._layout_columns()
        self.zoom_changed.emit(size)

    def zoom(self, steps: int) -> None:
        self.set_point_size(self.point_size() + steps)

    # results -------------------------------------------------------------------------
    def set_scope(self, scope: str) -> None:
        index = self.scope_combo.findData(scope)
        if index >= 0:
            self.scope_combo.setCurrentIndex(index)

    def show_results(
        self,
        hits: Sequence[hits_mod.Hit],
        *,
        terms: highlight.KeywordTerms | Sequence[str],
        settings: settings_mod.SearchSettings,
        summary: str,
        mode: str = "hybrid",
        relevant: Sequence[eval_golden.Relevant] | None = None,
        pool: hits_mod.CandidatePool | None = None,
        query: str | None = None,
        clock: dt.date | None = None,
        decay_note: str = "",
    ) -> None:
        """Replace the table's hits, keeping the selected chunk selected if still there.

        ``relevant``: the query's golden labels, shown in the check column. A new
        ``query`` (not a re-ranking of the same one) scrolls back to the top. The same
        query run again (a note changed on disk, the index caught up) keeps the
        selection, the scroll position and the explanation: untouched when the hits
        are the same; otherwise the selected hit is found again by its note and
        lines, also when it comes back one answer later (a keyword-only answer while
        the changed note is embedded, then the full one).
        """
        self._settings = settings
        self._mode = mode
        self._pool = pool
        self._clock = clock
        self.decay_note.setText(decay_note)
        self.decay_note.setVisible(bool(decay_note))
        new_query = query is not None and query != self._query
        if query is not None:
            self._query = query
        before = self.current_hit()
        if new_query:
            self._wanted, self._wanted_scroll, self._wanted_detail_scroll = None, None, None
        elif before is not None:
            self._wanted = before
        scroll = self.table.verticalScrollBar().value()
        detail_scroll = self.detail.verticalScrollBar().value()
        if self._wanted_scroll is not None:
            scroll = self._wanted_scroll
        if self._wanted_detail_scroll is not None:
            detail_scroll = self._wanted_detail_scroll
        self._restoring = True  # the reset and the restore move the scroll bar, not the user
        try:
            self._show_hits(
                hits, terms, relevant, settings, summary, before, new_query, scroll, detail_scroll
            )
        finally:
            self._restoring = False
        if query is not None and query == self._open_first_of:
            self._open_first_of = None
            if hits:
                self.table.selectRow(0)
                self.hit_activated.emit(self.model.hit(0))

    def _show_hits(
        self,
        hits: Sequence[hits_mod.Hit],
        terms: highlight.KeywordTerms | Sequence[str],
        relevant: Sequence[eval_golden.Relevant] | None,
        settings: settings_mod.SearchSettings,
        summary: str,
        before: hits_mod.Hit | None,
        new_query: bool,
        scroll: int,
        detail_scroll: int,
    ) -> None:
        reset = self.model.set_hits(
            hits, terms, relevant, near_ties=near_ties_mod.near_ties(hits, settings.profile)
        )
        result_columns.hide_constant_columns(self.table, hits, settings)
        result_columns.fit_location_badges(self.table, self.model)
        self.summary.setText(summary)
        if not reset and not new_query:
            # The same rows: the view kept its selection and scroll. The explanation is
            # drawn again (the settings or the pool may differ) at the same place.
            after = self.current_hit()
            if after is not None:
                self._show_detail(after)
                self._restore_detail_scroll(detail_scroll)
        else:
            self._reselect(self._wanted, scroll=None if new_query else scroll, detail_scroll=detail_scroll)

    def _reselect(self, wanted: hits_mod.Hit | None, *, scroll: int | None, detail_scroll: int) -> None:
        """After a reset: select ``wanted`` again (same chunk, else same note and
        lines) and put the scroll back (``scroll`` None: to the top)."""
        hits = self.model.hits
        row = -1
        if wanted is not None:
            row = next((i for i, h in enumerate(hits) if h.chunk_id == wanted.chunk_id), -1)
            if row < 0:
                key = self.model.hit_key(wanted)
                row = next((i for i, h in enumerate(hits) if self.model.hit_key(h) == key), -1)
            if row < 0:  # lines were added or removed above or in it: the chunk of that note
                row = _most_overlapping(hits, wanted)  # that shares most of its lines
        if row >= 0:
            self.table.selectRow(row)
            self._wanted = None
        else:
            self._wanted_detail_scroll = detail_scroll  # for when the hit comes back
            self.detail.clear()
        # Selecting scrolled the row into sight; the reader's own place wins (the rows'
        # scroll range is laid out first, so the value is not clamped to the old one).
        self.table.doItemsLayout()
        bar = self.table.verticalScrollBar()
        if scroll is None:
            self.table.scrollToTop()
        else:
            bar.setValue(scroll)
        self._wanted_scroll = scroll if scroll is not None and bar.value() != scroll else None
        if row >= 0:
            # The same hit's explanation has the same rows: keep the reader's place in it.
            self._restore_detail_scroll(detail_scroll)

    def _restore_detail_scroll(self, value: int) -> None:
        bar = self.detail.verticalScrollBar()
        bar.setValue(value)
        # A shorter explanation (a keyword-only answer's) cannot hold it: kept for the next.
        self._wanted_detail_scroll = value if bar.value() != value else None

    def current_hit(self) -> hits_mod.Hit | None:
        index = self.table.currentIndex()
        return self.model.hit(index.row()) if index.isValid() else None

    def refresh_detail(self) -> None:
        """Compose the selected hit's explanation again (after a language change)."""
        self._show_detail(self.current_hit())

    def _show_detail(self, hit: hits_mod.Hit | None) -> None:
        if hit is None:
            self.detail.clear()
        else:
            note = self.detail_note(hit) if self.detail_note is not None else ""
            self.detail.setHtml(
                note
                + explain_mod.explanation_html(
                    hit,
                    self._settings,
                    mode=self._mode,
                    hits=self.model.hits,
                    pool=self._pool,
                    terms=self.model.keyword_terms,
                    today=self._clock,
                    near_tie=self.model.near_tie(hit),
                )
            )

    # keyboard ------------------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # Qt override
        if obj is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_snippet()
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return super().eventFilter(obj, event)
        key = event.key()
        if (
            obj is self.search_input
            and key in (Qt.Key.Key_Down, Qt.Key.Key_PageDown)
            and self.model.rowCount() > 0
        ):
            row = max(0, self.table.currentIndex().row())
            self.table.setFocus(Qt.FocusReason.OtherFocusReason)
            self.table.setCurrentIndex(self.model.index(row, models.column_index("rank")))
            return True
        if obj is self.table:
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                hit = self.current_hit()
                if hit is not None:
                    self._show_detail(hit)
                    self.hit_activated.emit(hit)
                return True
            if key == Qt.Key.Key_Escape:
                self.search_input.setFocus(Qt.FocusReason.OtherFocusReason)
                return True
            if key == Qt.Key.Key_Space and self.table.currentIndex().isValid():
                # Space ticks the row's relevance from any column, as the ✓ box does.
                row = self.table.currentIndex().row()
                index = self.model.index(row, models.column_index("relevant"))
                checked = index.data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
                self.model.setData(
                    index,
                    Qt.CheckState.Unchecked if checked else Qt.CheckState.Checked,
                    Qt.ItemDataRole.CheckStateRole,
                )
                return True
            if key == Qt.Key.Key_Up and self.table.currentIndex().row() <= 0:
                self.search_input.setFocus(Qt.FocusReason.OtherFocusReason)
                return True
        return super().eventFilter(obj, event)

    @Slot(str)
    def _on_search_input_text_changed(self, text: str) -> None:
        if text != self._open_first_of:
            self._open_first_of = None  # typing on after Enter: that query is not wanted now

    @Slot()
    def _on_search_input_return_pressed(self) -> None:
        text = self.search_input.text()
        if text != self._query:
            # The table still holds the previous query's hits (the typing debounce or the
            # search itself has not finished): opening its top hit would open a note this
            # query never found. Search now and open the first hit that comes back.
            self._open_first_of = text
            self.search_requested.emit(text)
            return
        if self.model.rowCount() > 0:
            self.table.selectRow(0)
            self.hit_activated.emit(self.model.hit(0))

    @Slot(int)
    def _on_scope_combo_current_index_changed(self, _index: int) -> None:
        self.scope_changed.emit(str(self.scope_combo.currentData()))

    @Slot(QModelIndex)
    def _on_table_clicked(self, index: QModelIndex) -> None:
        if models.COLUMNS[index.column()].kind == "check":
            return  # ticking relevance with the mouse is not opening the note
        hit = self.model.hit(index.row())
        if hit is not None:
            self._show_detail(hit)
            self.hit_activated.emit(hit)

    @Slot(int)
    def _on_table_scroll_value_changed(self, _value: int) -> None:
        if not self._restoring:
            self._wanted_scroll = None  # the user scrolled: their new place is the one to keep

    @Slot(int)
    def _on_detail_scroll_value_changed(self, _value: int) -> None:
        if not self._restoring:
            self._wanted_detail_scroll = None

    @Slot(QModelIndex, QModelIndex)
    def _on_table_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_detail(self.model.hit(current.row()) if current.isValid() else None)
