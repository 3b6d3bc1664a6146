"""Conflicts between the user's unsaved edits and a change on disk: the dialog that
asks what to do (``ConflictDialog``: merge, reload, keep mine, compare), and, for
what a Merge left between conflict markers, the bar above the editor (where am I,
previous / next, take mine / theirs / both) and the highlight of each hunk. The
editor owns the actions; this module only shows them."""

from __future__ import annotations

import difflib
import html
from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, QPoint, QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import (
    QAction,
    QColor,
    QFontDatabase,
    QKeySequence,
    QPalette,
    QResizeEvent,
    QShowEvent,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.index.notetext import MINE_MARKER, ConflictHunk, conflict_hunks, resolution
from memdesk.ui import fitted_label, flow_layout, theme


def marker_background(palette: QPalette) -> QColor:
    """Behind the three marker lines: a reddish band, readable in light and dark themes."""
    return QColor(110, 40, 40) if theme.is_dark(palette) else QColor(255, 205, 196)


def mine_background(palette: QPalette) -> QColor:
    """Behind the user's side of a hunk (warm, like its ``<<<<<<< yours`` line)."""
    return theme.tint(palette, QColor(230, 120, 90), 0.22 if theme.is_dark(palette) else 0.16)


def theirs_background(palette: QPalette) -> QColor:
    """Behind the disk's side of a hunk (cool, so the two sides tell apart at a glance)."""
    return theme.tint(palette, QColor(80, 140, 230), 0.25 if theme.is_dark(palette) else 0.16)


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
    """``Conflict 2 of 3  ↑ ↓  Mine  Theirs  Both`` above the editor, shown while the
    note holds conflict hunks. Its buttons trigger the editor's actions (which carry
    the keyboard shortcuts, and the full names in the menus: "Take mine"), follow
    their tooltips and enabled state, and are reachable by Tab too.

    The bar never sets the editor pane's width: beside the explanation at 1280x800
    the pane is ~385 px, at a 1000 px window ~265 px, and a row of full-named buttons
    (~590 px) pushed the splitter into the explanation. Its buttons are short (arrows,
    one word; the tooltips say it all), and where one row does not fit they move to
    a second row under the count, which shortens its text before it is cut.
    """

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
        self.label = fitted_label.FittedLabel()
        self.label.setObjectName("conflictBarLabel")
        self._state: tuple[int | None, int] = (None, 0)
        self.buttons: dict[str, QToolButton] = {}
        for key, action in (
            ("previous", previous),
            ("next", next_),
            ("mine", mine),
            ("theirs", theirs),
            ("both", both),
        ):
            self.buttons[key] = _follower(action, f"conflict{key.capitalize()}Button")
        self.buttons["previous"].setArrowType(Qt.ArrowType.UpArrow)
        self.buttons["next"].setArrowType(Qt.ArrowType.DownArrow)
        for key in ("previous", "next"):
            self.buttons[key].setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        self._set_texts()
        self._takes = QWidget()
        takes = QHBoxLayout(self._takes)
        takes.setContentsMargins(0, 0, 0, 0)
        takes.setSpacing(4)
        for key in ("mine", "theirs", "both"):
            takes.addWidget(self.buttons[key])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 2, 4, 2)
        layout.setSpacing(2)
        self._layout = layout
        self._top = QHBoxLayout()
        self._top.setSpacing(4)
        self._top.addWidget(self.label, 1)
        self._top.addWidget(self.buttons["previous"])
        self._top.addWidget(self.buttons["next"])
        self._top.addWidget(self._takes)
        self._bottom = QHBoxLayout()
        self._bottom.addStretch(1)  # the takes keep to the right edge on either row
        layout.addLayout(self._top)
        layout.addLayout(self._bottom)
        self.setVisible(False)
        self.refresh_palette()

    @property
    def one_row(self) -> bool:
        """The count, the arrows and the takes share one row (else the takes are below)."""
        return self._top.indexOf(self._takes) >= 0

    def _set_texts(self) -> None:
        self.buttons["mine"].setText(self.tr("Mine"))
        self.buttons["theirs"].setText(self.tr("Theirs"))
        self.buttons["both"].setText(self.tr("Both"))

    def _fixed_width(self, count: int) -> int:
        """The width of a row holding ``count`` pixels of the count's text and the
        arrows, margins included."""
        margins = self._layout.contentsMargins()
        arrows = self.buttons["previous"].sizeHint().width() + self.buttons["next"].sizeHint().width()
        return margins.left() + margins.right() + count + 2 * self._top.spacing() + arrows

    def _one_row_width(self) -> int:
        """What one row needs: room for the count's longer texts ("Conflict 10 of 10",
        "10 conflicts to resolve"), so moving between hunks never changes the rows."""
        metrics = self.label.fontMetrics()
        count = max(
            metrics.horizontalAdvance(self.tr("Conflict {0} of {1}").format(10, 10)),
            metrics.horizontalAdvance(self.tr("{0} conflicts to resolve").format(10)),
        )
        return self._fixed_width(count + 8) + self._top.spacing() + self._takes.sizeHint().width()

    def minimumSizeHint(self) -> QSize:  # Qt override
        # Two rows' width: the count may shorten (to "Conflict 2…") beside the arrows.
        word = self.label.fontMetrics().horizontalAdvance(self.tr("Conflict {0} of {1}").format(10, 10)) // 2
        margins = self._layout.contentsMargins()
        width = max(
            self._fixed_width(word), margins.left() + margins.right() + self._takes.sizeHint().width()
        )
        return QSize(width, super().minimumSizeHint().height())

    def _arrange(self) -> None:
        one_row = self.width() >= self._one_row_width()
        if one_row == self.one_row:
            return
        if one_row:
            self._bottom.removeWidget(self._takes)
            self._top.addWidget(self._takes)
        else:
            self._top.removeWidget(self._takes)
            self._bottom.addWidget(self._takes)
        self.updateGeometry()

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self._arrange()

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._set_texts()
            self.show_state(*self._state)
        if event.type() in (QEvent.Type.LanguageChange, QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.updateGeometry()
            self._arrange()

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
        self._state = (current, count)
        if current is None:
            text = self.tr("1 conflict to resolve") if count == 1 else self.tr("{0} conflicts to resolve")
            self.label.set_full_text(text.format(count))
        else:
            self.label.set_full_text(self.tr("Conflict {0} of {1}").format(current + 1, count))
        self.setVisible(count > 0)


def _follower(action: QAction, name: str) -> QToolButton:
    """A tool button (object name ``name``) that triggers ``action`` and follows its
    tooltip and enabled state; its text is its own (shorter than the menus')."""
    button = QToolButton()
    button.setObjectName(name)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    button.clicked.connect(action.trigger)

    def follow() -> None:
        button.setToolTip(action.toolTip())
        button.setEnabled(action.isEnabled())

    action.changed.connect(follow)
    follow()
    return button


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
        inline: bool = False,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("conflictDialog")
        self.inline = inline
        self._changes_again = 0
        if inline:
            # A bar inside the editor, not a window: the agent writes while the user
            # types, and a window (modal, with a focused default button) took the next
            # keystrokes, a space pressing Merge. The keyboard stays in the editor.
            self.setWindowFlags(Qt.WindowType.Widget)
            self.setAutoFillBackground(True)
            self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            # Never squeezed below its text (the editor below gives up lines instead).
            self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        title = self.tr("{0} was deleted on disk") if deleted else self.tr("{0} changed on disk")
        self.setWindowTitle(title.format(rel))
        if not inline:  # a bar takes the pane's width; it never widens the pane
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
        if inline:
            # The editor pane is narrow and short: the bar says what happened in two
            # lines (the question is its buttons) and keeps the editor in sight.
            layout.setContentsMargins(8, 3, 8, 3)
            layout.setSpacing(2)
            if theirs is not None and not deleted:  # the rare others keep their whole text
                message = f"<b>{html.escape(self.windowTitle())}</b> · {overlap}"
            # How to reach it from the keyboard: on hover (the pane has no room).
            self.setToolTip(
                self.tr("Keep typing: nothing changes until you choose (F8 goes to these buttons).")
            )
        label = QLabel(message)
        label.setObjectName("conflictMessage")
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setWordWrap(True)
        layout.addWidget(label)
        if inline:
            # One line per fact, cut at the pane's edge (the tooltip has it all): a
            # wrapped label in the short editor pane got less height than its lines
            # and they were drawn over each other.
            label.setWordWrap(False)
            label.setMinimumWidth(1)
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            label.setToolTip(f"{message}<br>{html.escape(self.toolTip())}")
        # Shown when the file changes again, or when a Merge must wait (inline only).
        self.status_label = QLabel("")
        self.status_label.setObjectName("conflictAgain")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setWordWrap(True)
        self.status_label.setVisible(False)
        if inline:
            self.status_label.setWordWrap(False)
            self.status_label.setMinimumWidth(1)
            self.status_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        layout.addWidget(self.status_label)
        self._held = False
        self.had_focus = False
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
        if inline:
            # A row that wraps: at a 1000 px window the pane is ~250 px and the four
            # buttons (~330 px) were cut mid-word ("erg", "ep mir"); whole, on two rows.
            row = QWidget()
            row.setObjectName("conflictButtons")
            flow = flow_layout.FlowLayout(row, spacing=4)
            for button in (self.merge_button, self.keep_button, self.reload_button, self.compare_button):
                if buttons.buttonRole(button) != QDialogButtonBox.ButtonRole.InvalidRole:
                    buttons.removeButton(button)
                    flow.addWidget(button)
            if not can_merge:  # the rare others keep their Cancel (it is hidden otherwise)
                buttons.removeButton(self.cancel_button)
                flow.addWidget(self.cancel_button)
            buttons.setParent(self)
            buttons.hide()
            layout.addWidget(row)
        else:
            layout.addWidget(buttons)
        self.merge_button.clicked.connect(self._on_merge_button_clicked)
        self.reload_button.clicked.connect(self._on_reload_button_clicked)
        self.keep_button.clicked.connect(self._on_keep_button_clicked)
        self.cancel_button.clicked.connect(self.reject)
        self.compare_button.toggled.connect(self._on_compare_button_toggled)
        self.finished.connect(self._on_self_finished)
        if inline:
            # No default button and no focus: Enter and Space typed into the editor
            # must never reach a button. The user clicks, or F8 then Tab and Space.
            for button in self.findChildren(QPushButton):
                button.setAutoDefault(False)
                button.setDefault(False)
                button.setStyleSheet("QPushButton { padding: 2px 6px; }")  # four fit the pane
                # A click leaves the keyboard in the editor (a clicked button kept the
                # focus, and when the bar closed Qt passed it on to the notes filter).
                button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            # Four buttons fit the pane; closing without a choice is Esc (after F8),
            # and leaving the bar open costs nothing: the user just types on.
            if can_merge:
                buttons.removeButton(self.cancel_button)
                self.cancel_button.setParent(self)
                self.cancel_button.hide()
            return
        # The safe choice is the default: merging loses nothing; for a deleted note,
        # keeping the edits; for an unreadable one, looking before overwriting.
        default = self.merge_button if can_merge else self.keep_button if deleted else self.cancel_button
        default.setDefault(True)
        default.setFocus()

    def changed_again(self) -> None:
        """The file changed on disk again while this bar waits: say so (a Merge
        takes the newest version, read when it is clicked)."""
        self._changes_again += 1
        self._show_status()

    def hold_merge(self, held: bool) -> None:
        """Disable Merge while the note still holds unresolved markers of an earlier
        merge: merging again would nest a second set of markers inside them."""
        self._held = held
        self.merge_button.setEnabled(not held)
        self._show_status()

    @property
    def changes_again(self) -> int:
        return self._changes_again

    def _show_status(self) -> None:
        parts = []
        if self._changes_again:
            parts.append(
                self.tr(
                    "It changed on disk again ({0} times since this bar opened); Merge takes the newest version."
                ).format(self._changes_again)
            )
        if self._held:
            parts.append(
                self.tr(
                    "Merge waits until the conflicts already in the note are resolved (Take mine, theirs or both)."
                )
            )
        self.status_label.setText("\n".join(parts))
        self.status_label.setToolTip("\n".join(parts))
        self.status_label.setVisible(bool(parts))

    def focus_buttons(self) -> None:
        """F8: the keyboard goes to the first enabled button (Tab moves on, Esc closes)."""
        for button in (self.merge_button, self.reload_button, self.keep_button, self.cancel_button):
            if button.isVisibleTo(self) and button.isEnabled() and button.parent() is not None:
                button.setFocus(Qt.FocusReason.ShortcutFocusReason)
                return

    def showEvent(self, event: QShowEvent) -> None:  # Qt override
        super().showEvent(event)
        if self.inline:
            # QDialogButtonBox makes its first accept button the default when shown
            # in a dialog; a bar has none (Enter in the editor must not reach it).
            for button in self.findChildren(QPushButton):
                button.setDefault(False)

    @property
    def default_button(self) -> QPushButton | None:
        for button in self.findChildren(QPushButton):
            if button.isDefault():
                return button
        return None

    def done(self, result: int) -> None:  # Qt override
        # Whether the keyboard was on the bar, read before it hides (Qt then moves the
        # focus on, to the notes filter): the editor takes it back after the choice.
        focused = QApplication.focusWidget()
        self.had_focus = focused is not None and self.isAncestorOf(focused)
        super().done(result)

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
        if self.inline:
            self._diff.setMaximumHeight(220)  # the editor below stays in sight
            return
        self.resize(max(self.width(), 640), 480 if on else self.sizeHint().height())

    @Slot(int)
    def _on_self_finished(self, _result: int) -> None:
        self.chosen.emit(self._choice)


class ConflictHunks(QObject):
    """The conflict hunks of the note shown in ``text_edit``: found again shortly after
    each change (typing, pasting and Ctrl+Z bring markers and take them away),
    highlighted, counted on the bar, and the actions (previous / next, take mine /
    theirs / both) enabled only while there are any, so their keys are free otherwise.
    The actions are ``owner``'s (the editor's), on the bar, in the editor's context
    menu and (through ``actions``) the window's Edit menu.

    Signals:
        changed(int): the number of hunks changed (0 once all are resolved).
        selections_changed(): ``selections`` (the hunks' highlight) changed.
    """

    changed = Signal(int)
    selections_changed = Signal()

    SCAN_MS = 150

    def __init__(
        self,
        owner: QWidget,
        text_edit: QPlainTextEdit,
        *,
        has_note: Callable[[], bool],
        show_edit: Callable[[], None],
    ) -> None:
        super().__init__(owner)
        self._owner = owner
        self._edit = text_edit
        self._has_note = has_note
        self._show_edit = show_edit
        self.hunks: list[ConflictHunk] = []  # the shown note's, by block number
        self.selections: list[QTextEdit.ExtraSelection] = []

        def make(text: str, key: str, slot: Callable[[], object], name: str) -> QAction:
            action = QAction(text, owner)
            action.setObjectName(name)
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.setToolTip(
                f"{text} ({QKeySequence(key).toString(QKeySequence.SequenceFormat.NativeText)})"
            )
            action.setEnabled(False)
            action.triggered.connect(lambda _checked=False: slot())
            owner.addAction(action)
            return action

        self.previous_conflict_action = make(
            self.tr("Previous conflict"), "Shift+F7", lambda: self.go_to(-1), "previousConflict"
        )
        self.next_conflict_action = make(
            self.tr("Next conflict"), "F7", lambda: self.go_to(1), "nextConflict"
        )
        self.take_mine_action = make(self.tr("Take mine"), "Alt+1", lambda: self.resolve("mine"), "takeMine")
        self.take_theirs_action = make(
            self.tr("Take theirs"), "Alt+2", lambda: self.resolve("theirs"), "takeTheirs"
        )
        self.take_both_action = make(self.tr("Take both"), "Alt+3", lambda: self.resolve("both"), "takeBoth")
        self.take_mine_action.setToolTip(self.tr("Keep your lines of this conflict, drop the disk's (Alt+1)"))
        self.take_theirs_action.setToolTip(
            self.tr("Keep the disk's lines of this conflict, drop yours (Alt+2)")
        )
        self.take_both_action.setToolTip(self.tr("Keep both: your lines, then the disk's (Alt+3)"))
        self.bar = ConflictBar(
            previous=self.previous_conflict_action,
            next_=self.next_conflict_action,
            mine=self.take_mine_action,
            theirs=self.take_theirs_action,
            both=self.take_both_action,
        )
        self._timer = QTimer(self)
        self._timer.setObjectName("conflict-scan-timer")
        self._timer.setSingleShot(True)
        self._timer.setInterval(self.SCAN_MS)
        self._timer.timeout.connect(self.refresh)
        text_edit.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        text_edit.customContextMenuRequested.connect(self._on_text_edit_context_menu_requested)
        text_edit.cursorPositionChanged.connect(self._on_text_edit_cursor_position_changed)

    @property
    def actions(self) -> list[QAction]:
        return [
            self.previous_conflict_action,
            self.next_conflict_action,
            self.take_mine_action,
            self.take_theirs_action,
            self.take_both_action,
        ]

    def schedule(self) -> None:
        """Look again shortly (the text changed; the look is a substring search while
        there are none)."""
        self._timer.start()

    @Slot()
    def refresh(self, *, jump: bool = False) -> None:
        """Find the shown note's hunks again: highlight them, show the bar and enable
        the actions while there are any; clear all that once none is left. ``jump``:
        put the cursor on the first one."""
        self._timer.stop()
        hunks: list[ConflictHunk] = []
        if self._has_note():
            document = self._edit.document()
            if self.hunks or MINE_MARKER in document.toRawText():
                lines = []
                block = document.begin()
                while block.isValid():
                    lines.append(block.text())
                    block = block.next()
                hunks = conflict_hunks(lines)
        changed = hunks != self.hunks
        self.hunks = hunks
        if hunks or changed:
            self.selections = hunk_selections(self._edit.document(), hunks, self._owner.palette())
            self.selections_changed.emit()
        for action in self.actions:
            action.setEnabled(bool(hunks))
        self._show_state()
        if jump and hunks and not self._on_a_side():
            self.go_to_hunk(hunks[0])
        if changed:
            self.changed.emit(len(hunks))

    def _on_a_side(self) -> bool:
        """The cursor is on a text line of a hunk (where the user was typing when the
        merge put markers round it): a jump would move their next keys elsewhere."""
        line = self._edit.textCursor().blockNumber()
        return any(h.start < line < h.end and line != h.middle for h in self.hunks)

    def current(self) -> ConflictHunk | None:
        """The hunk the cursor is in, else the next one after it (wrapping)."""
        if not self.hunks:
            return None
        line = self._edit.textCursor().blockNumber()
        inside = next((h for h in self.hunks if h.contains(line)), None)
        return inside or next((h for h in self.hunks if h.start > line), self.hunks[0])

    def go_to(self, step: int) -> bool:
        """Put the cursor on the next (``step`` > 0) or previous hunk, wrapping."""
        self.refresh()
        if not self.hunks:
            return False
        line = self._edit.textCursor().blockNumber()
        if step > 0:
            hunk = next((h for h in self.hunks if h.start > line), self.hunks[0])
        else:
            hunk = next((h for h in reversed(self.hunks) if h.end < line), self.hunks[-1])
        self.go_to_hunk(hunk)
        return True

    def go_to_hunk(self, hunk: ConflictHunk) -> None:
        # On the hunk's first text line, not its ``<<<<<<< yours``: what the user types
        # next lands in a side of the hunk, never on a marker line (which it would
        # break, so the hunk could no longer be taken with its markers).
        if hunk.start + 1 < hunk.middle:
            line = hunk.start + 1
        elif hunk.middle + 1 < hunk.end:
            line = hunk.middle + 1
        else:
            line = hunk.start
        block = self._edit.document().findBlockByNumber(line)
        if block.isValid():
            self._show_edit()
            self._edit.setTextCursor(QTextCursor(block))
            self._edit.centerCursor()

    def resolve(self, take: str, hunk: ConflictHunk | None = None) -> bool:
        """Replace a hunk, markers and all, by ``"mine"``, ``"theirs"`` or ``"both"``
        sides' lines, as one undo step (Ctrl+Z brings the hunk back).

        ``hunk``: the one the cursor is in (or the next) when not given. Only the
        hunk's lines change; every other line keeps its exact bytes at the save.
        Text typed onto a marker line stays, on its own line (``resolution``).

        The cursor stays on the character it was on when that is kept (the user was
        typing in their side, and their next keys go on there); when its line goes
        (a marker, a side not taken) it goes to the end of the resolved text; a
        cursor outside the hunk (the bar's button acts on the next hunk) stays put
        (Qt moves it with the text). Ctrl+Z puts it back where it was before.
        """
        self.refresh()
        hunk = hunk or self.current()
        if hunk is None or hunk not in self.hunks:
            return False
        document = self._edit.document()
        lines = [document.findBlockByNumber(n).text() for n in range(hunk.start, hunk.end + 1)]
        outcome = resolution(lines, ConflictHunk(0, hunk.middle - hunk.start, hunk.end - hunk.start), take)
        view = self._edit.textCursor()
        row = view.blockNumber() - hunk.start
        # A selection reaching into the hunk counts as in it (and becomes a cursor).
        inside = 0 <= row < len(lines) or hunk.contains(document.findBlock(view.anchor()).blockNumber())
        column = view.positionInBlock()
        kept = [text for text in outcome if text is not None]
        first = document.findBlockByNumber(hunk.start)
        last = document.findBlockByNumber(hunk.end)
        # One undo step that Ctrl+Z ends with the cursor where it was before the take
        # (Qt's undo of an edit block puts it where the editing cursor stood at its
        # start: at 0 it scrolled the view to the note's top).
        cursor = QTextCursor(document)
        cursor.setPosition(view.position())
        cursor.beginEditBlock()
        if kept:
            # The kept lines go in first and the hunk's old text after them goes
            # last: words typed right after the kept text would otherwise join the
            # take's undo step (Qt merges an insertion into an adjacent one).
            start, end = first.position(), last.position() + last.length() - 1
            cursor.setPosition(start)
            cursor.insertText("\n".join(kept))
            grown = cursor.position() - start
            cursor.setPosition(end + grown, QTextCursor.MoveMode.KeepAnchor)
        elif last.next().isValid():  # nothing kept: the lines go, with one separator
            cursor.setPosition(first.position())
            cursor.setPosition(last.next().position(), QTextCursor.MoveMode.KeepAnchor)
        else:
            previous = first.previous()
            cursor.setPosition(previous.position() + previous.length() - 1 if previous.isValid() else 0)
            cursor.setPosition(last.position() + last.length() - 1, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        cursor.endEditBlock()
        if inside:
            self._edit.setTextCursor(self._after_resolve(hunk.start, outcome, lines, row, column))
        self.refresh()
        return True

    def _after_resolve(
        self, start: int, outcome: list[str | None], lines: list[str], row: int, column: int
    ) -> QTextCursor:
        """Where the cursor goes after a take that acted on the hunk it was in (see
        ``resolve``): ``row`` is its line in the hunk before (-1 or past the end: only
        its selection's other end was in it), ``column`` its column there."""
        document = self._edit.document()
        kept = [offset for offset, text in enumerate(outcome) if text is not None]
        cursor = QTextCursor(document)
        if not kept:  # nothing left of the hunk: the start of the line after it
            if start < document.blockCount():
                cursor.setPosition(document.findBlockByNumber(start).position())
            else:
                cursor.movePosition(QTextCursor.MoveOperation.End)
            return cursor
        if row in kept:
            block = document.findBlockByNumber(start + kept.index(row))
            # An untouched line keeps the column; a marker line's typed text, its end.
            untouched = outcome[row] == lines[row]
            cursor.setPosition(
                block.position() + (min(column, block.length() - 1) if untouched else block.length() - 1)
            )
            return cursor
        block = document.findBlockByNumber(start + len(kept) - 1)
        cursor.setPosition(block.position() + block.length() - 1)
        return cursor

    def _show_state(self) -> None:
        line = self._edit.textCursor().blockNumber()
        current = next((i for i, h in enumerate(self.hunks) if h.contains(line)), None)
        self.bar.show_state(current, len(self.hunks))

    @Slot()
    def _on_text_edit_cursor_position_changed(self) -> None:
        if self.hunks:
            self._show_state()

    @Slot(QPoint)
    def _on_text_edit_context_menu_requested(self, pos: QPoint) -> None:
        """Qt's own menu; on a hunk, the take actions first (acting on it)."""
        edit = self._edit
        menu = edit.createStandardContextMenu(pos)
        line = edit.cursorForPosition(pos).blockNumber()
        if any(h.contains(line) for h in self.hunks):
            if not edit.textCursor().hasSelection():
                edit.setTextCursor(edit.cursorForPosition(pos))
            takes = [self.take_mine_action, self.take_theirs_action, self.take_both_action]
            if menu.actions():
                first = menu.actions()[0]
                menu.insertActions(first, takes)
                menu.insertSeparator(first)
            else:
                menu.addActions(takes)
        menu.exec(edit.viewport().mapToGlobal(pos))
        menu.deleteLater()
