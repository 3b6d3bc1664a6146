"""Conflicts between the user's unsaved edits and a change on disk: the dialog that
asks what to do (``ConflictDialog``: merge, reload, keep mine, compare), and, for
what a Merge left between conflict markers, the bar above the editor (where am I,
previous / next, take mine / theirs / both) and the highlight of each hunk. The
editor owns the actions; this module only shows them."""

from __future__ import annotations

import difflib
import html
from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QAction, QColor, QFontDatabase, QPalette, QTextCursor, QTextDocument, QTextFormat
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

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


class ConflictDialog(QDialog):
    """Merge / reload / keep mine / compare for a note changed on disk under unsaved edits.

    Merge (the default) combines both: changes on one side only are taken, and
    overlapping ones are put between conflict markers for the user to resolve, so
    nothing written on disk (an agent's new line) is dropped unseen.

    Signals:
        chosen(str): ``"merge"``, ``"reload"``, ``"keep"`` or ``"cancel"`` (closing the
            dialog changes nothing; the next save asks again).
    """

    chosen = Signal(str)

    def __init__(
        self,
        parent: QWidget | None,
        *,
        rel: str,
        mine: str,
        theirs: str | None,
        deleted: bool = False,
        problem: str | None = None,
        conflicts: int | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("conflictDialog")
        title = self.tr("{0} was deleted on disk") if deleted else self.tr("{0} changed on disk")
        self.setWindowTitle(title.format(rel))
        # Wide enough for the whole title (the window manager cuts it, not wraps it).
        self.setMinimumWidth(min(900, self.fontMetrics().horizontalAdvance(self.windowTitle()) + 160))
        self._choice = "cancel"
        name = f"<b>{html.escape(rel)}</b>"  # a file name is text, never markup
        layout = QVBoxLayout(self)
        if deleted:
            message = self.tr(
                "{name} was deleted on disk, but you have unsaved edits.<br>"
                "Keep yours (saving will recreate the file) or drop them?"
            ).format(name=name)
        elif theirs is None:
            message = self.tr(
                "{name} changed on disk into something the editor cannot show ({problem}).<br>"
                "Keep yours (saving will replace the disk version) or cancel and look at it first?"
            ).format(name=name, problem=html.escape(problem or self.tr("unreadable")))
        else:
            overlap = (
                (
                    self.tr("Both sides changed the same lines: {0} place will be marked for you to resolve.")
                    if conflicts == 1
                    else self.tr(
                        "Both sides changed the same lines: {0} places will be marked for you to resolve."
                    )
                ).format(conflicts)
                if conflicts
                else self.tr("The changes do not overlap: merging keeps both.")
            )
            message = self.tr(
                "{name} changed on disk, but you have unsaved edits.<br>"
                "Merge the disk changes into yours, reload the disk version (your edits are "
                "dropped) or keep yours (saving overwrites the disk version)?<br>{overlap}"
            ).format(name=name, overlap=overlap)
        label = QLabel(message)
        label.setObjectName("conflictMessage")
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setWordWrap(True)
        layout.addWidget(label)
        self._diff = QPlainTextEdit()
        self._diff.setObjectName("conflictDiff")
        self._diff.setReadOnly(True)
        self._diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        diff = difflib.unified_diff(
            (theirs or "").splitlines(),
            mine.splitlines(),
            fromfile=self.tr("{0} (disk)").format(rel),
            tofile=self.tr("{0} (yours)").format(rel),
            lineterm="",
        )
        self._diff.setPlainText("\n".join(diff) or self.tr("(no differences)"))
        self._diff.setVisible(False)
        layout.addWidget(self._diff)
        buttons = QDialogButtonBox()
        self.merge_button = QPushButton(self.tr("Merge"))
        self.merge_button.setObjectName("conflictMerge")
        self.reload_button = QPushButton(self.tr("Drop mine") if deleted else self.tr("Reload from disk"))
        self.reload_button.setObjectName("conflictReload")
        self.keep_button = QPushButton(self.tr("Keep mine"))
        self.keep_button.setObjectName("conflictKeepMine")
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setObjectName("conflictCancel")
        self.compare_button = QPushButton(self.tr("Compare"))
        self.compare_button.setObjectName("conflictCompare")
        self.compare_button.setCheckable(True)
        can_merge = theirs is not None and not deleted
        if can_merge:
            buttons.addButton(self.merge_button, QDialogButtonBox.ButtonRole.AcceptRole)
        if theirs is not None or deleted:
            buttons.addButton(self.reload_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        buttons.addButton(self.keep_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.cancel_button, QDialogButtonBox.ButtonRole.RejectRole)
        if theirs is not None:
            buttons.addButton(self.compare_button, QDialogButtonBox.ButtonRole.ActionRole)
        layout.addWidget(buttons)
        self.merge_button.clicked.connect(self._on_merge_button_clicked)
        self.reload_button.clicked.connect(self._on_reload_button_clicked)
        self.keep_button.clicked.connect(self._on_keep_button_clicked)
        self.cancel_button.clicked.connect(self.reject)
        self.compare_button.toggled.connect(self._on_compare_button_toggled)
        self.finished.connect(self._on_self_finished)
        # The safe choice is the default: merging loses nothing; for a deleted note,
        # keeping the edits; for an unreadable one, looking before overwriting.
        default = self.merge_button if can_merge else self.keep_button if deleted else self.cancel_button
        default.setDefault(True)
        default.setFocus()

    @property
    def default_button(self) -> QPushButton | None:
        for button in self.findChildren(QPushButton):
            if button.isDefault():
                return button
        return None

    @Slot()
    def _on_merge_button_clicked(self) -> None:
        self._choice = "merge"
        self.accept()

    @Slot()
    def _on_reload_button_clicked(self) -> None:
        self._choice = "reload"
        self.accept()

    @Slot()
    def _on_keep_button_clicked(self) -> None:
        self._choice = "keep"
        self.accept()

    @Slot(bool)
    def _on_compare_button_toggled(self, on: bool) -> None:
        self._diff.setVisible(on)
        self.resize(max(self.width(), 640), 480 if on else self.sizeHint().height())

    @Slot(int)
    def _on_self_finished(self, _result: int) -> None:
        self.chosen.emit(self._choice)
