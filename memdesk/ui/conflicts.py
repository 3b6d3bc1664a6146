"""Resolving what a Merge left between conflict markers: the bar above the editor
(where am I, previous / next, take mine / theirs / both) and the highlight of each
hunk. The editor owns the actions; this module only shows them."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QColor, QPalette, QTextCursor, QTextDocument, QTextFormat
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QTextEdit, QToolButton, QWidget

from memdesk.core.index.notetext import ConflictHunk
from memdesk.ui import theme


def _tint(palette: QPalette, color: QColor, amount: float) -> QColor:
    base = palette.color(QPalette.ColorRole.Base)
    return QColor(
        round(base.red() + (color.red() - base.red()) * amount),
        round(base.green() + (color.green() - base.green()) * amount),
        round(base.blue() + (color.blue() - base.blue()) * amount),
    )


def marker_background(palette: QPalette) -> QColor:
    """Behind the three marker lines: a reddish band, readable in light and dark themes."""
    return QColor(110, 40, 40) if theme.is_dark(palette) else QColor(255, 205, 196)


def mine_background(palette: QPalette) -> QColor:
    """Behind the user's side of a hunk (warm, like its ``<<<<<<< yours`` line)."""
    return _tint(palette, QColor(230, 120, 90), 0.22 if theme.is_dark(palette) else 0.16)


def theirs_background(palette: QPalette) -> QColor:
    """Behind the disk's side of a hunk (cool, so the two sides tell apart at a glance)."""
    return _tint(palette, QColor(80, 140, 230), 0.25 if theme.is_dark(palette) else 0.16)


def hunk_selections(
    document: QTextDocument, hunks: Sequence[ConflictHunk], palette: QPalette
) -> list[QTextEdit.ExtraSelection]:
    """Full-width highlights of every line of ``hunks``: markers, mine and theirs."""
    marker, mine, theirs = marker_background(palette), mine_background(palette), theirs_background(palette)
    out: list[QTextEdit.ExtraSelection] = []
    for hunk in hunks:
        for number in range(hunk.start, hunk.end + 1):
            block = document.findBlockByNumber(number)
            if not block.isValid():
                break
            selection = QTextEdit.ExtraSelection()
            if number in (hunk.start, hunk.middle, hunk.end):
                color = marker
            else:
                color = mine if number < hunk.middle else theirs
            selection.format.setBackground(color)
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            selection.cursor = QTextCursor(block)
            out.append(selection)
    return out


class ConflictBar(QWidget):
    """``Conflict 2 of 3 · ↑ ↓ · Take mine · Take theirs · Take both`` above the editor,
    shown while the note holds conflict hunks. Its buttons trigger the editor's
    actions (which carry the keyboard shortcuts), so they are reachable by Tab too."""

    def __init__(
        self,
        *,
        previous: QAction,
        next_: QAction,
        mine: QAction,
        theirs: QAction,
        both: QAction,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("conflictBar")
        self.setAutoFillBackground(True)
        self.label = QLabel("")
        self.label.setObjectName("conflictBarLabel")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 4, 2)
        layout.addWidget(self.label, 1)
        self.buttons: dict[str, QToolButton] = {}
        for key, action in (
            ("previous", previous),
            ("next", next_),
            ("mine", mine),
            ("theirs", theirs),
            ("both", both),
        ):
            button = QToolButton()
            button.setObjectName(f"conflict{key.capitalize()}Button")
            button.setDefaultAction(action)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            layout.addWidget(button)
            self.buttons[key] = button
        self.setVisible(False)
        self.refresh_palette()

    def refresh_palette(self) -> None:
        """A wash of the markers' colour behind the bar, so it reads as part of the
        conflict (again after the theme changes: the editor calls this)."""
        palette = QApplication.palette()
        window = palette.color(QPalette.ColorRole.Window)
        marker = marker_background(palette)
        palette.setColor(
            QPalette.ColorRole.Window,
            QColor(
                (window.red() + marker.red()) // 2,
                (window.green() + marker.green()) // 2,
                (window.blue() + marker.blue()) // 2,
            ),
        )
        self.setPalette(palette)

    def show_state(self, current: int | None, count: int) -> None:
        """``current``: 0-based hunk the cursor is in (None: between hunks)."""
        if current is None:
            text = (
                self.tr("1 unresolved conflict from the merge")
                if count == 1
                else self.tr("{0} unresolved conflicts from the merge")
            )
            self.label.setText(text.format(count))
        else:
            self.label.setText(self.tr("Conflict {0} of {1}").format(current + 1, count))
        self.setVisible(count > 0)
