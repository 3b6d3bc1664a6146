"""The Agent menu's "Use from other agents (MCP)…": each client's snippet, copied as shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from memdesk.mcp import config as mcp_config
from memdesk.qt import translations
from memdesk.ui.agent_dock import AgentDock
from memdesk.ui.mcp_dialog import McpConfigDialog

REPO = Path(__file__).resolve().parents[2]


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


FIT_SCRIPT = """
import json, sys
from pathlib import Path
from PySide6.QtWidgets import QApplication
app = QApplication([])
from memdesk.mcp import config
from memdesk.qt import translations
translations.install(app, "zh_CN")
from memdesk.ui.mcp_dialog import McpConfigDialog
dialog = McpConfigDialog(Path(sys.argv[1]))
dialog.show()
bars = {}
for client in config.CLIENTS:
    for allow_write in (False, True):
        dialog.client_combo.setCurrentIndex(config.CLIENTS.index(client))
        dialog.write_check.setChecked(allow_write)
        app.processEvents()
        bars[f"{client} {allow_write}"] = dialog.snippet.verticalScrollBar().maximum()
print(json.dumps({"bars": bars, "height": dialog.height()}))
"""


def test_every_snippet_shows_whole_in_chinese_too(example_workspace: Path) -> None:
    """The longest snippet (OpenClaw's with --allow-write, 17 lines) fits its box as the
    dialog opens, under a Chinese locale too: its taller labels had left the box a few
    pixels short and a scroll bar hid the closing braces (seen on a real display). A
    process of its own: the locale picks the fonts when Qt starts."""
    translations.compile_all()
    env = dict(os.environ, LANG="zh_CN.UTF-8", LC_ALL="zh_CN.UTF-8", QT_QPA_PLATFORM="offscreen")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-c", FIT_SCRIPT, str(example_workspace)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    data = json.loads(out.stdout)
    assert data["bars"] == dict.fromkeys(data["bars"], 0)
    assert len(data["bars"]) == 2 * len(mcp_config.CLIENTS)
    assert data["height"] <= 700  # and the dialog still fits a 1280x800 screen
