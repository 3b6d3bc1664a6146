"""The main window: workspace tree | search + editor | tuning, over one ``Session``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal, Slot
from PySide6.QtGui import (
    QCloseEvent,
    QKeyEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QInputDialog,
    QLineEdit,
    QMainWindow,
    QWidget,
)

from memdesk.core import errors
from memdesk.core.embed.loader import parse_model_spec
from memdesk.core.index import notes, notetext
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import settings as settings_mod
from memdesk.qt import golden as golden_mod
from memdesk.qt import messages as qt_messages
from memdesk.qt import note_ops as note_ops_mod
from memdesk.qt import preferences as prefs_mod
from memdesk.qt import session as session_mod
from memdesk.qt import workers
from memdesk.ui import agent_dock as agent_dock_mod
from memdesk.ui import asof_banner as asof_banner_mod
from memdesk.ui import editor as editor_mod
from memdesk.ui import empty_state as empty_mod
from memdesk.ui import errors as ui_errors
from memdesk.ui import first_paint as first_paint_mod
from memdesk.ui import help as help_mod
from memdesk.ui import history_ui as history_ui_mod
from memdesk.ui import menus as menus_mod
from memdesk.ui import model_banner as model_banner_mod
from memdesk.ui import note_actions as note_actions_mod
from memdesk.ui import panes as panes_mod
from memdesk.ui import quality_panel as quality_mod
from memdesk.ui import quick_open as quick_open_mod
from memdesk.ui import results_view as results_view_mod
from memdesk.ui import retranslate as retranslate_mod
from memdesk.ui import search_filters, theme
from memdesk.ui import search_panel as search_mod
from memdesk.ui import skipped as skipped_mod
from memdesk.ui import status_bar as status_bar_mod
from memdesk.ui import tuned_settings as tuned_mod
from memdesk.ui import unsaved as unsaved_mod
from memdesk.ui import window_fit as window_fit_mod
from memdesk.ui import window_help as window_help_mod
from memdesk.ui import workspace_tree as tree_mod

SessionFactory = Callable[[Path], session_mod.Session]


class MainWindow(QMainWindow):
    """memdesk's window. Owns no threads itself: the ``Session`` does.

    Signals:
        session_replaced(object): another workspace was opened (the new ``Session``).
    """

    session_replaced = Signal(object)

    def __init__(
        self,
        session: session_mod.Session,
        prefs: prefs_mod.Preferences,
        *,
        open_session: SessionFactory | None = None,
        build_default_model: Callable[[Callable[[object], None]], Path] | None = None,
        offer_model_build: bool = False,
        log_file: Path | None = None,
    ) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.session = session
        self.prefs = prefs
        self._open_session = open_session
        self._build_default_model = build_default_model
        self._log_file = log_file
        self._closing_confirmed = False
        # Background work of a held session waits for the first frame (see
        # Session.release_background); a session attached later starts at once.
        self._first_frame_painted = False
        first_paint_mod.FirstPaint(self, self._on_first_frame_painted)

        self.tree = tree_mod.WorkspaceTree()
        self.tree_filter = QLineEdit()
        self.tree_filter.setObjectName("treeFilter")
        self.tree_filter.setPlaceholderText(self.tr("Filter notes"))
        self.tree_filter.setClearButtonEnabled(True)
        self.empty_state = empty_mod.EmptyWorkspace()
        self.search_panel = search_mod.SearchPanel()
        # Every write to a note (the editor's saves, create, rename, trash, restore) goes
        # through this one queue, off the GUI thread and in the order asked.
        self.note_ops = note_ops_mod.NoteOps(self)
        self.note_editor = editor_mod.NoteEditor(session.workspace, ops=self.note_ops)
        self.note_actions = note_actions_mod.NoteActions(
            self, self.note_editor, self.note_ops, lambda: self.session, log_file=log_file
        )
        # Search settings belong to the workspace (see tuned_settings).
        self.tuned_settings = tuned_mod.TunedSettings(session.workspace, self)
        self.tuning = self.tuned_settings.make_panel(session.settings)
        self.quality = quality_mod.QualityPanel()
        self.agent_dock = agent_dock_mod.AgentDock(self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.agent_dock)
        self.lab: golden_mod.TuningLab | None = None
        self.results_view = results_view_mod.ResultsView(
            self.search_panel, self.note_editor, self.agent_dock, lambda: self.lab, self
        )

        # Convenience handles for tests and automation (stable objectNames).
        self.search_input = self.search_panel.search_input
        self.results_table = self.search_panel.table
        self.editor = self.note_editor.text_edit

        self.model_banner = model_banner_mod.ModelBanner()
        self.model_banner.setVisible(offer_model_build and build_default_model is not None)
        self.banner_label = self.model_banner.label
        self.build_model_button = self.model_banner.build_button

        self.panes = panes_mod.Panes(
            banner=self.model_banner,
            tree_filter=self.tree_filter,
            tree=self.tree,
            empty_state=self.empty_state,
            search_panel=self.search_panel,
            note_editor=self.note_editor,
            right_widgets=[self.tuning, self.quality],
        )
        self.setCentralWidget(self.panes)
        self.fit = window_fit_mod.WindowFit(self, self.panes)
        # The panes by the names tests and automation use.
        self.splitter = self.panes.splitter
        self.center_splitter = self.panes.center_splitter
        self.note_splitter = self.panes.note_splitter
        self.left = self.panes.left
        self._tree_page = self.panes.tree_page
        self._right_pane = self.panes.right_pane
        # Tab still goes from the results to their explanation, now laid out after the note.
        QWidget.setTabOrder(self.search_panel.table, self.search_panel.detail)

        self._make_status_bar()
        # The History panel, the Changes view and the tree's badge (issue 23).
        self.history_ui = history_ui_mod.HistoryUi(self)
        self.as_of = asof_banner_mod.AsOfView(self)  # Search > Search as of a day…
        self.menus = menus_mod.WindowMenus(self)
        # The actions and menus by the names the window, tests and automation use.
        self.undo_delete_action = self.menus.undo_delete_action
        self.recent_menu = self.menus.recent_menu
        self.theme_actions = self.menus.theme_actions
        for name in (
            "open_action",
            "quick_open_action",
            "today_action",
            "save_action",
            "trash_action",
            "find_action",
            "zoom_in_action",
            "zoom_out_action",
            "language_menu",
            "theme_menu",
            "focus_search_action",
            "history_action",
            "changes_action",
            "ranking_action",
            "agent_menu",
            "shortcuts_action",
            "open_log_action",
            "about_action",
        ):
            setattr(self, name, getattr(self.menus, name))
        self.search_panel.set_scope(session.scope)
        self.search_clock = search_filters.SearchBarClock(
            self.search_panel.clock_button, self.search_panel.filter_button, prefs, self
        )
        self._wire_static()
        self._attach(session)
        self.tuned_settings.show()
        if prefs.has_global_search_settings() and not self.tuned_settings.tuning.profiles:
            # Said once per start, not silently dropped: the old values were shared by all workspaces.
            self.statusBar().showMessage(
                self.tr(
                    "Search settings now belong to each workspace: the ones memdesk kept for all "
                    "workspaces are not applied here"
                ),
                15_000,
            )
        self._restore_view()
        # Typing right after launch searches: without this the first widget in tab order,
        # the tree's filter box, took the keys and emptied the tree.
        self.search_input.setFocus(Qt.FocusReason.OtherFocusReason)

    # construction --------------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # Qt override
        if obj is self.tree_filter and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress:
            if event.key() == Qt.Key.Key_Down:
                self.tree.setFocus(Qt.FocusReason.OtherFocusReason)
                shown = self.tree.tree_model.shown_files
                if shown:
                    self.tree.select_note(shown[0])
                return True
            if event.key() == Qt.Key.Key_Escape:
                self.tree_filter.clear()
                self.tree.setFocus(Qt.FocusReason.OtherFocusReason)
                return True
        return super().eventFilter(obj, event)

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "model_banner"):
            self.model_banner.restyle()

    def _make_status_bar(self) -> None:
        self.status = status_bar_mod.StatusBar(self)
        self.setStatusBar(self.status)
        # The status line's parts, by the names tests and automation use.
        for name in (
            "mode_label",
            "model_label",
            "counts_label",
            "skipped_button",
            "freshness_label",
            "progress",
            "undo_button",
            "cancel_button",
        ):
            setattr(self, name, getattr(self.status, name))

    @property
    def skipped_dialog(self) -> skipped_mod.SkippedDialog | None:
        return self.status.skipped_dialog

    def show_skipped(self) -> skipped_mod.SkippedDialog:
        """The list of skipped paths with their reasons (kept up to date while open)."""
        return self.status.show_skipped()

    def show_mode(self, mode: str, reason: str | None) -> None:
        self.status.show_mode(mode, reason)

    def _on_language_chosen(self, code: str) -> None:
        self.set_language(code)

    def set_language(self, code: str) -> None:
        """Show the interface in ``code`` ("system", "en", "zh_CN") now, and from now on."""
        self.prefs.set_language(code)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            retranslate_mod.switch_language(app, code)
        # What is composed from live state says it again in the new language: the status
        # line, the results' summary line and the selected hit's explanation.
        self.status.show_index_mode()
        self.tuned_settings.show()
        self.session.request_snapshot()
        results = self.session.results
        if results is not None and results.query == self.search_input.text():
            self._on_session_results_changed(results)
        self.search_panel.refresh_detail()
        # After the widgets' own LanguageChange events (posted), which resize labels.
        QTimer.singleShot(0, self.panes.fit_right_pane)

    def set_theme(self, code: str) -> None:
        """Light, dark or the system's colours, now and at the next start."""
        app = QApplication.instance()
        if isinstance(app, QApplication):
            code = theme.apply_theme(app, code)
        self.prefs.set_theme(code)
        self.theme_actions[code].setChecked(True)

    def _wire_static(self) -> None:
        self.tree_filter.textChanged.connect(self.tree.set_filter)
        self.tree_filter.installEventFilter(self)
        self.empty_state.create_memory_requested.connect(self._on_empty_create_memory)
        self.empty_state.create_today_requested.connect(self.open_today_note)
        self.empty_state.open_folder_requested.connect(self._on_open_action)
        self.status.undo_requested.connect(self.undo_delete)
        self.status.cancel_requested.connect(self._on_status_cancel_requested)
        self.note_ops.busy_changed.connect(self.status.show_write)
        self.model_banner.build_requested.connect(self.start_model_build)
        self.note_editor.text_edit.zoom_changed.connect(lambda size: self.prefs.set_zoom("editor", size))
        self.search_panel.zoom_changed.connect(lambda size: self.prefs.set_zoom("results", size))
        self.tree.note_activated.connect(self._on_tree_note_activated)
        self.tree.new_note_requested.connect(self._on_tree_new_note)
        self.tree.rename_requested.connect(self._on_tree_rename_requested)
        self.tree.delete_requested.connect(self._on_tree_delete_requested)
        self.note_actions.trashed_changed.connect(self._on_note_actions_trashed_changed)
        self.note_actions.message.connect(self.statusBar().showMessage)
        self.search_panel.query_changed.connect(self._on_search_panel_query_changed)
        self.search_panel.scope_changed.connect(self._on_search_panel_scope_changed)
        self.search_panel.hit_activated.connect(self._on_search_panel_hit_activated)
        self.search_panel.search_requested.connect(self._on_search_panel_search_requested)
        self.search_panel.relevance_toggled.connect(self._on_search_panel_relevance_toggled)
        self.tuning.settings_changed.connect(self._on_tuning_settings_changed)
        self.tuned_settings.message.connect(self.statusBar().showMessage)
        self.tuning.apply_requested.connect(self.agent_dock.apply_to_openclaw)
        self.agent_dock.open_workspace_requested.connect(self.open_workspace)
        self.agent_dock.visibilityChanged.connect(self._on_agent_dock_visibility_changed)
        self.agent_dock.open_note_requested.connect(self._on_agent_dock_open_note_requested)
        self.agent_dock.message.connect(lambda text: self.status.showMessage(text, 10_000))
        self.quality.apply_requested.connect(self._on_quality_apply_requested)
        self.note_editor.saved.connect(self._on_editor_saved)
        self.note_editor.merged.connect(self._on_editor_merged)
        self.note_editor.save_refused.connect(lambda text: self.statusBar().showMessage(text, 15000))
        self.note_editor.conflicts_changed.connect(self._on_editor_conflicts_changed)
        self.note_editor.current_changed.connect(self._on_editor_current_changed)

    def _attach(self, session: session_mod.Session) -> None:
        self.session = session
        if self._first_frame_painted:
            session.release_background()
        self.agent_dock.set_workspace(session.workspace)
        session.results_changed.connect(self._on_session_results_changed)
        session.search_failed.connect(self._on_session_search_failed)
        self.status.attach(session)
        session.model_loading_changed.connect(self._on_session_model_loading_changed)
        session.sync_failed.connect(self._on_session_sync_failed)
        session.snapshot_changed.connect(self._on_session_snapshot_changed)
        session.files_changed.connect(self.note_editor.on_files_changed)
        session.model_build_progress.connect(self.model_banner.show_build_progress)
        session.model_build_finished.connect(self._on_session_model_build_finished)
        session.model_build_failed.connect(self._on_session_model_build_failed)
        self.setWindowTitle(f"memdesk — {session.workspace}")
        self.history_ui.attach(session)
        self._attach_lab(session)
        self.search_clock.attach(session)
        session.request_snapshot()

    def _attach_lab(self, session: session_mod.Session) -> None:
        """A tuning lab (golden labels, pools, auto-tune) for ``session``'s workspace."""
        lab = golden_mod.TuningLab(session, self.tuning.settings, self)
        lab.golden_changed.connect(self._on_lab_golden_changed)
        lab.failed.connect(self._on_lab_failed)
        self.lab = lab
        self.quality.set_lab(lab)
        self.results_view.shown_query = ""

    def _restore_view(self) -> None:
        """Saved geometry and zoom; a first window fits the screen's available area."""
        self.fit.restore(self.prefs)
        if self.prefs.ranking_hidden():
            self.panes.set_ranking_shown(False, by_user=True)
        for key, widget in (("editor", self.note_editor.text_edit), ("results", self.search_panel)):
            size = self.prefs.zoom(key)
            if size is not None:
                widget.set_point_size(size)

    def set_window_size(self, width: int, height: int) -> None:
        """A fixed size (screenshots): no fitting to the screen, panes shared anew."""
        self.fit.set_size(width, height)

    @Slot(bool)
    def _on_agent_dock_visibility_changed(self, visible: bool) -> None:
        self.fit.dock_shown(self.agent_dock, visible)  # the tree folds away beside the dock

    @Slot()
    def _on_first_frame_painted(self) -> None:
        self._first_frame_painted = True
        self.session.release_background()

    def showEvent(self, event: QShowEvent) -> None:  # Qt override
        super().showEvent(event)
        self.fit.shown()

    def fit_to_screen(self) -> None:
        """Keep the whole window, frame and title bar included, on the available screen."""
        self.fit.fit_to_screen()

    # public actions ------------------------------------------------------------------
    def quick_open(self) -> quick_open_mod.QuickOpen:
        """Ctrl+P: pick a note by typing part of its name."""
        dialog = quick_open_mod.QuickOpen(self.tree.tree_model.files, self)
        dialog.note_chosen.connect(self._on_quick_open_note_chosen)
        dialog.finished.connect(dialog.deleteLater)
        self._quick_open = dialog
        dialog.open()
        return dialog

    @Slot(str)
    def _on_quick_open_note_chosen(self, rel: str) -> None:
        if self.open_note(rel):
            self.tree.select_note(rel)
            self.editor.setFocus(Qt.FocusReason.OtherFocusReason)  # ready to read or type

    def zoom(self, steps: int) -> None:
        """Ctrl+= / Ctrl+-: the editor and the results grow or shrink together."""
        self.note_editor.text_edit.zoom(steps)
        self.search_panel.zoom(steps)

    def reset_zoom(self) -> None:
        base = QApplication.font().pointSizeF()
        self.note_editor.text_edit.set_point_size(max(base, 10.0))
        self.search_panel.set_point_size(base)

    def focus_tree_filter(self) -> None:
        self.tree_filter.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.tree_filter.selectAll()

    def set_ranking_panel(self, shown: bool) -> None:
        """View > Ranking panel: show or hide the Ranking column, remembered."""
        self.panes.set_ranking_shown(shown, by_user=True)
        self.prefs.set_ranking_hidden(not shown)

    def _toggle_preview(self) -> None:
        tabs = self.note_editor.tabs
        tabs.setCurrentIndex(1 - tabs.currentIndex())

    def _edit_focused(self, name: str) -> None:
        widget = QApplication.focusWidget()
        method = getattr(widget, name, None)
        if callable(method):
            method()
        elif name == "undo" and self.note_actions.trashed is not None:
            self.undo_delete()

    def show_shortcuts(self) -> help_mod.ShortcutsDialog:
        return window_help_mod.show_shortcuts(self)

    def about_text(self) -> str:
        return window_help_mod.about_text(self.session, self._log_file)

    def show_about(self) -> help_mod.AboutDialog:
        return window_help_mod.show_about(self.about_text(), self)

    def open_log(self) -> bool:
        """Open the log file in the desktop's viewer (it is created if missing)."""
        return window_help_mod.open_log(self._log_file)

    def focus_search(self) -> None:
        self.search_input.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_input.selectAll()

    def open_note(
        self, rel: str, *, lines: tuple[int, int] | None = None, matched: tuple[int, ...] = ()
    ) -> bool:
        return self.note_editor.open_note(rel, lines=lines, matched=matched)

    def open_today_note(self) -> None:
        """Ctrl+N: open ``memory/YYYY-MM-DD.md``, creating it if it does not exist yet."""
        self.note_actions.open_today()

    # Each waits for its write, the event loop running meanwhile (see note_actions).
    def create_note(self, rel: str, text: str) -> bool:
        return self.note_actions.create_note(rel, text)

    def rename_note(self, old: str, new: str) -> bool:
        return self.note_actions.rename_note(old, new)

    def delete_note(self, rel: str) -> bool:
        """Move ``rel`` to the system trash; Undo (status bar, Edit menu) brings it back."""
        return self.note_actions.delete_note(rel)

    def undo_delete(self) -> bool:
        """Move the note last sent to the trash back from the trash, where it was."""
        return self.note_actions.undo_delete()

    @Slot(str)
    def _on_note_actions_trashed_changed(self, rel: str) -> None:
        self.status.offer_undo(bool(rel))
        self.undo_delete_action.setEnabled(bool(rel))
        if rel:
            self.undo_delete_action.setText(self.tr("Undo move to trash of {0}").format(rel))
        else:
            self.undo_delete_action.setText(self.tr("Undo move to trash"))

    @Slot()
    def _on_trash_action(self) -> None:
        rel = self.tree.current_note() or self.note_editor.current_rel
        if rel:
            self._on_tree_delete_requested(rel)

    @Slot()
    def _on_empty_create_memory(self) -> None:
        self.note_ops.wait(self.note_actions.start_create("MEMORY.md", "# Memory\n\n", then_open=True))

    def start_model_build(self) -> None:
        if self._build_default_model is None or self.session.is_building_model:
            return
        self.model_banner.show_building()
        self.session.build_model(self._build_default_model)

    def confirm_unsaved(self, names: list[str]) -> str:
        """Ask what to do with the unsaved ``names``: "save", "discard" or "cancel"."""
        return unsaved_mod.ask(self.unsaved_box(names))

    def unsaved_box(self, names: list[str]) -> unsaved_mod.UnsavedBox:
        """The quit/switch question naming every unsaved note (Save all is the default)."""
        return unsaved_mod.unsaved_box(names, self)

    def open_workspace(self, path: Path) -> None:
        if self._open_session is None:
            return
        if not self._settle_unsaved():
            return
        try:
            session = self._open_session(path)
        except errors.MemdeskError as exc:
            ui_errors.show_error(self, exc)
            return
        self.tuned_settings.flush()  # the old workspace's last slider move
        old = self.session
        old_lab = self.lab
        if old_lab is not None:
            old_lab.close()
        old.close()
        old.deleteLater()
        if old_lab is not None:
            old_lab.setParent(None)  # freed with its last reference, after the reader stopped
        self.note_editor.reset(session.workspace)
        self.search_panel.model.set_hits(())
        self.tuned_settings.use(session)
        self._attach(session)
        self.prefs.remember_workspace(session.workspace)
        session.request_sync()
        if self.search_input.text().strip():
            session.set_query(self.search_input.text(), immediate=True)
        self.session_replaced.emit(session)

    # slots: tree ---------------------------------------------------------------------
    @Slot(str)
    def _on_tree_note_activated(self, rel: str) -> None:
        self.open_note(rel)

    @Slot(str)
    def _on_tree_new_note(self, folder: str) -> None:
        name, ok = QInputDialog.getText(
            self, self.tr("New topic note"), self.tr("Name of the note in {0}/:").format(folder)
        )
        if ok and notes.safe_name(name):
            self.note_actions.new_titled(folder, name)  # named as its neighbours

    @Slot(str)
    def _on_tree_rename_requested(self, rel: str) -> None:
        self.note_actions.ask_rename(rel)

    @Slot(str)
    def _on_tree_delete_requested(self, rel: str) -> None:
        self.note_actions.ask_delete(rel)  # asks first only when it has unsaved edits

    # slots: search and tuning --------------------------------------------------------
    @Slot(str)
    def _on_search_panel_query_changed(self, text: str) -> None:
        self.session.set_query(text)

    @Slot(str)
    def _on_search_panel_search_requested(self, text: str) -> None:
        self.session.set_query(text, immediate=True)

    @Slot(str)
    def _on_search_panel_scope_changed(self, scope: str) -> None:
        self.session.set_scope("shared" if scope == "shared" else "all")
        self.prefs.set_scope(scope)

    @Slot(object)
    def _on_search_panel_hit_activated(self, hit: hits_mod.Hit) -> None:
        if self.as_of.open_hit(hit):
            return  # a hit of a past day whose note differs now
        lines, matched = self.results_view.hit_lines(hit)
        self.open_note(hit.path, lines=lines, matched=matched)
        self.tree.select_note(hit.path)

    @Slot(object)
    def _on_tuning_settings_changed(self, settings: settings_mod.SearchSettings) -> None:
        self.session.set_settings(settings)
        self.status.show_index_mode()  # another profile may search keyword-only for now
        self.tuned_settings.record(settings)
        if self.lab is not None:
            self.lab.set_settings(settings)

    @Slot(object, bool)
    def _on_search_panel_relevance_toggled(self, hit: hits_mod.Hit, on: bool) -> None:
        self.results_view.set_relevant(hit, on)

    @Slot(object)
    def _on_quality_apply_requested(self, settings: settings_mod.SearchSettings) -> None:
        self.tuned_settings.expect_applied(self.quality.applied_queries or None)
        self.tuning.set_settings(settings)  # emits settings_changed
        self.statusBar().showMessage(self.tr("Applied the auto-tuned settings"), 5000)

    @Slot()
    def _on_lab_golden_changed(self) -> None:
        self.results_view.golden_changed()

    @Slot(object)
    def _on_lab_failed(self, exc: BaseException) -> None:
        self.statusBar().showMessage(qt_messages.text(exc), 10_000)

    # slots: editor -------------------------------------------------------------------
    @Slot(str, int)
    def _on_editor_merged(self, rel: str, conflicts: int) -> None:
        if conflicts:
            text = self.tr(
                "{0}: {1} overlapping change(s) marked <<<<<<< … >>>>>>>; resolve, then save"
            ).format(rel, conflicts)
        else:
            text = self.tr("{0}: changes made on disk were merged with yours").format(rel)
        self.statusBar().showMessage(text, 15000)

    @Slot(int)
    def _on_editor_conflicts_changed(self, count: int) -> None:
        # "…marked <<<<<<< … >>>>>>>; resolve, then save" is stale once none is left.
        if count == 0 and notetext.MINE_MARKER[:7] in self.statusBar().currentMessage():
            self.statusBar().clearMessage()

    @Slot(str)
    def _on_editor_saved(self, rel: str) -> None:
        self.session.request_sync([rel])  # saves are indexed at once, not after the debounce

    @Slot(str)
    def _on_editor_current_changed(self, rel: str) -> None:
        if rel:
            self.tree.select_note(rel)

    @Slot(str, int, int)
    def _on_agent_dock_open_note_requested(self, rel: str, start: int, end: int) -> None:
        self.open_note(rel, lines=(start, end))
        self.tree.select_note(rel)

    # slots: session ------------------------------------------------------------------
    @Slot(object)
    def _on_session_results_changed(self, results: session_mod.Results) -> None:
        self.results_view.show(results)

    @Slot(object)
    def _on_session_search_failed(self, exc: BaseException) -> None:
        self.search_panel.summary.setText(self.tr("Search failed: {0}").format(qt_messages.text(exc)))
        if not isinstance(exc, errors.MemdeskError):
            ui_errors.show_error(self, exc, log_file=self._log_file)

    @Slot(bool)
    def _on_session_model_loading_changed(self, loading: bool) -> None:
        if not loading and not self.session.is_syncing:
            self.session.request_snapshot()  # the status line says the index's mode again

    @Slot(object)
    def _on_session_sync_failed(self, exc: BaseException) -> None:
        if self.sender() not in (None, self.session):
            return  # the workspace left: its sync was cancelled by the switch
        if isinstance(exc, errors.Cancelled):
            self.status.show_sync_cancelled()
        else:
            ui_errors.show_error(self, exc, title=self.tr("Indexing failed"), log_file=self._log_file)

    @Slot(object)
    def _on_session_snapshot_changed(self, snapshot: workers.WorkspaceSnapshot) -> None:
        if snapshot.error is not None:
            return  # the status line says why
        self.tree.set_files(snapshot.files, snapshot.states)
        empty = not snapshot.files
        if empty:
            self.empty_state.set_workspace(self.session.workspace.name or str(self.session.workspace))
        self.left.setCurrentWidget(self.empty_state if empty else self._tree_page)
        status = snapshot.status
        if status is not None and status.mode == "hybrid" and not self.session.is_syncing:
            self.model_banner.setVisible(False)

    @Slot(object)
    def _on_session_model_build_finished(self, path: object) -> None:
        self.model_banner.show_build_finished(path)
        self.prefs.set_model_choice(None)

    @Slot(object)
    def _on_session_model_build_failed(self, exc: BaseException) -> None:
        self.model_banner.show_build_failed()
        ui_errors.show_error(self, exc, title=self.tr("Model build failed"), log_file=self._log_file)

    @Slot()
    def _on_status_cancel_requested(self) -> None:
        self.session.cancel_sync()

    @Slot()
    def _on_open_action(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, self.tr("Open memory workspace"), str(self.session.workspace)
        )
        if folder:
            self.open_workspace(Path(folder))

    @Slot()
    def _on_recent_menu_about_to_show(self) -> None:
        self.recent_menu.clear()
        for path in self.prefs.recent_workspaces():
            if path.is_dir():
                self.recent_menu.addAction(str(path), functools.partial(self.open_workspace, path))
                continue
            # Kept, not dropped: a folder on an unmounted disk or share comes back, and its
            # entry with it; shown disabled so choosing it cannot fail, and says why.
            action = self.recent_menu.addAction(self.tr("{0} (missing)").format(path))
            action.setEnabled(False)
            action.setToolTip(self.tr("This folder does not exist (any more, or not mounted now)"))

    @Slot()
    def _on_choose_model_action(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Choose a GGUF embedding model"),
            "",
            ";;".join((self.tr("GGUF models (*.gguf)"), self.tr("All files (*)"))),
        )
        if path:
            self._switch_model(path)

    def _switch_model(self, model: str) -> None:
        self.prefs.set_model_choice(model)
        self.session.set_model(parse_model_spec(model))

    # quitting ------------------------------------------------------------------------
    def _settle_unsaved(self) -> bool:
        """Before quitting or switching workspaces (see unsaved.settle): True when
        nothing unsaved is left. Asks through ``confirm_unsaved`` (tests replace it)."""
        return unsaved_mod.settle(
            self.note_editor, self.note_ops, lambda names: self.confirm_unsaved(names), self.statusBar()
        )

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt override
        if not self._closing_confirmed and not self._settle_unsaved():
            event.ignore()
            return
        self._closing_confirmed = True
        self.tuned_settings.flush()
        self.prefs.set_geometry("geometry", self.saveGeometry())
        # The columns as the user laid them out, not folded for a dock: a tree folded
        # for the agent dock came back hidden at the next start, with no dock open.
        self.prefs.set_geometry("splitter", self.panes.unfolded_state())
        self.prefs.sync()
        if self.lab is not None:
            self.lab.close()
        self.agent_dock.close_dock()
        self.as_of.close()
        self.session.close()
        event.accept()
