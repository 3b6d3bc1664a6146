"""The History panel: one note's versions (memdesk's saves, the agent's writes, MCP
appends, git commits, deletions), a diff of any two of them, and restoring a whole
version or one hunk through the safe save (``history_restore``).

The timeline and each diff are read as jobs (``history_loader``); selecting a
version shows it against the one before it, or against the note now; selecting two
(Ctrl+click, Shift+arrows) shows the older against the newer. Looking at a note's
history counts as looking at the note: the tree's badge for it goes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memdesk.core import errors
from memdesk.core import history as history_mod
from memdesk.qt import history_data, history_loader, jobs
from memdesk.qt import messages as qt_messages
from memdesk.ui import action_buttons, diff_view, history_restore
from memdesk.ui import errors as ui_errors
from memdesk.ui import history_text as text_mod

DOCK_WIDTH = 460
# The panel's keys work within the dock: the editor's own Alt keys stay the editor's.
_WITHIN_DOCK = Qt.ShortcutContext.WidgetWithChildrenShortcut
VersionRole = Qt.ItemDataRole.UserRole


class HistoryPanel(QDockWidget):
    """The History dock.

    Signals:
        seen(str): the note's history was shown (its agent changes count as seen).
        loaded(str): the timeline of this note is on screen.
        compared(): a diff is on screen (tests, automation).
        closed(): Esc closed it (the window gives the editor its keys back).
    """

    seen = Signal(str)
    loaded = Signal(str)
    compared = Signal()
    closed = Signal()

    def __init__(
        self,
        root: Callable[[], Path],
        restorer: history_restore.Restorer,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("historyDock")
        self._root = root
        self._restorer = restorer
        self._loader = history_loader.Loader(self)
        self._note = ""
        self._versions: tuple[history_mod.Version, ...] = ()
        self._comparison: history_data.Comparison | None = None
        self._selected: history_mod.Version | None = None
        self.setAllowedAreas(Qt.DockWidgetArea.RightDockWidgetArea | Qt.DockWidgetArea.LeftDockWidgetArea)

        body = QWidget()
        self.title_label = QLabel()
        self.title_label.setObjectName("historyTitle")
        self.title_label.setTextFormat(Qt.TextFormat.PlainText)
        self.title_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.timeline = QTreeWidget()
        self.timeline.setObjectName("historyTimeline")
        self.timeline.setRootIsDecorated(False)
        self.timeline.setUniformRowHeights(True)
        self.timeline.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.timeline.setColumnCount(4)
        header = self.timeline.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        # The reason a version has no content is cut to the dock's width (tooltip whole).
        self.timeline.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header.setMinimumSectionSize(40)
        self.timeline.itemSelectionChanged.connect(self._on_timeline_selection_changed)

        self.compare_label = QLabel()
        self.compare_box = QComboBox()
        self.compare_box.setObjectName("historyCompare")
        self.compare_box.addItems(["", ""])
        self.compare_label.setBuddy(self.compare_box)
        self.compare_box.currentIndexChanged.connect(self._on_compare_box_current_index_changed)
        self.diff = diff_view.DiffView()
        self.diff.setObjectName("historyDiff")
        self.diff.current_hunk_changed.connect(self._on_diff_current_hunk_changed)
        self.diff_label = QLabel()
        self.diff_label.setObjectName("historyDiffLabel")
        self.diff_label.setTextFormat(Qt.TextFormat.PlainText)
        self.diff_label.setWordWrap(True)

        self.previous_action, self.next_action = self.diff.step_actions(self, _WITHIN_DOCK)
        self.revert_action = self._action(self.revert_hunk, "Alt+R")
        # Not Alt+V: the menu bar's View takes it.
        self.restore_action = self._action(self.restore_version, "Alt+T")
        # Esc closes it from anywhere in it, as the Changes window's Esc closes that one;
        # an open list of the compare box takes its own Esc first.
        self.close_action = self._action(self.close_panel, "Esc")
        self.previous_button = action_buttons.action_button(self.previous_action, "historyPrevious")
        self.next_button = action_buttons.action_button(self.next_action, "historyNext")
        self.revert_button = action_buttons.action_button(self.revert_action, "historyRevertHunk")
        self.restore_button = action_buttons.action_button(self.restore_action, "historyRestore")

        compare_row = QHBoxLayout()
        compare_row.addWidget(self.compare_label)
        compare_row.addWidget(self.compare_box, 1)
        nav_row = QHBoxLayout()
        nav_row.addWidget(self.previous_button)
        nav_row.addWidget(self.next_button)
        nav_row.addStretch(1)
        action_row = QHBoxLayout()
        action_row.addWidget(self.revert_button)
        action_row.addWidget(self.restore_button)
        action_row.addStretch(1)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addLayout(compare_row)
        lower_layout.addWidget(self.diff_label)
        lower_layout.addWidget(self.diff, 1)
        lower_layout.addLayout(nav_row)
        lower_layout.addLayout(action_row)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("historySplitter")
        split.addWidget(self.timeline)
        split.addWidget(lower)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.addWidget(self.title_label)
        layout.addWidget(split, 1)
        self.setWidget(body)
        self.setMinimumWidth(340)
        restorer.restored.connect(self._on_restorer_restored)
        self.retranslate()
        self._update_actions()

    def _action(self, slot: Callable[[], object], key: str) -> QAction:
        return action_buttons.shortcut_action(self, slot, key, _WITHIN_DOCK)

    def close_panel(self) -> None:
        self.hide()
        self.closed.emit()

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("History"))
        self.timeline.setHeaderLabels(
            [self.tr("Time"), self.tr("Source"), self.tr("Size"), self.tr("Content")]
        )
        self.compare_label.setText(self.tr("&Compare:"))
        self.compare_box.setItemText(0, self.tr("with the version before it"))
        self.compare_box.setItemText(1, self.tr("with the note now"))
        action_buttons.set_texts(
            [
                *self.diff.step_texts(self.previous_action, self.next_action),
                (
                    self.revert_action,
                    self.tr("Revert this change"),
                    self.tr(
                        "Make the note's lines of this change as on the older side (Alt+R); saved as a new version"
                    ),
                ),
                (
                    self.restore_action,
                    self.tr("Restore this version"),
                    self.tr("Make the whole note this version again (Alt+T); saved as a new version"),
                ),
            ]
        )
        self._show_title()
        self._fill_timeline()

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    # what it shows -------------------------------------------------------------------
    @property
    def note(self) -> str:
        return self._note

    @property
    def versions(self) -> tuple[history_mod.Version, ...]:
        return self._versions

    @property
    def comparison(self) -> history_data.Comparison | None:
        return self._comparison

    def show_note(self, note: str) -> None:
        """Load ``note``'s timeline (a job) and show the newest version's change."""
        if note != self._note:
            self._versions = ()
            self._comparison = None
            self.timeline.clear()
            self.diff.show_message("")
        self._note = note
        self._show_title()
        root = self._root()
        self._loader.load(
            "timeline", lambda: history_data.load_timeline(root, note), self._on_timeline_loaded
        )

    def clear(self) -> None:
        """Show no note (another workspace was opened)."""
        self._note = ""
        self._versions = ()
        self._comparison = None
        self._selected = None
        self.timeline.clear()
        self.diff.show_message("")
        self.diff_label.setText("")
        self._show_title()
        self._update_actions()

    def reload(self) -> None:
        if self._note:
            self.show_note(self._note)

    def _show_title(self) -> None:
        if not self._note:
            self.title_label.setText(self.tr("Choose a note to see its versions"))
        else:
            self.title_label.setText(self.tr("History of {0}").format(self._note))
        self.title_label.setToolTip(self.title_label.text())

    def _on_timeline_loaded(self, outcome: jobs.JobOutcome[Any]) -> None:
        if outcome.error is not None:
            self.diff.show_message(
                self.tr("History cannot be read: {0}").format(qt_messages.text(outcome.error))
            )
            return
        timeline = outcome.value
        assert isinstance(timeline, history_data.Timeline)
        if timeline.note != self._note:
            return
        keep = self._selected.id if self._selected is not None else None
        self._versions = timeline.versions
        self._fill_timeline(select=keep)
        self.seen.emit(timeline.note)
        self.loaded.emit(timeline.note)

    def _fill_timeline(self, select: str | None = None) -> None:
        if not hasattr(self, "timeline"):
            return
        self.timeline.blockSignals(True)
        self.timeline.clear()
        chosen: QTreeWidgetItem | None = None
        for version in self._versions:
            source = text_mod.source_label(version.source)
            if version.source == "git":
                source += f" {version.id.removeprefix('git:')[:8]}"
            item = QTreeWidgetItem(
                [
                    text_mod.time_label(version.at, short=True),
                    source,
                    text_mod.size_label(version.size),
                    text_mod.content_label(version) or text_mod.lines_label(version),
                ]
            )
            item.setData(0, VersionRole, version)
            item.setToolTip(0, text_mod.version_label(version))
            item.setToolTip(3, text_mod.content_label(version))
            self.timeline.addTopLevelItem(item)
            if version.id == select or (chosen is None and select is None):
                chosen = item
        self.timeline.blockSignals(False)
        if not self._versions and self._note:
            self.diff.show_message(self.tr("No versions of {0} yet").format(self._note))
            self._update_actions()
            return
        if chosen is None and self.timeline.topLevelItemCount():
            chosen = self.timeline.topLevelItem(0)
        if chosen is not None:
            self.timeline.setCurrentItem(chosen)  # selects it: the diff follows

    def select_version(self, row: int, *, also: int | None = None) -> None:
        """Select the timeline's ``row`` (and ``also``: a second one, to compare the two)."""
        self.timeline.clearSelection()
        item = self.timeline.topLevelItem(row)
        if item is not None:
            self.timeline.setCurrentItem(item)
        if also is not None:
            other = self.timeline.topLevelItem(also)
            if other is not None:
                other.setSelected(True)

    def set_compare_to_now(self, on: bool) -> None:
        self.compare_box.setCurrentIndex(1 if on else 0)

    @Slot()
    def _on_timeline_selection_changed(self) -> None:
        self._compare()

    @Slot(int)
    def _on_compare_box_current_index_changed(self, _index: int) -> None:
        self._compare()

    def _compare(self) -> None:
        items = self.timeline.selectedItems()
        chosen = [item.data(0, VersionRole) for item in items]
        current = self.timeline.currentItem()
        self._selected = (
            current.data(0, VersionRole) if current is not None and current.isSelected() else None
        )
        if self._selected is None and chosen:
            self._selected = chosen[0]
        self._comparison = None
        self._update_actions()
        if not chosen or not self._note:
            return
        root, note = self._root(), self._note
        if len(chosen) >= 2:
            ordered = sorted(chosen, key=lambda v: v.at)
            old, new = ordered[0], ordered[-1]
            self.diff_label.setText(
                self.tr("{0} → {1}").format(text_mod.time_label(old.at), text_mod.time_label(new.at))
            )
            fn = lambda: history_data.compare(root, note, old, new)  # noqa: E731
        elif self.compare_box.currentIndex() == 1:
            version = chosen[0]
            self.diff_label.setText(self.tr("{0} → the note now").format(text_mod.time_label(version.at)))
            fn = lambda: history_data.compare(root, note, version, None)  # noqa: E731
        else:
            version = chosen[0]
            self.diff_label.setText(
                self.tr("The version before it → {0}").format(text_mod.time_label(version.at))
            )
            fn = lambda: history_data.compare(root, note, None, version, old_is_previous=True)  # noqa: E731
        self._loader.load("compare", fn, self._on_compared)

    def _on_compared(self, outcome: jobs.JobOutcome[Any]) -> None:
        if outcome.error is not None:
            self.diff.show_message(qt_messages.text(outcome.error))
            return
        comparison = outcome.value
        assert isinstance(comparison, history_data.Comparison)
        self._comparison = comparison
        if not comparison.ok:
            problem = comparison.old.problem or comparison.new.problem
            self.diff.show_message(self.tr("No diff: {0}").format(qt_messages.text(problem)))
        else:
            self.diff.show_diff(
                comparison.old.text or "",
                comparison.new.text or "",
                comparison.hunks,
                empty=self.tr("No differences"),
            )
        self._update_actions()
        self.compared.emit()

    @Slot(int)
    def _on_diff_current_hunk_changed(self, _index: int) -> None:
        self._update_actions()

    def _update_actions(self) -> None:
        comparison = self._comparison
        has_hunk = comparison is not None and comparison.ok and self.diff.current_hunk >= 0
        self.revert_action.setEnabled(has_hunk)
        many = comparison is not None and len(comparison.hunks) > 1
        self.previous_action.setEnabled(many)
        self.next_action.setEnabled(many)
        restorable = self._selected is not None and self._selected.digest is not None
        self.restore_action.setEnabled(restorable and comparison is not None)

    # restoring -----------------------------------------------------------------------
    def revert_hunk(self) -> bool:
        """Take the hunk under the diff's cursor back to its older side, in the note now."""
        comparison, index = self._comparison, self.diff.current_hunk
        if comparison is None or not comparison.ok or not 0 <= index < len(comparison.hunks):
            return False
        hunk, note = comparison.hunks[index], self._note
        self._restorer.restore(
            note,
            lambda now: history_data.undo_hunk(comparison, hunk, now, note),
            self.tr("Reverting a change in {0}…").format(note),
        )
        return True

    def restore_version(self) -> bool:
        """Make the whole note the selected version again (a new version)."""
        version, comparison = self._selected, self._comparison
        if version is None or comparison is None:
            return False
        side = comparison.new if comparison.new.version == version else comparison.old
        if side.version != version or side.text is None:
            ui_errors.show_error(self, errors.MemdeskError(self.tr("This version's content is not kept")))
            return False
        text, note = side.text, self._note
        self._restorer.restore(note, lambda _now: text, self.tr("Restoring {0}…").format(note))
        return True

    @Slot(str)
    def _on_restorer_restored(self, note: str) -> None:
        if note == self._note and self.isVisible():
            self._selected = None
            self.reload()
