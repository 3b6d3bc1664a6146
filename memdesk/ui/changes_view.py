"""The Changes view: every change to the memory files in a period (today, this week,
since a date), grouped by note, the agent's (on disk, MCP) apart from the user's
(memdesk), each with its diff; beside an agent's rewrite of ``MEMORY.md`` or
``USER.md``, the dreaming output nearest before it. Per hunk: keep it (marked
reviewed) or revert it (a new version through the safe save; nothing is lost).

Opening it reads only the period's version rows (a job); a note's versions become
rows when its group is expanded, and a diff is read when a row is selected, so a
history of 2,000 notes x 50 versions opens at once.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QDate, QEvent, Qt, Signal, Slot
from PySide6.QtGui import QAction, QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDateEdit,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memdesk.core import history as history_mod
from memdesk.qt import history_data, history_loader, jobs
from memdesk.qt import messages as qt_messages
from memdesk.ui import action_buttons, diff_view, history_restore
from memdesk.ui import history_text as text_mod

GroupRole = Qt.ItemDataRole.UserRole  # the ChangeGroup of a note's row
VersionRole = Qt.ItemDataRole.UserRole + 1  # the Version of a version's row

PERIODS = ("today", "week", "since")
# A window of its own: its keys work wherever its focus is in it.
_IN_WINDOW = Qt.ShortcutContext.WindowShortcut


def period_start(period: str, since: dt.date | None = None, *, now: dt.datetime | None = None) -> dt.datetime:
    """The period's start as an aware UTC time, from local midnights."""
    local_now = (now or dt.datetime.now(dt.UTC)).astimezone()
    today = local_now.date()
    if period == "week":
        day = today - dt.timedelta(days=today.weekday())  # since Monday
    elif period == "since" and since is not None:
        day = since
    else:
        day = today
    return dt.datetime.combine(day, dt.time(), tzinfo=local_now.tzinfo).astimezone(dt.UTC)


