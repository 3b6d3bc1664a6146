"""The window's side of note history (issue 23): the History panel (a dock), the
Changes view (a window), the tree's badge for notes the agent changed since the
user last looked, and the restores they write. The window makes one and calls
``attach`` for each session; the rest is wired here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Slot

from memdesk.qt import history_data, history_loader, jobs
from memdesk.qt import session as session_mod
from memdesk.ui import changes_view as changes_mod
from memdesk.ui import history_panel as panel_mod
from memdesk.ui import history_restore

if TYPE_CHECKING:
    from memdesk.ui.main_window import MainWindow


class HistoryUi(QObject):
    """History panel, Changes view and badge for ``window``."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        self._loader = history_loader.Loader(self)
        self._session: session_mod.Session | None = None
        self.restorer = history_restore.Restorer(
            window, window.note_editor, window.note_ops, self._root, self._after_write
        )
        self.restorer.message.connect(window.statusBar().showMessage)
        self.panel = panel_mod.HistoryPanel(self._root, self.restorer, window)
        self.panel.setVisible(False)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.panel)
        self.panel.seen.connect(self._on_seen)
        self.panel.closed.connect(self._on_panel_closed)
        self.panel.visibilityChanged.connect(self._on_panel_visibility_changed)
        # Floated out (or docked back): the columns it folded come back (or give way).
        self.panel.topLevelChanged.connect(
            lambda _floating: self._on_panel_visibility_changed(self.panel.isVisible())
        )
        self.changes: changes_mod.ChangesView | None = None
        window.tree.history_requested.connect(self.show_history)
        window.note_editor.current_changed.connect(self._on_editor_current_changed)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if watched is self._window and event.type() == QEvent.Type.Close and self.changes is not None:
            self.changes.close()  # its own window: it goes with the main one
        if (
            watched is self._window
            and event.type() == QEvent.Type.Resize
            and self.panel.isVisible()
            and not self.panel.isFloating()
        ):
            # A narrower window took all its width from the note (the dock kept its
            # own): the panel gives way again, after the window's new layout.
            QTimer.singleShot(0, lambda: self._on_panel_visibility_changed(self.panel.isVisible()))
        return super().eventFilter(watched, event)

    def _root(self) -> Any:
        return self._window.session.workspace

    def attach(self, session: session_mod.Session) -> None:
        """A (new) workspace: the badge is read again after each of its syncs."""
        self._session = session
        session.sync_finished.connect(self._on_session_sync_finished)
        self.panel.clear()  # the old workspace's note is not this one's
        if self.changes is not None and self.changes.isVisible():
            self.changes.reload()
        self.refresh_badge()

    # the badge ------------------------------------------------------------------------
    def refresh_badge(self) -> None:
        root = self._root()
        self._loader.load("unseen", lambda: history_data.unseen_agent_changes(root), self._on_unseen_loaded)

    def _on_unseen_loaded(self, outcome: jobs.JobOutcome[Any]) -> None:
        if outcome.error is None and isinstance(outcome.value, frozenset):
            self._window.tree.set_unseen(outcome.value)

    @Slot(object)
    def _on_session_sync_finished(self, _report: object) -> None:
        if self.sender() is self._window.session:
            self.refresh_badge()
            if self.panel.isVisible() and self.panel.note:
                self.panel.reload()  # a new version may have come with the sync

    @Slot(str)
    def _on_seen(self, note: str) -> None:
        tree = self._window.tree
        if note in tree.tree_model.unseen:
            tree.set_unseen(tree.tree_model.unseen - {note})

    @Slot(str)
    def _on_editor_current_changed(self, rel: str) -> None:
        if not rel:
            return
        if self.panel.isVisible() and rel != self.panel.note:
            self.panel.show_note(rel)  # the panel follows the note shown (and marks it seen)
            return
        self._on_seen(rel)  # opening a note is looking at it
        root = self._root()
        self._loader.load("seen", lambda: history_data.mark_seen(root, rel), lambda _outcome: None)

    # the panel and the view ------------------------------------------------------------
    def show_history(self, rel: str = "") -> panel_mod.HistoryPanel:
        """The History panel for ``rel`` (default: the tree's note, else the editor's)."""
        window = self._window
        rel = rel or window.tree.current_note() or window.note_editor.current_rel
        agent = window.agent_dock
        if agent.isVisible() and not agent.isFloating() and not self.panel.isVisible():
            window.tabifyDockWidget(agent, self.panel)
        self.panel.show()
        self.panel.raise_()
        if not window.isActiveWindow():  # asked from the Changes window: the panel is here
            window.raise_()
            window.activateWindow()
        if rel:
            self.panel.show_note(rel)
        QTimer.singleShot(0, lambda: self.panel.timeline.setFocus(Qt.FocusReason.ShortcutFocusReason))
        return self.panel

    def toggle_history(self) -> None:
        """View > Note history (Ctrl+Shift+H): the panel, or away again when it is
        shown: the keyboard had no way to close it (and the Ranking column it folds)."""
        if self.panel.isVisible():
            self.panel.close()
            self._window.editor.setFocus(Qt.FocusReason.ShortcutFocusReason)
        else:
            self.show_history()

    @Slot()
    def _on_panel_closed(self) -> None:
        # The keys go back to the note (else to whatever widget Qt picks next).
        self._window.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    @Slot(bool)
    def _on_panel_visibility_changed(self, visible: bool) -> None:
        window = self._window
        if visible and not self.panel.isFloating():
            wanted = max(self.panel.minimumSizeHint().width(), panel_mod.DOCK_WIDTH)
            window.resizeDocks([self.panel], [wanted], Qt.Orientation.Horizontal)
        window.fit.history_shown(self.panel, visible)  # the Ranking column gives way, not the tree

    def show_changes(self) -> changes_mod.ChangesView:
        """The Changes window (created once, listed again each time it is shown)."""
        if self.changes is None:
            # A window of its own, not the main window's child: a child stays on top of
            # the window, and hid the History panel and the note it opens there.
            view = changes_mod.ChangesView(self._root, self.restorer, None)
            view.seen.connect(self._on_seen)
            view.open_note_requested.connect(self._open_note)
            view.history_requested.connect(self.show_history)
            self.changes = view
        view = self.changes
        view.show()
        view.raise_()
        view.activateWindow()
        view.reload()
        view.tree.setFocus(Qt.FocusReason.ShortcutFocusReason)
        return view

    @Slot(str)
    def _open_note(self, rel: str) -> None:
        if self._window.open_note(rel):
            self._window.tree.select_note(rel)
            self._window.activateWindow()

    def _after_write(self, note: str) -> None:
        self._window.session.request_sync([note])
        # A clean buffer of the note shows the restored text now (not after the watcher).
        self._window.note_editor.on_files_changed([note])
