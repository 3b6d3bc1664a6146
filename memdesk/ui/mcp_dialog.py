""" "Use from other agents (MCP)…": the snippet each MCP client's config needs, with a copy button.

The same text as ``memdesk mcp --print-config <client>`` (``memdesk.mcp.config``): the
absolute launcher and workspace paths, so the client starts this memdesk on this
workspace whatever its own PATH and folder.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from memdesk.mcp import config as mcp_config

# Product names: shown as they are in every language.
CLIENT_NAMES = {"claude": "Claude Code", "codex": "Codex", "cursor": "Cursor", "openclaw": "OpenClaw"}


class McpConfigDialog(QDialog):
    def __init__(self, workspace: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mcpConfigDialog")
        self.setWindowTitle(self.tr("Use from other agents (MCP)"))
        self.resize(760, 480)
        self._workspace = Path(workspace)

        intro = QLabel(
            self.tr(
                "Any agent that speaks MCP can search this workspace with your tuned ranking "
                "and its explanations. Add this to the agent's configuration:"
            )
        )
        intro.setWordWrap(True)
        self.client_combo = QComboBox()
        self.client_combo.setObjectName("mcpClientCombo")
        for key in mcp_config.CLIENTS:
            self.client_combo.addItem(CLIENT_NAMES[key], key)
        self.write_check = QCheckBox(self.tr("Let agents append to notes (--allow-write)"))
        self.write_check.setObjectName("mcpAllowWrite")
        form = QFormLayout()
        form.addRow(self.tr("Agent:"), self.client_combo)
        form.addRow("", self.write_check)

        self.where_label = QLabel()
        self.where_label.setObjectName("mcpWhereLabel")
        self.where_label.setWordWrap(True)
        self.where_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.snippet = QPlainTextEdit()
        self.snippet.setObjectName("mcpSnippet")
        self.snippet.setReadOnly(True)
        self.snippet.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.snippet.setFont(QFont(mono))

        self.copy_button = QPushButton(self.tr("&Copy"))
        self.copy_button.setObjectName("mcpCopyButton")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.copied_label = QLabel()
        self.copied_label.setObjectName("mcpCopiedLabel")

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.where_label)
        layout.addWidget(self.snippet, 1)
        layout.addWidget(self.copied_label)
        layout.addWidget(buttons)

        self.client_combo.currentIndexChanged.connect(self._refresh)
        self.write_check.toggled.connect(self._refresh)
        self.copy_button.clicked.connect(self.copy)
        self._refresh()
        self._fit_snippet()

    def _fit_snippet(self) -> None:
        """Make the box tall enough for the longest snippet (OpenClaw's with --allow-write),
        in whatever font the box gets: under a Chinese locale the taller labels left it
        a few pixels short and a scroll bar hid the closing braces."""
        longest = max(
            len(mcp_config.snippet(client, self._workspace, allow_write=True).splitlines())
            for client in mcp_config.CLIENTS
        )
        box = self.snippet
        margins = box.contentsMargins()
        height = (
            longest * box.fontMetrics().lineSpacing()
            + 2 * int(box.document().documentMargin())
            + margins.top()
            + margins.bottom()
            # A long workspace path brings a horizontal scroll bar (no wrapping).
            + box.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        )
        box.setMinimumHeight(height)
        self.resize(self.width(), max(self.height(), self.sizeHint().height()))

    def text(self) -> str:
        client = str(self.client_combo.currentData())
        return mcp_config.snippet(client, self._workspace, allow_write=self.write_check.isChecked())

    def where(self, client: str) -> str:
        """Where ``client`` takes the snippet (``mcp_config.WHERE``, in the UI's language)."""
        return {
            "claude": self.tr(
                "Claude Code: .mcp.json in the project (or run: claude mcp add-json memdesk '<the memdesk object>')"
            ),
            "codex": self.tr("Codex: ~/.codex/config.toml"),
            "cursor": self.tr("Cursor: ~/.cursor/mcp.json (or .cursor/mcp.json in the project)"),
            "openclaw": self.tr(
                "OpenClaw: openclaw.json (or run: openclaw mcp set memdesk '<the memdesk object>')"
            ),
        }[client]

    @Slot()
    def _refresh(self) -> None:
        self.where_label.setText(self.where(str(self.client_combo.currentData())))
        self.snippet.setPlainText(self.text())
        self.copied_label.clear()

    @Slot()
    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.text())
        self.copied_label.setText(self.tr("Copied: paste it into the agent's configuration."))
