"""The note text widget: a plain-text editor with line numbers, zoom and a find bar."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt, Signal, Slot
from PySide6.QtGui import (
    QKeyEvent,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QTextCursor,
    QTextDocument,
    QWheelEvent,
)
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QToolButton, QWidget

from memdesk.ui import theme

MIN_POINT_SIZE, MAX_POINT_SIZE = 6.0, 40.0


class _LineNumberArea(QWidget):
    def __init__(self, editor: CodeEditor) -> None:
        super().__init__(editor)
        self._editor = editor

    def sizeHint(self) -> QSize:  # Qt override
        return QSize(self._editor.line_number_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        self._editor.paint_line_numbers(event)


class CodeEditor(QPlainTextEdit):
    """``QPlainTextEdit`` with a line-number gutter (Qt's own example, in Python).

    The gutter marks the opened hit's line range with a bar, so the chunk's extent
    stays visible when only its matched lines are highlighted.

    Signals:
        zoom_changed(float): the font's new point size (Ctrl+wheel, Ctrl+= / Ctrl+-).
    """

    zoom_changed = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._gutter = _LineNumberArea(self)
        self._marked: tuple[int, int] | None = None  # 1-based line range shown in the gutter
        self.blockCountChanged.connect(self._on_self_block_count_changed)
        self.updateRequest.connect(self._on_self_update_request)
        self._on_self_block_count_changed(0)

    # line numbers --------------------------------------------------------------------
    def line_number_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return 10 + self.fontMetrics().horizontalAdvance("9") * max(3, digits)

    def mark_lines(self, lines: tuple[int, int] | None) -> None:
        self._marked = lines
        self._gutter.update()

    @property
    def marked_lines(self) -> tuple[int, int] | None:
        return self._marked

    def paint_line_numbers(self, event: QPaintEvent) -> None:
        painter = QPainter(self._gutter)
        palette = self.palette()
        painter.fillRect(event.rect(), palette.color(QPalette.ColorRole.Window))
        muted = theme.muted_text(palette)
        bar = palette.color(QPalette.ColorRole.Highlight)
        block = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        bottom = top + round(self.blockBoundingRect(block).height())
        height = self.fontMetrics().height()
        width = self._gutter.width()
        current = self.textCursor().blockNumber()
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible() and bottom >= event.rect().top():
                line = number + 1
                if self._marked is not None and self._marked[0] <= line <= self._marked[1]:
                    painter.fillRect(width - 3, top, 3, bottom - top, bar)
                painter.setPen(palette.color(QPalette.ColorRole.Text) if number == current else muted)
                painter.drawText(0, top, width - 7, height, int(Qt.AlignmentFlag.AlignRight), str(line))
            block = block.next()
            top = bottom
            bottom = top + round(self.blockBoundingRect(block).height())
            number += 1
        painter.end()

    @Slot(int)
    def _on_self_block_count_changed(self, _count: int) -> None:
        self.setViewportMargins(self.line_number_width(), 0, 0, 0)

    @Slot(QRect, int)
    def _on_self_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())
        if rect.contains(self.viewport().rect()):
            self._on_self_block_count_changed(0)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        rect = self.contentsRect()
        self._gutter.setGeometry(QRect(rect.left(), rect.top(), self.line_number_width(), rect.height()))

    # zoom ----------------------------------------------------------------------------
    def point_size(self) -> float:
        return self.font().pointSizeF()

    def set_point_size(self, size: float) -> None:
        size = max(MIN_POINT_SIZE, min(MAX_POINT_SIZE, float(size)))
        if abs(size - self.point_size()) < 0.01:
            return
        font = self.font()
        font.setPointSizeF(size)
        self.setFont(font)
        self.document().setDefaultFont(font)
        self._on_self_block_count_changed(0)
        self.zoom_changed.emit(size)

    def zoom(self, steps: int) -> None:
        self.set_point_size(self.point_size() + steps)

    def wheelEvent(self, event: QWheelEvent) -> None:  # Qt override
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom(1 if event.angleDelta().y() > 0 else -1)
            event.accept()
            return
        super().wheelEvent(event)


class FindBar(QWidget):
    """Find in the note: type to jump to the first match, Enter / Shift+Enter (or F3 /
    Shift+F3) for the next / previous one, wrapping around; Esc closes it.

    Signals:
        closed(): the bar was hidden (the editor takes focus back).
    """

    closed = Signal()

    def __init__(self, editor: QPlainTextEdit, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("findBar")
        self._editor = editor
        self.input = QLineEdit()
        self.input.setObjectName("findInput")
        self.input.setPlaceholderText(self.tr("Find in note"))
        self.input.setClearButtonEnabled(True)
        self.count_label = QLabel("")
        self.count_label.setObjectName("findCount")
        self.prev_button = QToolButton()
        self.prev_button.setObjectName("findPrevious")
        self.prev_button.setText("↑")
        self.prev_button.setToolTip(self.tr("Previous match (Shift+F3)"))
        self.next_button = QToolButton()
        self.next_button.setObjectName("findNext")
        self.next_button.setText("↓")
        self.next_button.setToolTip(self.tr("Next match (F3)"))
        close = QToolButton()
        close.setObjectName("findClose")
        close.setText("✕")
        close.setToolTip(self.tr("Close (Esc)"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.addWidget(self.input, 1)
        layout.addWidget(self.count_label)
        layout.addWidget(self.prev_button)
        layout.addWidget(self.next_button)
        layout.addWidget(close)
        self.input.textChanged.connect(self._on_input_text_changed)
        self.input.returnPressed.connect(self.find_next)
        self.prev_button.clicked.connect(self.find_previous)
        self.next_button.clicked.connect(self.find_next)
        close.clicked.connect(self.close_bar)
        self.input.installEventFilter(self)
        self.setVisible(False)

    def open_bar(self) -> None:
        cursor = self._editor.textCursor()
        if cursor.hasSelection() and "\u2029" not in cursor.selectedText():
            self.input.setText(cursor.selectedText())
        self.setVisible(True)
        self.input.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.input.selectAll()
        self._count()

    @Slot()
    def close_bar(self) -> None:
        self.setVisible(False)
        self._editor.setFocus()
        self.closed.emit()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # Qt override
        if obj is self.input and isinstance(event, QKeyEvent) and event.type() == event.Type.KeyPress:
            if event.key() == Qt.Key.Key_Escape:
                self.close_bar()
                return True
            if (
                event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
                and event.modifiers() & Qt.KeyboardModifier.ShiftModifier
            ):
                self.find_previous()
                return True
        return super().eventFilter(obj, event)

    def matches(self) -> list[QTextCursor]:
        needle = self.input.text()
        out: list[QTextCursor] = []
        if not needle:
            return out
        document = self._editor.document()
        cursor = document.find(needle, 0)
        while not cursor.isNull() and len(out) < 10_000:
            out.append(cursor)
            cursor = document.find(needle, cursor)
        return out

    @Slot()
    def find_next(self) -> bool:
        return self._find(backward=False)

    @Slot()
    def find_previous(self) -> bool:
        return self._find(backward=True)

    def _find(self, *, backward: bool) -> bool:
        needle = self.input.text()
        if not needle:
            return False
        flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
        found = self._editor.find(needle, flags)
        if not found:  # wrap around
            cursor = self._editor.textCursor()
            cursor.movePosition(
                QTextCursor.MoveOperation.End if backward else QTextCursor.MoveOperation.Start
            )
            self._editor.setTextCursor(cursor)
            found = self._editor.find(needle, flags)
        self._count()
        return found

    @Slot(str)
    def _on_input_text_changed(self, _text: str) -> None:
        # Search from the start of the current selection so typing extends the match.
        cursor = self._editor.textCursor()
        cursor.setPosition(cursor.selectionStart())
        self._editor.setTextCursor(cursor)
        self._find(backward=False)

    def _count(self) -> None:
        found = self.matches()
        if not self.input.text():
            self.count_label.setText("")
            return
        current = self._editor.textCursor()
        index = next((i for i, c in enumerate(found) if c.selectionStart() == current.selectionStart()), -1)
        self.count_label.setText(
            self.tr("{0} of {1}").format(index + 1, len(found)) if found else self.tr("no match")
        )


def zoom_keys() -> tuple[QKeySequence, ...]:
    """Ctrl+= and Ctrl++ both zoom in (the plus key needs Shift on most layouts)."""
    return (QKeySequence("Ctrl+="), QKeySequence("Ctrl++"))