class ChangesView(QDialog):
    """The Changes window (not modal: the notes stay at hand beside it).

    Signals:
        loaded(): the period's changes are listed (tests, automation, benchmarks).
        detail_shown(): a selected change's diff is on screen.
        expanded(str): this note's versions are rows under it now.
        seen(str): every change of this note's agent group was kept (reviewed).
        open_note_requested(str), history_requested(str): from its buttons.
    """

    loaded = Signal()
    detail_shown = Signal()
    expanded = Signal(str)
    seen = Signal(str)
    open_note_requested = Signal(str)
    history_requested = Signal(str)

    def __init__(
        self,
        root: Callable[[], Path],
        restorer: history_restore.Restorer,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("changesView")
        self.setWindowFlag(Qt.WindowType.Window, True)
        self._root = root
        self._restorer = restorer
        self._loader = history_loader.Loader(self)
        self._changes: history_data.Changes | None = None
        self._comparison: history_data.Comparison | None = None
        self._dream: history_data.Dream | None = None
        self._shown: tuple[history_mod.Version, ...] = ()  # the versions the diff is of
        self._shown_note = ""
        self._skipping = False
        self._reviewed: set[str] = set()
        self.load_seconds = 0.0  # how long the last period took to list (benchmarks)

        self.period_label = QLabel()
        self.period_box = QComboBox()
        self.period_box.setObjectName("changesPeriod")
        self.period_box.addItems(["", "", ""])
        self.period_label.setBuddy(self.period_box)
        self.since_edit = QDateEdit(QDate.currentDate().addDays(-7))
        self.since_edit.setObjectName("changesSince")
        self.since_edit.setCalendarPopup(True)
        self.since_edit.setDisplayFormat("yyyy-MM-dd")
        self.since_edit.setMaximumDate(QDate.currentDate())
        self.since_edit.setEnabled(False)
        self.summary = QLabel()
        self.summary.setObjectName("changesSummary")
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.refresh_button = QPushButton()
        self.refresh_button.setObjectName("changesRefresh")
        top = QHBoxLayout()
        top.addWidget(self.period_label)
        top.addWidget(self.period_box)
        top.addWidget(self.since_edit)
        top.addWidget(self.refresh_button)
        top.addWidget(self.summary, 1)

        self.tree = QTreeWidget()
        self.tree.setObjectName("changesTree")
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.itemExpanded.connect(self._on_tree_item_expanded)
        self.tree.currentItemChanged.connect(self._on_tree_current_item_changed)

        self.detail_label = QLabel()
        self.detail_label.setObjectName("changesDetailLabel")
        self.detail_label.setTextFormat(Qt.TextFormat.PlainText)
        self.detail_label.setWordWrap(True)
        self.diff = diff_view.DiffView()
        self.diff.setObjectName("changesDiff")
        self.diff.current_hunk_changed.connect(self._on_diff_current_hunk_changed)
        self.dream_label = QLabel()
        self.dream_label.setObjectName("changesDreamLabel")
        self.dream_label.setTextFormat(Qt.TextFormat.PlainText)
        self.dream_label.setWordWrap(True)
        self.dream_text = QPlainTextEdit()
        self.dream_text.setObjectName("changesDream")
        self.dream_text.setReadOnly(True)
        self.dream_text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        dream_page = QWidget()
        dream_layout = QVBoxLayout(dream_page)
        dream_layout.setContentsMargins(0, 0, 0, 0)
        dream_layout.addWidget(self.dream_label)
        dream_layout.addWidget(self.dream_text, 1)
        self.dream_page = dream_page
        beside = QSplitter(Qt.Orientation.Horizontal)
        beside.setObjectName("changesDiffSplitter")
        beside.addWidget(self.diff)
        beside.addWidget(dream_page)
        beside.setStretchFactor(0, 3)
        beside.setStretchFactor(1, 2)
        beside.setChildrenCollapsible(False)
        dream_page.setVisible(False)

        self.previous_action, self.next_action = self.diff.step_actions(self, _IN_WINDOW)
        self.keep_action = self._action(self.keep_hunk, "Alt+K")
        self.revert_action = self._action(self.revert_hunk, "Alt+R")
        self.open_action = self._action(self._open_note, "Alt+O")
        self.history_action = self._action(self._open_history, "Alt+H")
        self.buttons: list[QPushButton] = []
        actions_row = QHBoxLayout()
        for action, name in (
            (self.previous_action, "changesPrevious"),
            (self.next_action, "changesNext"),
            (self.keep_action, "changesKeep"),
            (self.revert_action, "changesRevert"),
            (self.open_action, "changesOpen"),
            (self.history_action, "changesHistory"),
        ):
            button = action_buttons.action_button(action, name)
            actions_row.addWidget(button)
            self.buttons.append(button)
            if name == "changesNext":
                actions_row.addSpacing(12)
        actions_row.addStretch(1)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.detail_label)
        right_layout.addWidget(beside, 1)
        right_layout.addLayout(actions_row)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("changesSplitter")
        split.addWidget(self.tree)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)
        split.setSizes([300, 900])
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)

        self.period_box.currentIndexChanged.connect(self._on_period_changed)
        self.since_edit.dateChanged.connect(self._on_since_changed)
        self.refresh_button.clicked.connect(self.reload)
        restorer.restored.connect(self._on_restorer_restored)
        self.retranslate()
        self._update_actions()
        self.resize(1180, 700)

    def _action(self, slot: Callable[[], object], key: str) -> QAction:
        return action_buttons.shortcut_action(self, slot, key, _IN_WINDOW)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Changes to memory"))
        self.period_label.setText(self.tr("&Period:"))
        self.period_box.setItemText(0, self.tr("Today"))
        self.period_box.setItemText(1, self.tr("This week"))
        self.period_box.setItemText(2, self.tr("Since a date"))
        self.since_edit.setToolTip(self.tr("The first day to list changes from"))
        self.refresh_button.setText(self.tr("Refresh"))
        action_buttons.set_texts(
            [
                *self.diff.step_texts(self.previous_action, self.next_action),
                (self.keep_action, self.tr("Keep"), self.tr("Keep this change: mark it reviewed (Alt+K)")),
                (
                    self.revert_action,
                    self.tr("Revert"),
                    self.tr(
                        "Take this change back in the note (Alt+R); saved as a new version, nothing is lost"
                    ),
                ),
                (self.open_action, self.tr("Open note"), self.tr("Open the note in the editor (Alt+O)")),
                (self.history_action, self.tr("History"), self.tr("Every version of the note (Alt+H)")),
            ]
        )
        self._fill_tree()
        self._show_summary()

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    # the period ----------------------------------------------------------------------
    @property
    def changes(self) -> history_data.Changes | None:
        return self._changes

    @property
    def comparison(self) -> history_data.Comparison | None:
        return self._comparison

    @property
    def dream(self) -> history_data.Dream | None:
        return self._dream

    def set_period(self, period: str, since: dt.date | None = None) -> None:
        """ "today", "week" or "since" (``since``: the first day); lists it again."""
        if since is not None:
            self.since_edit.blockSignals(True)
            self.since_edit.setDate(QDate(since.year, since.month, since.day))
            self.since_edit.blockSignals(False)
        index = PERIODS.index(period)
        if self.period_box.currentIndex() == index:
            self.reload()
        else:
            self.period_box.setCurrentIndex(index)  # reloads

    def start(self) -> dt.datetime:
        period = PERIODS[self.period_box.currentIndex()]
        date = self.since_edit.date()
        return period_start(period, dt.date(date.year(), date.month(), date.day()))

    @Slot(int)
    def _on_period_changed(self, index: int) -> None:
        self.since_edit.setEnabled(PERIODS[index] == "since")
        self.reload()

    @Slot(QDate)
    def _on_since_changed(self, _date: QDate) -> None:
        if PERIODS[self.period_box.currentIndex()] == "since":
            self.reload()

    def reload(self) -> None:
        root, since = self._root(), self.start()
        self._reviewed = history_data.load_reviewed(root)
        self.summary.setText(self.tr("Reading the changes…"))
        started = time.perf_counter()

        def done(outcome: jobs.JobOutcome[Any]) -> None:
            self.load_seconds = time.perf_counter() - started
            self._on_changes_loaded(outcome)

        self._loader.load("changes", lambda: history_data.load_changes(root, since), done)

    def _on_changes_loaded(self, outcome: jobs.JobOutcome[Any]) -> None:
        if outcome.error is not None:
            self._changes = None
            self.tree.clear()
            self.summary.setText(
                self.tr("History cannot be read: {0}").format(qt_messages.text(outcome.error))
            )
            return
        keep = self._current_key()
        self._changes = outcome.value
        self._fill_tree(select=keep)
        self._show_summary()
        self.loaded.emit()

    def _show_summary(self) -> None:
        changes = self._changes
        if changes is None:
            return
        agent = sum(g.count for g in changes.groups if g.side == "agent")
        user = sum(g.count for g in changes.groups if g.side == "user")
        notes = len({g.note for g in changes.groups})
        self.summary.setText(
            self.tr("Changes: {0} · notes: {1} · by the agent: {2} · by you: {3}").format(
                agent + user, notes, agent, user
            )
            if agent + user
            else self.tr("No changes in this period")
        )

    # the tree ------------------------------------------------------------------------
    def _fill_tree(self, select: tuple[str, str, str] | None = None) -> None:
        if not hasattr(self, "tree"):
            return
        self.tree.blockSignals(True)
        self.tree.clear()
        changes = self._changes
        chosen: QTreeWidgetItem | None = None
        if changes is not None:
            for side, title in (("agent", self.tr("The agent's changes")), ("user", self.tr("Your changes"))):
                groups = [g for g in changes.groups if g.side == side]
                count = sum(g.count for g in groups)
                head = QTreeWidgetItem([self.tr("{0} ({1})").format(title, count)])
                # Not selectable (the arrow keys step over it, see below); still enabled,
                # or its notes would be disabled with it.
                head.setFlags(Qt.ItemFlag.ItemIsEnabled)
                font = head.font(0)
                font.setBold(True)
                head.setFont(0, font)
                self.tree.addTopLevelItem(head)
                for group in groups:
                    item = QTreeWidgetItem([self._group_text(group, changes)])
                    item.setData(0, GroupRole, group)
                    item.setToolTip(0, group.note)
                    item.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator)
                    head.addChild(item)
                    if chosen is None and (select is None or select == (side, group.note, "")):
                        chosen = item
                head.setExpanded(True)
        self.tree.blockSignals(False)
        if chosen is not None:
            self.tree.setCurrentItem(chosen)
        else:
            self._show_nothing()

    def _group_text(self, group: history_data.ChangeGroup, changes: history_data.Changes) -> str:
        mark = " ●" if group.side == "agent" and group.note in changes.unseen else ""
        return self.tr("{0} ({1}){2}").format(group.note, group.count, mark)

    @Slot(QTreeWidgetItem)
    def _on_tree_item_expanded(self, item: QTreeWidgetItem) -> None:
        group = item.data(0, GroupRole)
        changes = self._changes
        if not isinstance(group, history_data.ChangeGroup) or item.childCount() or changes is None:
            return
        root, since, until = self._root(), changes.since, changes.until

        def add(outcome: jobs.JobOutcome[Any]) -> None:
            # The group's row may be gone (listed again meanwhile): then nothing to add to.
            if outcome.error is not None or item.data(0, GroupRole) is not group or item.childCount():
                return
            for version in reversed(tuple(outcome.value or ())):  # newest first under the note
                child = QTreeWidgetItem([text_mod.version_label(version)])
                child.setData(0, VersionRole, version)
                item.addChild(child)
            self.expanded.emit(group.note)

        # A note's versions are read only when it is opened (one note's timeline).
        self._loader.load(
            f"expand:{group.side}:{group.note}",
            lambda: history_data.load_group(root, group, since, until),
            add,
        )

    def _current_key(self) -> tuple[str, str, str] | None:
        item = self.tree.currentItem()
        if item is None:
            return None
        group = item.data(0, GroupRole)
        if isinstance(group, history_data.ChangeGroup):
            return (group.side, group.note, "")
        return None

    @Slot(QTreeWidgetItem, QTreeWidgetItem)
    def _on_tree_current_item_changed(
        self, item: QTreeWidgetItem | None, previous: QTreeWidgetItem | None
    ) -> None:
        if item is None:
            self._show_nothing()
            return
        if item.parent() is None and previous is not None and not self._skipping:
            # A side's heading: the arrow keys go on to the next note, up or down.
            up = previous is self.tree.itemBelow(item)
            if up:
                target = self.tree.itemAbove(item) or previous
            else:
                target = item.child(0) or self.tree.itemBelow(item) or previous
            self._skipping = True  # two empty headings must not hand the cursor back and forth
            try:
                self.tree.setCurrentItem(target)
            finally:
                self._skipping = False
            return
        group = item.data(0, GroupRole)
        version = item.data(0, VersionRole)
        if isinstance(group, history_data.ChangeGroup):
            self._show_group(group)
        elif isinstance(version, history_mod.Version):
            self._show((version,))
        else:
            self._show_nothing()

    def select_group(self, side: str, note: str) -> bool:
        for top in range(self.tree.topLevelItemCount()):
            head = self.tree.topLevelItem(top)
            assert head is not None
            for row in range(head.childCount()):
                item = head.child(row)
                group = item.data(0, GroupRole) if item is not None else None
                if item is not None and group is not None and (group.side, group.note) == (side, note):
                    self.tree.setCurrentItem(item)
                    return True
        return False

    def _show_nothing(self) -> None:
        self._shown = ()
        self._shown_note = ""
        self._comparison = None
        self._dream = None
        self.detail_label.setText("")
        self.diff.show_message(self.tr("Choose a note or a change on the left"))
        self.dream_page.setVisible(False)
        self._update_actions()

    def _show_group(self, group: history_data.ChangeGroup) -> None:
        changes = self._changes
        if changes is None:
            return
        self._shown, self._shown_note, self._comparison = (), group.note, None
        self._update_actions()
        if group.count == 1:
            what = text_mod.time_label(group.last)
        else:
            what = self.tr("{0} changes, {1} → {2}").format(
                group.count, text_mod.time_label(group.first), text_mod.time_label(group.last)
            )
        self.detail_label.setText(f"{group.note} · {what}")
        root, since, until = self._root(), changes.since, changes.until
        self._loader.load(
            "detail",
            lambda: history_data.load_group_detail(root, group, since, until),
            self._on_detail_loaded,
        )

    def _show(self, versions: tuple[history_mod.Version, ...]) -> None:
        self._shown, self._shown_note = (), versions[-1].note
        self._comparison = None
        self._update_actions()
        first, last = versions[0], versions[-1]
        if len(versions) == 1:
            what = text_mod.version_label(last)
        else:
            what = self.tr("{0} changes, {1} → {2}").format(
                len(versions), text_mod.time_label(first.at), text_mod.time_label(last.at)
            )
        self.detail_label.setText(f"{last.note} · {what}")
        root = self._root()
        self._loader.load("detail", lambda: history_data.load_detail(root, versions), self._on_detail_loaded)

    def _on_detail_loaded(self, outcome: jobs.JobOutcome[Any]) -> None:
        if outcome.error is not None:
            self.diff.show_message(qt_messages.text(outcome.error))
            return
        assert isinstance(outcome.value, tuple)
        versions, comparison, dream = outcome.value
        self._shown = versions
        self._comparison = comparison
        self._dream = dream
        self._render_diff()
        if dream is not None:
            self.dream_label.setText(
                self.tr("Dreaming output nearest before it: {0} ({1})").format(
                    dream.rel, text_mod.time_label(dream.at)
                )
            )
            self.dream_text.setPlainText(dream.text)
            self.dream_text.moveCursor(self.dream_text.textCursor().MoveOperation.End)
        self.dream_page.setVisible(dream is not None)
        self._update_actions()
        self.detail_shown.emit()

    def _render_diff(self, at: int = 0) -> None:
        comparison = self._comparison
        if comparison is None:
            return
        if not comparison.ok:
            problem = comparison.old.problem or comparison.new.problem
            self.diff.show_message(self.tr("No diff: {0}").format(qt_messages.text(problem)))
            return
        kept = history_data.kept(comparison, self._reviewed)
        self.diff.show_diff(
            comparison.old.text or "",
            comparison.new.text or "",
            comparison.hunks,
            empty=self.tr("No differences"),
            kept=kept,
        )
        self.diff.go_to_hunk(min(at, len(comparison.hunks) - 1))

    @Slot(int)
    def _on_diff_current_hunk_changed(self, _index: int) -> None:
        self._update_actions()

    def _update_actions(self) -> None:
        comparison = self._comparison
        has_hunk = comparison is not None and comparison.ok and self.diff.current_hunk >= 0
        many = comparison is not None and len(comparison.hunks) > 1
        for action, on in (
            (self.previous_action, many),
            (self.next_action, many),
            (self.keep_action, has_hunk),
            (self.revert_action, has_hunk),
            (self.open_action, bool(self._shown_note)),
            (self.history_action, bool(self._shown_note)),
        ):
            action.setEnabled(on)

    # per hunk ------------------------------------------------------------------------
    def kept_hunks(self) -> list[int]:
        comparison = self._comparison
        if comparison is None or not self._shown:
            return []
        return history_data.kept(comparison, self._reviewed)

    def keep_hunk(self) -> bool:
        """Mark the hunk under the cursor reviewed, and go on to the next one."""
        comparison, index = self._comparison, self.diff.current_hunk
        if comparison is None or not self._shown or not 0 <= index < len(comparison.hunks):
            return False
        note = self._shown[-1].note
        root = self._root()
        self._reviewed.add(history_data.hunk_key(comparison, comparison.hunks[index]))
        history_data.save_reviewed(root, self._reviewed)
        self._render_diff(at=index + 1)
        if len(self.kept_hunks()) == len(comparison.hunks) and any(
            history_data.is_agent(v) for v in self._shown
        ):
            # Every change shown is reviewed: the agent's changes to it count as seen.
            self._loader.load(
                "seen", lambda: history_data.mark_seen(root, note), lambda _o: self.seen.emit(note)
            )
        return True

    def revert_hunk(self) -> bool:
        """Take the hunk under the cursor back in the note now (a new version)."""
        comparison, index = self._comparison, self.diff.current_hunk
        if (
            comparison is None
            or not comparison.ok
            or not self._shown
            or not 0 <= index < len(comparison.hunks)
        ):
            return False
        hunk, note = comparison.hunks[index], self._shown[-1].note
        # A change the user took back has been looked at: it counts as reviewed.
        self._reviewed.add(history_data.hunk_key(comparison, hunk))
        history_data.save_reviewed(self._root(), self._reviewed)
        self._restorer.restore(
            note,
            lambda now: history_data.undo_hunk(comparison, hunk, now, note),
            self.tr("Reverting a change in {0}…").format(note),
        )
        return True

    def _open_note(self) -> None:
        if self._shown_note:
            self.open_note_requested.emit(self._shown_note)

    def _open_history(self) -> None:
        if self._shown_note:
            self.history_requested.emit(self._shown_note)

    @Slot(str)
    def _on_restorer_restored(self, _note: str) -> None:
        if self.isVisible():
            self.reload()
