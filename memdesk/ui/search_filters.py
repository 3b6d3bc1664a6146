"""The search bar's clock and filters: "as of 2026-11-10" and "Filter".

Two compact buttons beside the query box, each opening a popup (keyboard: Tab to the
button, Space or Down opens it, Esc closes it):

- **the clock** (``ClockButton``): the day recency, decay and relative dates ("last
  week", "in March", "7月14日") are measured from. By default the day of the
  workspace's newest dated note ("as of 2026-11-10"); a calendar sets another day
  ("as of 2026-03-31 (set)"), and "Follow newest note" goes back to the default.
- **the filters** (``FilterButton``): folders (ticked in a list of the workspace's
  folders) and a date range (from / to, each on or off); "Filter · 2" says how many
  are set, "Clear" drops them all.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from PySide6.QtCore import QDate, QEvent, QLocale, QObject, QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QCalendarWidget,
    QCheckBox,
    QDateEdit,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
    QWidgetAction,
)

from memdesk.core.search import filters as filters_mod
from memdesk.qt import preferences as preferences_mod
from memdesk.qt import session as session_mod
from memdesk.qt import translations, workers

# Says "opens a popup" (the buttons have no menu, whose indicator would overlap the text).
_ARROW = " ▾"
DATE_SETTLE_MS = 800  # a date edit at rest this long is taken as typed


def _qdate(day: dt.date) -> QDate:
    return QDate(day.year, day.month, day.day)


def _pydate(day: QDate) -> dt.date:
    return dt.date(day.year(), day.month(), day.day())


def folders_of(files: Iterable[str]) -> list[str]:
    """Every folder holding a note of ``files`` (workspace-relative), parents first."""
    out: set[str] = set()
    for rel in files:
        if rel.startswith("../"):
            continue  # an extra path outside the workspace
        parts = rel.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            out.add("/".join(parts[:i]))
    return sorted(out)


class _Popup(QMenu):
    """A menu holding one widget: opens under its button, closes on Esc or a click outside."""

    def __init__(self, content: QWidget, parent: QWidget) -> None:
        super().__init__(parent)
        action = QWidgetAction(self)
        action.setDefaultWidget(content)
        self.addAction(action)
        self._content = content

    @Slot()
    def open_under(self) -> None:
        """Open below the button that owns it (a click, or Space on the focused button)."""
        owner = self.parentWidget()
        assert owner is not None
        self.exec(owner.mapToGlobal(owner.rect().bottomLeft()))

    def showEvent(self, event: QShowEvent) -> None:  # Qt override
        super().showEvent(event)
        self._content.setFocus(Qt.FocusReason.PopupFocusReason)

    def focusNextPrevChild(self, next: bool) -> bool:  # Qt override
        # QMenu turns Tab into moving between its items: with one item (the box) the
        # menu itself took the focus, and the check boxes, the dates and Clear filters
        # could not be reached from the keyboard. Tab goes through the box's widgets.
        return QWidget.focusNextPrevChild(self, next)


class _FittedButton(QToolButton):
    """A text button that gives way in a narrow window: it asks for room for its whole
    text, settles for its shortest form (the ▾ alone; the tooltip says the rest), and
    shows the longest form that fits. Without it the two buttons added their whole
    texts to the window's minimum width (731 → 924 px)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._forms: tuple[str, ...] = ("",)
        # A tool button is fixed at its size hint; this one may shrink to its minimum.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def set_forms(self, *forms: str) -> None:
        """The texts it may show, longest first."""
        self._forms = forms
        self.updateGeometry()
        self._fit()

    def full_text(self) -> str:
        return self._forms[0]

    def _width_for(self, text: str) -> int:
        # QToolButton's own padding around a text: its size hint less the text's width.
        padding = super().sizeHint().width() - self.fontMetrics().horizontalAdvance(self.text())
        return self.fontMetrics().horizontalAdvance(text) + max(padding, 8)

    def sizeHint(self) -> QSize:  # Qt override
        hint = super().sizeHint()
        return QSize(self._width_for(self._forms[0]), hint.height())

    def minimumSizeHint(self) -> QSize:  # Qt override
        hint = super().minimumSizeHint()
        return QSize(self._width_for(self._forms[-1]), hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        width = self.width()
        chosen = next((f for f in self._forms if self._width_for(f) <= width), self._forms[-1])
        if chosen != self.text():
            self.setText(chosen)


class ClockButton(_FittedButton):
    """Shows the search clock; its popup sets it.

    Signals:
        clock_chosen(object): a ``datetime.date`` the user picked, or None for "follow
            the newest note".
    """

    clock_chosen = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("clockButton")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self._clock: dt.date | None = None
        self._default: dt.date | None = None
        self._override: dt.date | None = None
        self._held: dt.date | None = None  # the day memory is searched as of (``hold``)

        box = QWidget()
        box.setObjectName("clockPopup")
        self.calendar = QCalendarWidget()
        self.calendar.setObjectName("clockCalendar")
        self.calendar.setGridVisible(False)
        self.calendar.setVerticalHeaderFormat(QCalendarWidget.VerticalHeaderFormat.NoVerticalHeader)
        self.follow_button = QPushButton(self.tr("Follow newest note"))
        self.follow_button.setObjectName("clockFollowButton")
        self.follow_button.setToolTip(
            self.tr("Measure from the day of the workspace's newest dated note again")
        )
        self.hint = QLabel(
            self.tr("Recency, decay and dates such as “last week” or “in March” count from this day.")
        )
        self.hint.setWordWrap(True)
        self.hint.setObjectName("clockHint")
        layout = QVBoxLayout(box)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.hint)
        layout.addWidget(self.calendar)
        layout.addWidget(self.follow_button)
        box.setFocusProxy(self.calendar)
        self.popup = _Popup(box, self)
        self.clicked.connect(self.popup.open_under)
        self.popup.aboutToShow.connect(self._on_popup_about_to_show)
        self.calendar.activated.connect(self._on_calendar_picked)
        self.calendar.clicked.connect(self._on_calendar_picked)
        self.follow_button.clicked.connect(self._on_follow_clicked)
        self._refresh()
        self._localize_calendar()

    @property
    def clock(self) -> dt.date | None:
        return self._clock

    def set_clock(self, clock: dt.date | None, *, default: dt.date | None, override: dt.date | None) -> None:
        """Show ``clock`` (None: not known yet); ``override`` is the day the user set."""
        self._clock, self._default, self._override = clock, default, override
        self._refresh()

    def hold(self, day: dt.date | None) -> None:
        """While memory is searched as it was on ``day`` (Search as of a day), that day is
        the clock: shown, and not settable here; None gives the clock back."""
        self._held = day
        self.setEnabled(day is None)
        self._refresh()

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._refresh()  # its text has a field and the ▾, which the catalogue lacks
            self._localize_calendar()

    def _localize_calendar(self) -> None:
        """Month and day names in the interface's language, not the system's."""
        language = translations.current_language()
        self.calendar.setLocale(QLocale(language) if language else QLocale(QLocale.Language.English))

    def _refresh(self) -> None:
        if self._held is not None:
            held = self._held.isoformat()
            self.set_forms(self.tr("as of {0}").format(held), held, _ARROW.strip())
            self.setToolTip(
                self.tr("Searching memory as it was on {0}: the clock is that day until Back to now.").format(
                    self._held.isoformat()
                )
            )
            return
        if self._clock is None:
            text = self.tr("as of today")
        elif self._override is not None:
            text = self.tr("as of {0} (set)").format(self._clock.isoformat())
        else:
            text = self.tr("as of {0}").format(self._clock.isoformat())
        day = self._clock.isoformat() if self._clock is not None else ""
        self.set_forms(text + _ARROW, *((day + _ARROW,) if day else ()), _ARROW.strip())
        newest = self._default.isoformat() if self._default else self.tr("none")
        self.setToolTip(
            self.tr(
                "The search clock: recency, decay and relative dates are measured from this day. "
                "Default: the workspace's newest dated note ({0}). Click to pick another day."
            ).format(newest)
        )
        self.follow_button.setEnabled(self._override is not None)

    @Slot()
    def _on_popup_about_to_show(self) -> None:
        if self._clock is not None:
            self.calendar.setSelectedDate(_qdate(self._clock))

    @Slot(QDate)
    def _on_calendar_picked(self, day: QDate) -> None:
        self.popup.close()
        picked = _pydate(day)
        # Picking the newest note's own day is following it.
        self.clock_chosen.emit(None if picked == self._default and self._override is None else picked)

    @Slot()
    def _on_follow_clicked(self) -> None:
        self.popup.close()
        self.clock_chosen.emit(None)


