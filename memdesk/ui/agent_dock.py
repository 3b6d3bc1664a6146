"""The "Your agent" dock of the main window, its Agent menu and "Apply to OpenClaw…".

The dock is hidden until asked for, and reads the OpenClaw setup only then, so a
window that never looks at the agent never touches ``~/.openclaw``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence, QTextCursor
from PySide6.QtWidgets import QDockWidget, QInputDialog, QMainWindow, QMenu, QWidget

from memdesk.core import errors, paths
from memdesk.core.agent import annotate
from memdesk.core.agent import config as agent_config
from memdesk.qt.agent import AgentController
from memdesk.ui import errors as ui_errors
from memdesk.ui.agent_panel import AgentPanel
from memdesk.ui.apply_dialog import ApplyToOpenClawDialog

TAB_AGENT, TAB_DOCTOR, TAB_SESSIONS = range(3)
DOCK_WIDTH = 360


class AgentDock(QDockWidget):
    """Signals:
    open_workspace_requested(object): the agent's workspace ``Path``.
    open_note_requested(str, int, int): a note of the open workspace and its lines.
    message(str): a one-line status for the window's status bar.
    """

    open_workspace_requested = Signal(object)
    open_note_requested = Signal(str, int, int)
    message = Signal(str)

    def __init__(self, parent: QMainWindow, *, env: dict[str, str] | None = None) -> None:
        super().__init__(self.tr("Your agent"), parent)
        self.setObjectName("agentDock")
        self.controller = AgentController(env=env, models_dir=paths.models_dir(), parent=self)
        self.panel = AgentPanel(self.controller)
        self.setWidget(self.panel)
        self.setVisible(False)
        self._loaded = False
        self._query = ""
        self._workspace: Path | None = None
        self.dialog: ApplyToOpenClawDialog | None = None
        self.mcp_dialog: Any = None
        self._tuned_provider: Any = None
        self._editor: Any = None
        self.panel.open_workspace_requested.connect(self.open_workspace_requested)
        self.panel.open_note_requested.connect(self._on_panel_open_note_requested)
        self.panel.apply_fix_requested.connect(self._on_panel_apply_fix_requested)
        self.visibilityChanged.connect(self._on_visibility_changed)

    # menu ----------------------------------------------------------------------------
    def populate_menu(self, menu: QMenu, window: QWidget) -> None:
        toggle = self.toggleViewAction()
        toggle.setText(self.tr("Your &agent panel"))
        toggle.setShortcut(QKeySequence("Ctrl+Shift+A"))
        toggle.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        menu.addAction(toggle)
        window.addAction(toggle)
        self.doctor_action = self._add(menu, window, self.tr("&Check the agent (doctor)"), self.show_doctor)
        self.sessions_action = self._add(menu, window, self.tr("&Session transcripts"), self.show_sessions)
        menu.addSeparator()
        self.importance_action = self._add(
            menu, window, self.tr("Set &importance on these lines…"), self._on_importance_action
        )
        menu.addSeparator()
        self.apply_action = self._add(menu, window, self.tr("Apply to &OpenClaw…"), self._on_apply_action)
        self.mcp_action = self._add(
            menu, window, self.tr("Use from other agents (&MCP)…"), self.show_mcp_config
        )

    def _add(self, menu: QMenu, window: QWidget, text: str, slot: Any) -> QAction:
        action = QAction(text, window)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        window.addAction(action)
        return action

    def set_editor(self, editor: Any) -> None:
        """The ``NoteEditor`` whose current note "Set importance" edits."""
        self._editor = editor

    def set_tuned_provider(self, provider: Any) -> None:
        """A callable returning the current ``SearchSettings`` (for the Agent menu's Apply)."""
        self._tuned_provider = provider

    # public --------------------------------------------------------------------------
    def set_workspace(self, workspace: Path) -> None:
        self._workspace = workspace
        self.panel.set_workspace(workspace)

    def set_query(self, query: str) -> None:
        if query == self._query:
            return
        self._query = query
        if self._loaded:
            self.panel.set_query(query)

    def show_tab(self, index: int) -> None:
        self.setVisible(True)
        self.raise_()
        self.panel.tabs.setCurrentIndex(index)

    def show_doctor(self) -> None:
        self.show_tab(TAB_DOCTOR)
        if self.controller.setup is None:
            self.controller.setup_loaded.connect(self._run_doctor_once)
        else:
            self.panel.run_doctor()

    def show_sessions(self) -> None:
        self.show_tab(TAB_SESSIONS)

    def apply_to_openclaw(self, tuned: Any, extras: Any = None) -> ApplyToOpenClawDialog | None:
        """Open the Apply dialog for ``tuned`` settings (window-modal, not a nested loop);
        ``tuned`` None and ``extras``: only a doctor finding's config change."""
        setup = self.controller.setup
        try:
            if setup is None:  # reading openclaw.json is quick; no need to wait for the panel
                setup = agent_config.discover(self.controller.env)
        except errors.MemdeskError as exc:
            ui_errors.show_error(self.parentWidget(), exc)
            return None
        agent_id = self.panel.current_agent_id()
        dialog = ApplyToOpenClawDialog(
            setup, tuned, agent_id=agent_id, extras=extras, parent=self.parentWidget()
        )
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.applied.connect(self._on_dialog_applied)
        self.dialog = dialog
        dialog.open()
        return dialog

    @Slot(object)
    def _on_panel_apply_fix_requested(self, extras: object) -> None:
        self.apply_to_openclaw(None, extras)

    def set_importance(self, value: int | None) -> bool:
        """Write ``<!-- importance: value -->`` (None removes it) on the selected lines of the
        open note, as one undoable edit; the note still needs saving, like any edit."""
        editor = self._editor
        rel = editor.current_rel if editor is not None else ""
        if not rel:
            self.message.emit(self.tr("Open a note first"))
            return False
        text_edit = editor.text_edit
        cursor = text_edit.textCursor()
        document = text_edit.document()
        first = document.findBlock(cursor.selectionStart())
        last = document.findBlock(cursor.selectionEnd())
        old = [
            document.findBlockByNumber(n).text() for n in range(first.blockNumber(), last.blockNumber() + 1)
        ]
        new = annotate.set_importance("\n".join(old), 1, len(old), value).split("\n")
        if new == old:
            self.message.emit(self.tr("No entry lines selected (headings and blank lines are skipped)"))
            return False
        edit = QTextCursor(document)
        edit.beginEditBlock()
        edit.setPosition(first.position())
        edit.setPosition(last.position() + len(last.text()), QTextCursor.MoveMode.KeepAnchor)
        edit.insertText("\n".join(new))
        edit.endEditBlock()
        effect = annotate.importance_effect(rel)
        self.message.emit(effect or self.tr("Importance set; save the note for your agent to read it"))
        return True

    def close_dock(self) -> None:
        self.panel.close_panel()

    # slots ---------------------------------------------------------------------------
    @Slot(bool)
    def _on_visibility_changed(self, visible: bool) -> None:
        if visible and not self._loaded:
            self._loaded = True
            window = self.parentWidget()
            if isinstance(window, QMainWindow):  # narrow, so the results keep their columns
                window.resizeDocks([self], [DOCK_WIDTH], Qt.Orientation.Horizontal)
            self.panel.reload()
            if self._query:
                self.panel.set_query(self._query)

    @Slot(object)
    def _run_doctor_once(self, _setup: object) -> None:
        self.controller.setup_loaded.disconnect(self._run_doctor_once)
        self.panel.run_doctor()

    @Slot()
    def _on_importance_action(self) -> None:
        rel = self._editor.current_rel if self._editor is not None else ""
        note = annotate.importance_effect(rel) if rel else None
        label = self.tr("Importance 1–10 for the selected lines (0 removes it):")
        if note:
            label += "\n" + note
        value, ok = QInputDialog.getInt(self.parentWidget(), self.tr("Set importance"), label, 7, 0, 10)
        if ok:
            self.set_importance(value or None)

    @Slot()
    def show_mcp_config(self) -> None:
        """The MCP clients' config snippets for the open workspace."""
        from memdesk.ui.mcp_dialog import McpConfigDialog

        if self._workspace is None:
            return
        self.mcp_dialog = McpConfigDialog(self._workspace, self.window())
        self.mcp_dialog.show()

    def _on_apply_action(self) -> None:
        if self._tuned_provider is not None:
            self.apply_to_openclaw(self._tuned_provider())

    @Slot(object)
    def _on_dialog_applied(self, backup: object) -> None:
        where = self.dialog.plan.config_path if self.dialog and self.dialog.plan else "openclaw.json"
        self.message.emit(
            self.tr("Wrote {path} (backup {backup})").format(path=where, backup=backup or self.tr("none"))
            if backup
            else self.tr("Wrote {path}").format(path=where)
        )
        if self._loaded:
            self.panel.reload()

    @Slot(str, int, int)
    def _on_panel_open_note_requested(self, rel: str, start: int, end: int) -> None:
        overview = self.panel.overview
        if (
            overview is not None
            and self._workspace is not None
            and _same(overview.agent.workspace, self._workspace)
        ):
            self.open_note_requested.emit(rel, start, end)
            return
        self.message.emit(
            self.tr("{rel} is in the agent's workspace; open it with “Open this workspace” first").format(
                rel=rel
            )
        )


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)
