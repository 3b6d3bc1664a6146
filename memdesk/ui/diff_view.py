"""A read-only diff of two texts, hunk by hunk, for the History panel and the Changes
view: each change with three lines around it (each line once: near changes share the
lines between them), removed lines tinted red, added ones green, an ``@@`` line before
each. The hunk under the cursor is the one the panel's
actions (revert, restore, keep) act on; Alt+Down / Alt+Up go from one to the next."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtGui import QAction, QColor, QFontDatabase, QTextBlockFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from memdesk.core.history import diff as diff_mod
from memdesk.ui import action_buttons, theme

CONTEXT = 3  # unchanged lines shown around each hunk


def _plain(line: str) -> str:
    return line.rstrip("\r\n").replace("\u2028", " ").replace("\u2029", " ")


class DiffView(QPlainTextEdit):
    """Shows ``hunks`` of ``old`` → ``new``.

    Signals:
        current_hunk_changed(int): the hunk under the cursor (-1: none).
    """

    current_hunk_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        # Notes are long Markdown lines: wrapped, a change reads without scrolling sideways.
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        # Read-only, but the cursor still moves with the keys: it picks the hunk.
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByKeyboard | Qt.TextInteractionFlag.TextSelectableByMouse
        )
        self._hunks: tuple[diff_mod.Hunk, ...] = ()
        self._starts: list[int] = []  # first block of each hunk's "@@" line
        self._kinds: list[str] = []  # per block: "head" | "del" | "add" | "ctx" | "note"
        self._current = -1
        self._kept: set[int] = set()
        self.cursorPositionChanged.connect(self._on_cursor_position_changed)

    def step_actions(self, owner: QWidget, context: Qt.ShortcutContext) -> tuple[QAction, QAction]:
        """The previous and next change actions of ``owner`` over this diff (Alt+Up,
        Alt+Down within ``context``); ``step_texts`` names them."""
        previous = action_buttons.shortcut_action(owner, lambda: self.step(-1), "Alt+Up", context)
        following = action_buttons.shortcut_action(owner, lambda: self.step(1), "Alt+Down", context)
        return previous, following

    def step_texts(self, previous: QAction, following: QAction) -> list[tuple[QAction, str, str]]:
        """(action, text, tooltip) of ``step_actions``' two, in the current language."""
        return [
            (previous, self.tr("Previous change"), self.tr("Previous change (Alt+Up)")),
            (following, self.tr("Next change"), self.tr("Next change (Alt+Down)")),
        ]

    @property
    def hunks(self) -> tuple[diff_mod.Hunk, ...]:
        return self._hunks

    @property
    def current_hunk(self) -> int:
        return self._current

    def show_message(self, text: str) -> None:
        """Nothing to compare: say why instead."""
        self._hunks, self._starts, self._kinds, self._kept = (), [], ["note"], set()
        self.setPlainText(text)
        self._paint()
        self._set_current(-1)

    def show_diff(
        self, old: str, new: str, hunks: Sequence[diff_mod.Hunk], *, empty: str = "", kept: Sequence[int] = ()
    ) -> None:
        self._hunks = tuple(hunks)
        self._kept = set(kept)
        if not self._hunks:
            self.show_message(empty)
            return
        new_lines = diff_mod.lines(new)  # as the hunks count lines
        rows: list[str] = []
        kinds: list[str] = []
        starts: list[int] = []
        # Each line of ``new`` is shown once: as ``diff -U3`` does with near changes, the
        # lines between two hunks closer than twice the context are not repeated as the
        # first one's trailing and the next one's leading context, and a trailing context
        # stops where the next change starts. Each change keeps its own "@@" line: the
        # actions (keep, revert) act on one change at a time.
        shown = 0  # lines of ``new`` before this index are on screen already
        for index, hunk in enumerate(self._hunks):
            starts.append(len(rows))
            added, removed = len(hunk.new_lines), len(hunk.old_lines)
            rows.append(
                f"@@ -{hunk.old_start + 1},{removed} +{hunk.new_start + 1},{added} @@"
                + ("   ✓ " + self.tr("reviewed") if index in self._kept else "")
            )
            kinds.append("head")
            end = hunk.new_start + added
            last = index + 1 == len(self._hunks)
            following = len(new_lines) if last else self._hunks[index + 1].new_start
            before = new_lines[max(shown, hunk.new_start - CONTEXT) : hunk.new_start]
            after = new_lines[end : min(end + CONTEXT, following)]
            if not last and following - end <= 2 * CONTEXT:
                after = new_lines[end:following]  # the whole gap once, before the next "@@"
            shown = end + len(after)
            for line in before:
                rows.append("  " + _plain(line))
                kinds.append("ctx")
            for line in hunk.old_lines:
                rows.append("- " + _plain(line))
                kinds.append("del")
            for line in hunk.new_lines:
                rows.append("+ " + _plain(line))
                kinds.append("add")
            for line in after:
                rows.append("  " + _plain(line))
                kinds.append("ctx")
        self._starts, self._kinds = starts, kinds
        self.setPlainText("\n".join(rows))
        self._paint()
        self.go_to_hunk(0)

    def _paint(self, only: Sequence[int] | None = None) -> None:
        """Tint each diff line's block: a block's background fills every screen line of
        a wrapped line, full width (an extra selection covered only its first line).
        ``only``: just these hunks' "@@" lines (the current hunk moved)."""
        palette = self.palette()
        dark = theme.is_dark(palette)
        colors = {
            "del": theme.tint(palette, QColor(220, 60, 60), 0.30 if dark else 0.18),
            "add": theme.tint(palette, QColor(40, 170, 70), 0.30 if dark else 0.18),
            "head": theme.tint(palette, QColor(90, 120, 200), 0.25 if dark else 0.14),
            "current": theme.tint(palette, QColor(90, 120, 200), 0.55 if dark else 0.40),
        }
        current = self._starts[self._current] if 0 <= self._current < len(self._starts) else -1
        document = self.document()
        numbers = range(document.blockCount()) if only is None else [self._starts[i] for i in only]
        cursor = QTextCursor(document)
        cursor.beginEditBlock()
        for number in numbers:
            block = document.findBlockByNumber(number)
            kind = self._kinds[number] if number < len(self._kinds) else "ctx"
            # The hunk the actions act on: its "@@" line stands out.
            color = colors["current"] if number == current else colors.get(kind)
            fmt = QTextBlockFormat()
            if color is not None:
                fmt.setBackground(color)
            cursor.setPosition(block.position())
            cursor.setBlockFormat(fmt)
        cursor.endEditBlock()
        document.clearUndoRedoStacks()

    def hunk_at_block(self, block: int) -> int:
        found = -1
        for index, start in enumerate(self._starts):
            if start <= block:
                found = index
        return found

    def go_to_hunk(self, index: int) -> bool:
        if not 0 <= index < len(self._starts):
            return False
        block = self.document().findBlockByNumber(self._starts[index])
        self.setTextCursor(QTextCursor(block))
        self.centerCursor()
        self._set_current(index)
        return True

    def step(self, delta: int) -> bool:
        """The next (``delta`` 1) or previous (-1) hunk, wrapping."""
        if not self._starts:
            return False
        return self.go_to_hunk((max(self._current, 0) + delta) % len(self._starts))

    def _set_current(self, index: int) -> None:
        if index != self._current:
            old = self._current
            self._current = index
            self._paint(only=[i for i in (old, index) if 0 <= i < len(self._starts)])
            self.current_hunk_changed.emit(index)

    @Slot()
    def _on_cursor_position_changed(self) -> None:
        if self._starts:
            self._set_current(self.hunk_at_block(self.textCursor().blockNumber()))

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._paint()  # light and dark themes tint differently