class FilterButton(_FittedButton):
    """Folders and a date range for the search; its popup sets them.

    Signals:
        filters_changed(object): the new ``filters.SearchFilter``.
    """

    filters_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("filterButton")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self._filters = filters_mod.NO_FILTER
        self._updating = False

        box = QWidget()
        box.setObjectName("filterPopup")
        self.folders_label = QLabel(self.tr("Only notes in these folders:"))
        self.folder_list = QListWidget()
        self.folder_list.setObjectName("filterFolders")
        self.since_check = QCheckBox(self.tr("From"))
        self.since_check.setObjectName("filterSinceCheck")
        self.until_check = QCheckBox(self.tr("To"))
        self.until_check.setObjectName("filterUntilCheck")
        self.since_edit = QDateEdit()
        self.since_edit.setObjectName("filterSince")
        self.until_edit = QDateEdit()
        self.until_edit.setObjectName("filterUntil")
        for edit in (self.since_edit, self.until_edit):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setEnabled(False)
        self.dates_hint = QLabel(self.tr("A note's day: the date in its name, else its last change."))
        self.dates_hint.setWordWrap(True)
        self.clear_button = QPushButton(self.tr("Clear filters"))
        self.clear_button.setObjectName("filterClear")
        grid = QGridLayout()
        grid.addWidget(self.since_check, 0, 0)
        grid.addWidget(self.since_edit, 0, 1)
        grid.addWidget(self.until_check, 1, 0)
        grid.addWidget(self.until_edit, 1, 1)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.folders_label)
        layout.addWidget(self.folder_list)
        layout.addLayout(grid)
        layout.addWidget(self.dates_hint)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.clear_button)
        layout.addLayout(row)
        box.setFocusProxy(self.folder_list)
        box.setMinimumWidth(300)
        self.popup = _Popup(box, self)
        self.clicked.connect(self.popup.open_under)

        self.folder_list.itemChanged.connect(self._on_changed)
        self.since_check.toggled.connect(self.since_edit.setEnabled)
        self.until_check.toggled.connect(self.until_edit.setEnabled)
        for signal in (self.since_check.toggled, self.until_check.toggled):
            signal.connect(self._on_changed)
        # A date typed digit by digit passes through other days ("2026-0" … "2026-06-15"):
        # the search runs once the date is committed (Return, focus leaving, a day picked
        # in the calendar) or has rested a moment, not on each keystroke.
        self._date_timer = QTimer(self)
        self._date_timer.setObjectName("filter-date-settle-timer")
        self._date_timer.setSingleShot(True)
        self._date_timer.setInterval(DATE_SETTLE_MS)
        self._date_timer.timeout.connect(self._on_changed)
        for edit in (self.since_edit, self.until_edit):
            edit.dateChanged.connect(self._on_date_edited)
            edit.editingFinished.connect(self._commit_dates)
            calendar = edit.calendarWidget()
            if calendar is not None:
                # After the edit has taken the day (its own connection runs first).
                calendar.clicked.connect(lambda _day: QTimer.singleShot(0, self._commit_dates))
        self.clear_button.clicked.connect(self.clear)
        self._refresh()

    @property
    def filters(self) -> filters_mod.SearchFilter:
        return self._filters

    def set_folders(self, folders: Iterable[str]) -> None:
        """The folders offered (the workspace's); ticked ones stay ticked."""
        ticked = {p.rstrip("/") for p in self._filters.folders}
        self._updating = True
        try:
            self.folder_list.clear()
            for folder in folders:
                item = QListWidgetItem(folder + "/")
                item.setData(Qt.ItemDataRole.UserRole, folder)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if folder in ticked else Qt.CheckState.Unchecked)
                self.folder_list.addItem(item)
        finally:
            self._updating = False
        # As tall as its folders (two to eight rows), not a fixed box mostly empty.
        rows = min(8, max(2, self.folder_list.count()))
        row = self.folder_list.sizeHintForRow(0) if self.folder_list.count() else self.fontMetrics().height()
        self.folder_list.setFixedHeight(rows * row + 2 * self.folder_list.frameWidth() + 4)

    def set_default_range(self, day: dt.date | None) -> None:
        """Where the date edits start when turned on: the month up to the search clock."""
        day = day or dt.date.today()
        self._updating = True
        try:
            if not self.since_check.isChecked():
                self.since_edit.setDate(_qdate(day.replace(day=1)))
            if not self.until_check.isChecked():
                self.until_edit.setDate(_qdate(day))
        finally:
            self._updating = False

    def set_filters(self, flt: filters_mod.SearchFilter) -> None:
        """Show ``flt`` in the popup (no signal)."""
        self._updating = True
        try:
            wanted = {p.rstrip("/") for p in flt.folders}
            for i in range(self.folder_list.count()):
                item = self.folder_list.item(i)
                on = item.data(Qt.ItemDataRole.UserRole) in wanted
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            self.since_check.setChecked(flt.since is not None)
            self.until_check.setChecked(flt.until is not None)
            if flt.since is not None:
                self.since_edit.setDate(_qdate(flt.since))
            if flt.until is not None:
                self.until_edit.setDate(_qdate(flt.until))
        finally:
            self._updating = False
        self._filters = flt
        self._refresh()

    @Slot()
    def clear(self) -> None:
        self.set_filters(filters_mod.NO_FILTER)
        self.filters_changed.emit(self._filters)

    @Slot()
    def _on_date_edited(self) -> None:
        if not self._updating:
            self._date_timer.start()  # again from now: the date is still being typed

    @Slot()
    def _commit_dates(self) -> None:
        if self._date_timer.isActive():
            self._date_timer.stop()
            self._on_changed()

    @Slot()
    def _on_changed(self, *_args: object) -> None:
        if self._updating:
            return
        self._date_timer.stop()  # what it would run is run now
        folders = [
            str(self.folder_list.item(i).data(Qt.ItemDataRole.UserRole))
            for i in range(self.folder_list.count())
            if self.folder_list.item(i).checkState() == Qt.CheckState.Checked
        ]
        since = _pydate(self.since_edit.date()) if self.since_check.isChecked() else None
        until = _pydate(self.until_edit.date()) if self.until_check.isChecked() else None
        if since is not None and until is not None and until < since:
            since, until = until, since  # a range picked backwards means the same days
        flt = filters_mod.SearchFilter.build(folders, since, until)
        if flt != self._filters:
            self._filters = flt
            self._refresh()
            self.filters_changed.emit(flt)

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._refresh()

    def _refresh(self) -> None:
        count = (
            len(self._filters.folders) + (self._filters.since is not None) + (self._filters.until is not None)
        )
        self.set_forms(
            (self.tr("Filter · {0}").format(count) if count else self.tr("Filter")) + _ARROW,
            *((f"· {count}{_ARROW}",) if count else ()),
            _ARROW.strip(),
        )
        parts = [p.rstrip("/") for p in self._filters.folders]
        if self._filters.since or self._filters.until:
            parts.append(f"{self._filters.since or '…'} – {self._filters.until or '…'}")
        self.setToolTip(
            self.tr("Search only some folders or days: {0}").format(", ".join(parts))
            if parts
            else self.tr("Search only some folders or days")
        )
        self.clear_button.setEnabled(count > 0)


