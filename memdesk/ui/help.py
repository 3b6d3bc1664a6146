"""Help menu dialogs: the keyboard shortcut list and About."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)


def _tr(text: str) -> str:
    return QCoreApplication.translate("help", text)


def extra_keys() -> list[tuple[str, str]]:
    """Keys that belong to widgets rather than menu actions."""
    return [
        (_tr("Down (in the search box)"), _tr("Move into the results")),
        (_tr("Enter (in the results)"), _tr("Open the selected hit")),
        (_tr("Space (in the results)"), _tr("Tick / untick the hit as relevant")),
        (_tr("Esc (in the results or editor)"), _tr("Back to the search box")),
        (_tr("Enter / Shift+Enter (in Find)"), _tr("Next / previous match")),
        (_tr("Ctrl+wheel"), _tr("Zoom the editor or the results")),
    ]


def action_keys(actions: Sequence[QAction]) -> list[tuple[str, str]]:
    out = []
    for action in actions:
        keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()]
        if keys:
            out.append((" / ".join(keys), action.text().replace("&", "").rstrip("….")))
    return out


class ShortcutsDialog(QDialog):
    """Every shortcut of the window's actions, plus the keys widgets handle."""

    def __init__(self, actions: Sequence[QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle(self.tr("Keyboard shortcuts"))
        rows = action_keys(actions) + extra_keys()
        self.table = QTableWidget(len(rows), 2)
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels([self.tr("Keys"), self.tr("Action")])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        for row, (keys, what) in enumerate(rows):
            self.table.setItem(row, 0, QTableWidgetItem(keys))
            self.table.setItem(row, 1, QTableWidgetItem(what))
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(560, 520)

    def rows(self) -> list[tuple[str, str]]:
        return [
            (self.table.item(r, 0).text(), self.table.item(r, 1).text()) for r in range(self.table.rowCount())
        ]


def about_html(*, version: str, model: str, index_path: str, data_dir: str, log_file: str) -> str:
    rows = [
        (_tr("Version"), version),
        (_tr("Embedding model"), model),
        (_tr("Index"), index_path),
        (_tr("Data folder"), data_dir),
        (_tr("Log"), log_file),
    ]
    body = "".join(f"<tr><td><b>{html.escape(k)}</b></td><td>{html.escape(v)}</td></tr>" for k, v in rows)
    return (
        f"<h3>memdesk</h3><p>{html.escape(_tr('Browse, search and tune an agent’s Markdown memory, offline.'))}</p>"
        f"<table cellspacing='4'>{body}</table>"
    )


class AboutDialog(QDialog):
    """Version, model, index path and data folder (selectable, to paste into a report)."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("aboutDialog")
        self.setWindowTitle(self.tr("About memdesk"))
        self.label = QLabel(text)
        self.label.setObjectName("aboutText")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(
            self.label.textInteractionFlags() | self.label.textInteractionFlags().TextSelectableByMouse
        )
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(buttons)
