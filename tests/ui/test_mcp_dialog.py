"""The Agent menu's "Use from other agents (MCP)…": each client's snippet, copied as shown."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from memdesk.mcp import config as mcp_config
from memdesk.ui.agent_dock import AgentDock
from memdesk.ui.mcp_dialog import McpConfigDialog


def test_dialog_shows_and_copies_each_clients_snippet(qtbot, example_workspace: Path) -> None:  # type: ignore[no-untyped-def]
    dialog = McpConfigDialog(example_workspace)
    qtbot.addWidget(dialog)
    shown = dialog.snippet.toPlainText()
    assert dialog.where_label.text().startswith("Claude Code: .mcp.json")
    entry = json.loads(shown)["mcpServers"]["memdesk"]  # the copied text is the file's JSON alone
    assert entry["args"][-3:] == ["mcp", "--workspace", str(example_workspace.resolve())]
    assert Path(entry["command"]).is_absolute()

    dialog.client_combo.setCurrentIndex(mcp_config.CLIENTS.index("codex"))
    dialog.write_check.setChecked(True)
    codex = dialog.snippet.toPlainText()
    assert tomllib.loads(codex)["mcp_servers"]["memdesk"]["args"][-1] == "--allow-write"
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert (
        QGuiApplication.clipboard().text()
        == codex
        == mcp_config.snippet("codex", example_workspace, allow_write=True)
    )
    assert dialog.copied_label.text()


def test_agent_menu_opens_it_for_the_open_workspace(qtbot, example_workspace: Path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QMainWindow, QMenu

    window = QMainWindow()
    qtbot.addWidget(window)
    dock = AgentDock(window)
    menu = QMenu(window)
    dock.populate_menu(menu, window)
    dock.set_workspace(example_workspace)
    dock.mcp_action.trigger()
    assert isinstance(dock.mcp_dialog, McpConfigDialog) and dock.mcp_dialog.isVisible()
    assert str(example_workspace.resolve()) in dock.mcp_dialog.snippet.toPlainText()
    dock.mcp_dialog.close()
