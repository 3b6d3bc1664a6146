"""The list behind the status bar's "N skipped": every path the index passed over, and why."""

from __future__ import annotations

from collections.abc import Sequence

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

from memdesk.qt import messages

Row = tuple[str, str]  # (path, reason)


def rows_of(failures: Sequence[object], skipped: Sequence[object]) -> list[Row]:
    """(path, reason) for notes that could not be read and paths discovery passed over,
    the reason in the UI's language and without its path in front (core's errors
    start with it: "{path}: …", in Chinese "{path}：…")."""
    out = []
    for item in (*failures, *skipped):
        path = str(getattr(item, "path", ""))
        out.append((path, messages.without_path(messages.text(getattr(item, "reason", "")), path)))
    return out


class SkippedDialog(QDialog):
    """A read-only table of skipped paths with their reasons (the window refreshes it)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("skippedDialog")
        self.setWindowTitle(self.tr("Skipped paths"))
        self.intro = QLabel(
            self.tr(
                "These paths are not in the index, so search cannot find them. "
                "Fix the reason and memdesk picks them up at the next sync."
            )
        )
        self.intro.setWordWrap(True)
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("skippedTable")
        self.table.setHorizontalHeaderLabels([self.tr("Path"), self.tr("Reason")])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(720, 360)

    def set_rows(self, rows: Sequence[Row]) -> None:
        self.table.setRowCount(len(rows))
        for row, (path, reason) in enumerate(rows):
            path_item = QTableWidgetItem(path)
            path_item.setToolTip(path)
            reason_item = QTableWidgetItem(reason)
            reason_item.setToolTip(reason)
            self.table.setItem(row, 0, path_item)
            self.table.setItem(row, 1, reason_item)
        self.table.resizeRowsToContents()

    def rows(self) -> list[Row]:
        return [(self._text(r, 0), self._text(r, 1)) for r in range(self.table.rowCount())]

    def _text(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text() if item is not None else ""
