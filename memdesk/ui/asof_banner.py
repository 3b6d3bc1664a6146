"""Search as of a day: the date picker, the banner above the results, and their wiring.

Search > "Search as of a day…" asks for a date (``AsOfDialog``); the snapshot of that
day is built as a job (``qt/asof.py``) while the banner follows its progress; then
every search of the search panel (typing, sliders, scope) is answered from it until
"Back to now" (or Esc in the query box). The banner says "Memory as it was on
2026-11-02 · N notes differ now", counted again after each sync, and names the day
memdesk's history first saw the notes it could not know then; each hit whose note
differs now carries a "changed since" badge in its row and a line in its explanation.
"""

from __future__ import annotations

import datetime as dt
import html
from typing import TYPE_CHECKING

from PySide6.QtCore import QDate, QEvent, QObject, Qt, Signal, Slot
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from memdesk.core import asof
from memdesk.core import engine as engine_mod
from memdesk.core.search import hits as hits_mod
from memdesk.qt import asof as asof_qt
from memdesk.qt import messages as qt_messages
from memdesk.qt import session as session_mod
from memdesk.ui import theme

if TYPE_CHECKING:
    from memdesk.ui.main_window import MainWindow

# The most lines of a changed hit's old text the explanation shows.
TEXT_LINES = 30


class AsOfDialog(QDialog):
    """Which day: a date field with a calendar popup, up to today."""

    def __init__(self, day: dt.date | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("asOfDialog")
        self.setWindowTitle(self.tr("Search as of a day"))
        today = dt.date.today()
        chosen = day or today - dt.timedelta(days=7)
        self.date_edit = QDateEdit(QDate(chosen.year, chosen.month, chosen.day))
        self.date_edit.setObjectName("asOfDate")
        self.date_edit.setCalendarPopup(True)
        self.date_edit.setDisplayFormat("yyyy-MM-dd")
        self.date_edit.setMaximumDate(QDate(today.year, today.month, today.day))
        text = QLabel(
            self.tr(
                "Search the notes as they were at the end of this day: each note's version then, "
                "from memdesk's history of the workspace (and its git commits)."
            )
        )
        text.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.date_edit)
        layout.addWidget(buttons)
        self.setMinimumWidth(self.fontMetrics().averageCharWidth() * 56)

    def day(self) -> dt.date:
        d = self.date_edit.date()
        return dt.date(d.year(), d.month(), d.day())


