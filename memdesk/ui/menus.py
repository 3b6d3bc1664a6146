"""The window's menu bar: File, Edit, View, Index, Search, Agent and Help, each entry an
action of the window (so its shortcut works window-wide, and Help > Keyboard
shortcuts lists it). The entries call the window's own methods; the menus hold no
state of their own but the actions, which the window reaches by name."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu

from memdesk.qt import translations
from memdesk.ui import code_editor

if TYPE_CHECKING:
    from memdesk.ui.main_window import MainWindow


class WindowMenus(QObject):
    """Builds ``window``'s menu bar; the actions others use are its attributes."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        w = window
        file_menu = w.menuBar().addMenu(self.tr("&File"))
        self.open_action = self._action(
            file_menu, self.tr("&Open workspace…"), w._on_open_action, QKeySequence.StandardKey.Open
        )
        self.recent_menu = file_menu.addMenu(self.tr("Recent workspaces"))
        self.recent_menu.aboutToShow.connect(w._on_recent_menu_about_to_show)
        self.quick_open_action = self._action(
            file_menu, self.tr("Open &note by name…"), w.quick_open, QKeySequence("Ctrl+P")
        )
        file_menu.addSeparator()
        self.today_action = self._action(
            file_menu, self.tr("&Today's note"), w.open_today_note, QKeySequence("Ctrl+N")
        )
        self._action(
            file_menu,
            self.tr("New &topic note…"),
            lambda: w._on_tree_new_note("memory"),
            QKeySequence("Ctrl+Shift+N"),
        )
        self.save_action = self._action(
            file_menu, self.tr("&Save"), w.note_editor.start_save, QKeySequence.StandardKey.Save
        )
        self.trash_action = self._action(file_menu, self.tr("Move note to tras&h"), w._on_trash_action)
        file_menu.addSeparator()
        self._action(file_menu, self.tr("&Quit"), w.close, QKeySequence.StandardKey.Quit)

        edit_menu = w.menuBar().addMenu(self.tr("&Edit"))
        # Text widgets take their own standard keys first (ShortcutOverride); the menu
        # entries act on whichever text widget has focus.
        for text, name, key in (
            (self.tr("&Undo"), "undo", QKeySequence.StandardKey.Undo),
            (self.tr("&Redo"), "redo", QKeySequence.StandardKey.Redo),
            (self.tr("Cu&t"), "cut", QKeySequence.StandardKey.Cut),
            (self.tr("&Copy"), "copy", QKeySequence.StandardKey.Copy),
            (self.tr("&Paste"), "paste", QKeySequence.StandardKey.Paste),
            (self.tr("Select &all"), "selectAll", QKeySequence.StandardKey.SelectAll),
        ):
            self._action(edit_menu, text, functools.partial(w._edit_focused, name), key)
        edit_menu.addSeparator()
        self.undo_delete_action = self._action(edit_menu, self.tr("Undo move to trash"), w.undo_delete)
        self.undo_delete_action.setEnabled(False)
        edit_menu.addSeparator()
        self.find_action = self._action(
            edit_menu, self.tr("&Find in note…"), w.note_editor.open_find, QKeySequence.StandardKey.Find
        )
        self._action(
            edit_menu,
            self.tr("Find &next"),
            w.note_editor.find_bar.find_next,
            QKeySequence.StandardKey.FindNext,
        )
        self._action(
            edit_menu,
            self.tr("Find pre&vious"),
            w.note_editor.find_bar.find_previous,
            QKeySequence.StandardKey.FindPrevious,
        )
        # Resolving what a Merge marked (enabled while the note has conflict hunks);
        # listed here, and so in Help > Keyboard shortcuts, as well as on the bar.
        edit_menu.addSeparator()
        edit_menu.addActions(w.note_editor.conflict_actions)
        w.addActions(w.note_editor.conflict_actions)

        view_menu = w.menuBar().addMenu(self.tr("&View"))
        self.zoom_in_action = self._action(
            view_menu, self.tr("Zoom &in"), lambda: w.zoom(1), QKeySequence("Ctrl+=")
        )
        self.zoom_in_action.setShortcuts(list(code_editor.zoom_keys()))
        self.zoom_out_action = self._action(
            view_menu, self.tr("Zoom &out"), lambda: w.zoom(-1), QKeySequence("Ctrl+-")
        )
        self._action(view_menu, self.tr("&Reset zoom"), w.reset_zoom, QKeySequence("Ctrl+0"))
        view_menu.addSeparator()
        self._action(view_menu, self.tr("&Filter notes"), w.focus_tree_filter, QKeySequence("Ctrl+Shift+F"))
        self._action(view_menu, self.tr("&Preview"), w._toggle_preview, QKeySequence("Ctrl+Shift+P"))
        # A narrow window folds the Ranking column to a thin handle: this finds it again.
        self.ranking_action = self._action(
            view_menu, self.tr("&Ranking panel"), lambda: None, QKeySequence("Ctrl+Shift+R")
        )
        self.ranking_action.setCheckable(True)
        self.ranking_action.setChecked(w.panes.ranking_is_shown)
        self.ranking_action.triggered.connect(w.set_ranking_panel)
        w.panes.ranking_shown.connect(self.ranking_action.setChecked)
        w.panes.ranking_button.clicked.connect(lambda: w.set_ranking_panel(True))
        view_menu.addSeparator()
        # Issue 23: a note's versions, and what changed in memory in a period.
        self.history_action = self._action(
            view_menu,
            self.tr("Note &history"),
            lambda: w.history_ui.toggle_history(),
            QKeySequence("Ctrl+Shift+H"),
        )
        self.changes_action = self._action(
            view_menu, self.tr("&Changes…"), w.history_ui.show_changes, QKeySequence("Ctrl+Shift+C")
        )
        view_menu.addSeparator()
        self.language_menu = view_menu.addMenu(self.tr("&Language"))
        self.language_menu.setObjectName("languageMenu")
        chosen = w.prefs.language()
        group = QActionGroup(self)
        for code, name in translations.LANGUAGES.items():
            action = self.language_menu.addAction(name or self.tr("System default"))
            action.setCheckable(True)
            action.setChecked(code == chosen)
            action.triggered.connect(lambda _checked=False, c=code: w._on_language_chosen(c))
            group.addAction(action)
        self.theme_menu = view_menu.addMenu(self.tr("&Theme"))
        self.theme_menu.setObjectName("themeMenu")
        chosen_theme = w.prefs.theme()
        themes = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for code, name in (
            ("system", self.tr("Follow the system")),
            ("light", self.tr("Light")),
            ("dark", self.tr("Dark")),
        ):
            action = self.theme_menu.addAction(name)
            action.setCheckable(True)
            action.setChecked(code == chosen_theme)
            action.triggered.connect(lambda _checked=False, c=code: w.set_theme(c))
            themes.addAction(action)
            self.theme_actions[code] = action

        index_menu = w.menuBar().addMenu(self.tr("&Index"))
        self._action(index_menu, self.tr("&Sync now"), lambda: w.session.request_sync(), QKeySequence("F5"))
        self._action(index_menu, self.tr("&Rebuild index"), lambda: w.session.request_sync(rebuild=True))
        self._action(index_menu, self.tr("&Cancel indexing"), lambda: w.session.cancel_sync())
        index_menu.addSeparator()
        self._action(index_menu, self.tr("Choose &embedding model (GGUF)…"), w._on_choose_model_action)
        self._action(index_menu, self.tr("Build &default model"), w.start_model_build)
        self._action(index_menu, self.tr("Use &no model (FTS-only)"), lambda: w._switch_model("none"))

        search_menu = w.menuBar().addMenu(self.tr("&Search"))
        self.focus_search_action = self._action(
            search_menu, self.tr("&Find in memory"), w.focus_search, QKeySequence("Ctrl+K")
        )
        self.as_of_action = self._action(
            search_menu, self.tr("Search as of a &day…"), w.as_of.choose_day, QKeySequence("Ctrl+Shift+D")
        )

        self.agent_menu = w.menuBar().addMenu(self.tr("&Agent"))
        w.agent_dock.populate_menu(self.agent_menu, w)
        w.agent_dock.set_tuned_provider(lambda: w.tuning.settings)
        w.agent_dock.set_editor(w.note_editor)

        help_menu = w.menuBar().addMenu(self.tr("&Help"))
        self.shortcuts_action = self._action(
            help_menu,
            self.tr("&Keyboard shortcuts"),
            w.show_shortcuts,
            QKeySequence.StandardKey.HelpContents,
        )
        self.open_log_action = self._action(help_menu, self.tr("Open &log"), w.open_log)
        help_menu.addSeparator()
        self.about_action = self._action(help_menu, self.tr("&About memdesk"), w.show_about)

    def _action(
        self,
        menu: QMenu,
        text: str,
        slot: Callable[[], object],
        shortcut: QKeySequence | QKeySequence.StandardKey | None = None,
    ) -> QAction:
        action = QAction(text, self._window)
        if shortcut is not None:
            action.setShortcut(shortcut)
            # Window-wide, so Ctrl+K works while typing in the editor too.
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        self._window.addAction(action)
        return action
