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

from memdesk.qt import messages as qt_messages


def extra_keys() -> list[tuple[str, str]]:
    """Keys that belong to widgets rather than menu actions."""
    return [
        (
            QCoreApplication.translate("help", "Down (in the search box)"),
            QCoreApplication.translate("help", "Move into the results"),
        ),
        (
            QCoreApplication.translate("help", "Enter (in the results)"),
            QCoreApplication.translate("help", "Open the selected hit"),
        ),
        (
            QCoreApplication.translate("help", "Space (in the results)"),
            QCoreApplication.translate("help", "Tick / untick the hit as relevant"),
        ),
        (
            QCoreApplication.translate("help", "Esc (in the results or editor)"),
            QCoreApplication.translate("help", "Back to the search box"),
        ),
        (
            QCoreApplication.translate("help", "Enter / Shift+Enter (in Find)"),
            QCoreApplication.translate("help", "Next / previous match"),
        ),
        (
            QCoreApplication.translate("help", "Ctrl+wheel"),
            QCoreApplication.translate("help", "Zoom the editor or the results"),
        ),
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
        rows = []
        for r in range(self.table.rowCount()):
            key, what = self.table.item(r, 0), self.table.item(r, 1)
            rows.append((key.text() if key else "", what.text() if what else ""))
        return rows


def cpu_backend_text() -> str:
    """Which llama.cpp CPU variant computes the embeddings, as About shows it.

    Loads llama.cpp (not a model) if nothing has yet: the variant is chosen then.
    """
    from memdesk.core import errors
    from memdesk.core.embed import llama_runtime

    try:
        return qt_messages.text(llama_runtime.active_cpu_backend().describe())
    except errors.EmbedderUnavailable as exc:
        return QCoreApplication.translate("help", "unavailable: {reason}").format(
            reason=qt_messages.text(exc)
        )


def about_html(
    *, version: str, model: str, index_path: str, data_dir: str, log_file: str, cpu_backend: str | None = None
) -> str:
    rows = [
        (QCoreApplication.translate("help", "Version"), version),
        (QCoreApplication.translate("help", "Embedding model"), model),
        (
            QCoreApplication.translate("help", "llama.cpp CPU backend"),
            cpu_backend if cpu_backend is not None else cpu_backend_text(),
        ),
        (QCoreApplication.translate("help", "Index"), index_path),
        (QCoreApplication.translate("help", "Data folder"), data_dir),
        (QCoreApplication.translate("help", "Log"), log_file),
    ]
    body = "".join(f"<tr><td><b>{html.escape(k)}</b></td><td>{html.escape(v)}</td></tr>" for k, v in rows)
    # Outside the f-string: lupdate does not see a translate() call inside one.
    tagline = QCoreApplication.translate(
        "help", "Browse, search and tune an agent’s Markdown memory, offline."
    )
    return f"<h3>memdesk</h3><p>{html.escape(tagline)}</p><table cellspacing='4'>{body}</table>"


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