class AsOfBanner(QFrame):
    """ "Memory as it was on 2026-11-02 · N notes differ now · [Back to now]".

    Signals:
        back_requested(): Back to now was clicked (it also cancels a build).
    """

    back_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("asOfBanner")
        self.label = QLabel()
        self.label.setObjectName("asOfLabel")
        self.label.setWordWrap(True)
        self.back_button = QPushButton(self.tr("Back to now"))
        self.back_button.setObjectName("asOfBackButton")
        self.back_button.setToolTip(self.tr("Search memory as it is now again (Esc in the query box)"))
        self.back_button.clicked.connect(self.back_requested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 3, 4, 3)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.back_button)
        self.restyle()
        self.setVisible(False)

    def restyle(self) -> None:
        """Its colours from the application's palette (again when the theme changes it;
        its own palette is the style sheet's)."""
        palette = QApplication.palette()
        sheet = (
            f"#asOfBanner {{ background: {theme.banner_background(palette).name()};"
            f" border: 1px solid {theme.muted_text(palette).name()}; border-radius: 3px; }}"
        )
        if sheet != self.styleSheet():  # setting it sends a palette change of its own
            self.setStyleSheet(sheet)

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.ApplicationPaletteChange:
            self.restyle()

    def show_building(self, day: dt.date) -> None:
        self.label.setText(self.tr("Reading memory as it was on {0}…").format(day.isoformat()))
        self.setVisible(True)

    def show_progress(self, day: dt.date, step: engine_mod.SyncProgress) -> None:
        if step.phase == "embed":
            text = self.tr("Reading memory as it was on {0}: embedding {1}/{2} changed chunks…").format(
                day.isoformat(), step.embedded, step.to_embed
            )
        else:
            text = self.tr("Reading memory as it was on {0}: indexing {1}/{2} notes…").format(
                day.isoformat(), step.files_done, step.files_total
            )
        self.label.setText(text)

    def show_ready(
        self,
        snap: asof.Snapshot,
        count: asof_qt.Count | None = None,
        embedding: engine_mod.SyncProgress | None = None,
    ) -> None:
        """The day's snapshot and how the workspace differs from it now (``count``:
        recounted as notes change; notes the history had not seen by then are not
        counted as "new since": it could not know whether they were there). While the
        passages that differ that day are embedded (``embedding``: how far), it says the
        answers are keyword-only meanwhile."""
        day = snap.day.isoformat()
        count = count or asof_qt.Count(snap.differences)
        first = count.first_seen.isoformat() if count.first_seen else ""
        if snap.notes == 0 and count.history_start is not None:
            text = self.tr(
                "Memory as it was on {0} · memdesk's history of this workspace starts on {1}: "
                "it keeps no version from that day or before"
            ).format(day, count.history_start.isoformat())
        elif snap.notes == 0:
            text = self.tr(
                "Memory as it was on {0} · the history keeps no version from that day or before"
            ).format(day)
        elif count.unseen:
            text = self.tr(
                "Memory as it was on {0} · {1} notes differ now · {2} notes memdesk first saw "
                "on {3} are not known then"
            ).format(day, count.differ, len(count.unseen), first)
        else:
            text = self.tr("Memory as it was on {0} · {1} notes differ now").format(day, count.differ)
        if snap.pending:
            left = snap.pending if embedding is None else max(embedding.to_embed - embedding.embedded, 0)
            text += " · " + self.tr("keyword-only while {0} changed passages are embedded").format(left)
        self.label.setText(text)
        self.label.setToolTip(self._differences_tip(snap, count))

    def _differences_tip(self, snap: asof.Snapshot, count: asof_qt.Count) -> str:
        d = count.differences
        unseen = set(count.unseen)
        parts = [
            (self.tr("Changed since:"), d.changed),
            (self.tr("Deleted since:"), d.gone),
            (self.tr("New since:"), tuple(n for n in d.new if n not in unseen)),
            (self.tr("Not in the history by then (first seen later):"), count.unseen),
        ]
        lines = [self.tr("{0} notes as they were on {1}").format(snap.notes, snap.day.isoformat())]
        for title, notes in parts:
            if notes:
                shown = ", ".join(notes[:8]) + (" …" if len(notes) > 8 else "")
                lines.append(f"{title} {shown}")
        return "\n".join(lines)

    def show_failed(self, day: dt.date | None, exc: BaseException) -> None:
        self.label.setText(
            self.tr("Could not read memory as it was on {0}: {1}").format(
                day.isoformat() if day else "?", qt_messages.text(exc)
            )
        )
        self.label.setToolTip("")
        self.setVisible(True)