class SearchBarClock(QObject):
    """Wires the clock and filter buttons to the window's session and the preferences:
    the clock is kept per workspace (``Preferences.workspace_clock``), the filters
    for the session (a new workspace starts without them)."""

    def __init__(
        self,
        clock_button: ClockButton,
        filter_button: FilterButton,
        prefs: preferences_mod.Preferences,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._clock_button = clock_button
        self._filter_button = filter_button
        self._prefs = prefs
        self._session: session_mod.Session | None = None
        clock_button.clock_chosen.connect(self._on_clock_chosen)
        filter_button.filters_changed.connect(self._on_filters_changed)

    def attach(self, session: session_mod.Session) -> None:
        self._session = session
        session.clock_changed.connect(self._on_session_clock_changed)
        session.snapshot_changed.connect(self._on_session_snapshot_changed)
        self._filter_button.set_filters(session.filters)
        session.set_clock(self._prefs.workspace_clock(session.workspace))
        self._on_session_clock_changed(session.clock)

    @Slot(object)
    def _on_clock_chosen(self, day: dt.date | None) -> None:
        session = self._session
        if session is None:
            return
        self._prefs.set_workspace_clock(session.workspace, day)
        session.set_clock(day)
        self._on_session_clock_changed(session.clock)

    @Slot(object)
    def _on_filters_changed(self, flt: filters_mod.SearchFilter) -> None:
        if self._session is not None:
            self._session.set_filters(flt)

    @Slot(object)
    def _on_session_clock_changed(self, _clock: object) -> None:
        session = self._session
        if session is None:
            return
        self._clock_button.set_clock(
            session.clock, default=session.default_clock, override=session.clock_override
        )
        self._filter_button.set_default_range(session.clock)

    @Slot(object)
    def _on_session_snapshot_changed(self, snapshot: workers.WorkspaceSnapshot) -> None:
        if snapshot.error is None:
            self._filter_button.set_folders(folders_of(snapshot.files))
            self._on_session_clock_changed(None)