class AsOfView(QObject):
    """Wires the as-of search into ``window``: the menu's action calls ``choose_day``."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        self._panel = window.search_panel
        self.search = asof_qt.AsOfSearch(self)
        self.banner = AsOfBanner()
        # Above the results, below the query box (and whatever shares its row).
        panel_layout = self._panel.layout()
        assert isinstance(panel_layout, QVBoxLayout)
        panel_layout.insertWidget(1, self.banner)
        self._day: dt.date | None = None  # the last day chosen (the dialog starts there)
        self._marks: dict[str, asof.AsOfHit] = {}  # note -> its version and changed_since
        self._publishing = False
        self.banner.back_requested.connect(self.back_to_now)
        self.search.started.connect(self._on_search_started)
        self.search.progress.connect(self._on_search_progress)
        self.search.ready.connect(self._on_search_ready)
        self.search.embedding.connect(self._on_search_embedding)
        self.search.hybrid.connect(self._on_search_hybrid)
        self.search.failed.connect(self._on_search_failed)
        self.search.results.connect(self._on_search_results)
        self.search.counted.connect(self._on_search_counted)
        window.results_view.intercept = self._intercept
        self._panel.model.extra_badges = self._badges
        self._panel.detail_note = self._detail_note
        self._panel.search_input.installEventFilter(self)
        window.session_replaced.connect(self._on_window_session_replaced)
        self._follow(window.session)

    @property
    def active(self) -> bool:
        return self.search.active

    # choosing and leaving a day --------------------------------------------------------
    def choose_day(self) -> AsOfDialog:
        """Ask for a day (non-modal, so tests and automation can drive it); on OK search it."""
        dialog = AsOfDialog(self._day, self._window)
        dialog.accepted.connect(lambda: self.start(dialog.day()))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def start(self, day: dt.date) -> None:
        self._day = day
        self._marks = {}
        self._panel.clock_button.hold(day)  # one clock on screen: that day's
        self.search.start(self._window.session.engine, day)

    @Slot()
    def back_to_now(self) -> None:
        if not self.active and not self.banner.isVisible():
            return
        self.search.back_to_now()
        self._marks = {}
        self.banner.setVisible(False)
        self._panel.clock_button.hold(None)
        session = self._window.session
        results = session.results
        if results is not None and results.query == self._panel.search_input.text():
            self._window.results_view.show(results)
        else:
            session.refresh_search()

    def close(self) -> None:
        self.search.close()

    # the searches ------------------------------------------------------------------------
    def _request(self, results: session_mod.Results) -> asof_qt.Request:
        return asof_qt.Request(results.query, results.settings, self._window.session.scope)

    def _intercept(self, results: session_mod.Results) -> bool:
        """The session's results while a day is chosen: ask the same of the snapshot."""
        if self._publishing or not self.active:
            return False
        self.search.search(self._request(results), reranked=results.reranked)
        return True

    @Slot(object)
    def _on_search_started(self, day: dt.date) -> None:
        self.banner.show_building(day)

    @Slot(object)
    def _on_search_progress(self, step: engine_mod.SyncProgress) -> None:
        if self.search.day is not None:
            self.banner.show_progress(self.search.day, step)

    @Slot(object)
    def _on_search_ready(self, snap: asof.Snapshot) -> None:
        self.banner.show_ready(snap, self.search.count)
        session = self._window.session
        self.search.search(asof_qt.Request(session.query, session.settings, session.scope))

    @Slot(object)
    def _on_search_embedding(self, step: engine_mod.SyncProgress) -> None:
        snap = self.search.snapshot
        if snap is not None:
            self.banner.show_ready(snap, self.search.count, step)

    @Slot(object)
    def _on_search_hybrid(self, snap: asof.Snapshot) -> None:
        if snap is self.search.snapshot:
            self.banner.show_ready(snap, self.search.count)  # the search is asked again

    def _follow(self, session: session_mod.Session) -> None:
        # Each sync (a save, the agent's write, a delete): the count may have changed.
        session.sync_finished.connect(self._on_session_sync_finished)

    @Slot(object)
    def _on_session_sync_finished(self, _report: object) -> None:
        if self.sender() is self._window.session and self.search.snapshot is not None:
            self.search.recount()

    @Slot(object)
    def _on_search_counted(self, count: asof_qt.Count) -> None:
        snap = self.search.snapshot
        if snap is None:
            return
        self.banner.show_ready(snap, count)
        # Each hit's "changed since" was read when it was found: ask the search again.
        session = self._window.session
        self.search.search(asof_qt.Request(session.query, session.settings, session.scope))

    @Slot(object)
    def _on_search_failed(self, exc: BaseException) -> None:
        self.banner.show_failed(self._day, exc)

    @Slot(object)
    def _on_search_results(self, answer: tuple[session_mod.Results, asof.AsOfResult | None]) -> None:
        results, found = answer
        self._marks = {h.hit.path: h for h in found.hits} if found is not None else {}
        self._publishing = True
        try:
            self._window.results_view.show(results)
        finally:
            self._publishing = False
        model = self._panel.model
        if model.rowCount() and model.columnCount():  # the badges may differ on the same rows
            model.dataChanged.emit(
                model.index(0, 0), model.index(model.rowCount() - 1, model.columnCount() - 1)
            )

    # marks on the hits -----------------------------------------------------------------------
    def mark_of(self, hit: hits_mod.Hit) -> asof.AsOfHit | None:
        return self._marks.get(hit.path) if self.active else None

    def _badges(self, hit: hits_mod.Hit) -> list[tuple[str, str]]:
        mark = self.mark_of(hit)
        if mark is None or not mark.changed_since:
            return []
        badge = self.tr("deleted since") if self._gone(mark.hit.path) else self.tr("changed since")
        return [(badge, self._changed_text(mark))]

    def _gone(self, note: str) -> bool:
        snap = self.search.snapshot
        return (snap is not None and note in snap.differences.gone) or not (
            self._window.session.workspace / note
        ).exists()

    def _changed_text(self, mark: asof.AsOfHit) -> str:
        day = self.search.day.isoformat() if self.search.day else ""
        if self._gone(mark.hit.path):
            return self.tr("{0} was deleted after {1}").format(mark.hit.path, day)
        return self.tr("{0} differs now from its version of {1}").format(mark.hit.path, day)

    def _version_text(self, mark: asof.AsOfHit) -> str:
        v = mark.version
        when = v.at.astimezone().strftime("%Y-%m-%d %H:%M")
        how = {
            "memdesk": self.tr("saved in memdesk"),
            "disk": self.tr("changed on disk"),
            "mcp": self.tr("written through MCP"),
            "git": self.tr("a git commit"),
        }.get(v.source, v.source)
        return self.tr("version {0} of {1}, {2} ({3})").format(v.id, mark.hit.path, when, how)

    def open_hit(self, hit: hits_mod.Hit) -> bool:
        """Open a hit of the snapshot whose note differs now; False: open it as usual.

        Its lines are the old version's: the note as it is now opens without them marked
        (they may hold other text now), and a deleted note is not opened at all (an empty
        editor of its name would bring it back on save). The explanation shows its text then.
        """
        mark = self.mark_of(hit)
        if mark is None or not mark.changed_since:
            return False
        window = self._window
        if self._gone(hit.path):
            window.statusBar().showMessage(
                self.tr("{0} is deleted now: its text as it was is in the explanation").format(hit.path),
                10_000,
            )
            return True
        window.open_note(hit.path)
        window.note_editor.clear_hit_marks()
        window.tree.select_note(hit.path)
        return True

    def _detail_note(self, hit: hits_mod.Hit) -> str:
        """The explanation's first lines for a hit of the snapshot (HTML)."""
        mark = self.mark_of(hit)
        if mark is None:
            return ""
        day = self.search.day.isoformat() if self.search.day else ""
        head = self.tr("As it was on {0}: {1}").format(day, self._version_text(mark))
        if not mark.changed_since:
            state = html.escape(self.tr("Unchanged since: the note reads the same now."))
            return f"<p>{html.escape(head)}<br>{state}</p>"
        title = self.tr("Deleted since") if self._gone(hit.path) else self.tr("Changed since")
        state = f"<b>{html.escape(title)}</b>: {html.escape(self._changed_text(mark))}"
        lines = hit.text.split("\n")
        shown = "\n".join(lines[:TEXT_LINES]) + ("\n…" if len(lines) > TEXT_LINES else "")
        then = self.tr("Lines {0}–{1} as they read then:").format(hit.start_line, hit.end_line)
        return (
            f"<p>{html.escape(head)}<br>{state}</p><p>{html.escape(then)}</p>"
            f"<pre style='white-space: pre-wrap'>{html.escape(shown)}</pre>"
        )

    # keys and workspace ----------------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # Qt override
        if (
            obj is self._panel.search_input
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Escape
            and (self.active or self.banner.isVisible())
        ):
            self.back_to_now()
            return True
        return super().eventFilter(obj, event)

    @Slot(object)
    def _on_window_session_replaced(self, session: session_mod.Session) -> None:
        self._follow(session)
        # Another workspace: its day would be another memory.
        self.search.back_to_now(quiet=True)
        self._marks = {}
        self.banner.setVisible(False)
