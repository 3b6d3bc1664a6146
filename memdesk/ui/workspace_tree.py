"""The workspace tree: memory notes with their index state, and note file actions."""

from __future__ import annotations

import re

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, QRectF, Qt, Signal, Slot
from PySide6.QtGui import QColor, QFontMetrics, QKeyEvent, QPainter, QPalette, QPen
from PySide6.QtWidgets import QMenu, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTreeView, QWidget

from memdesk.qt import models
from memdesk.ui import item_paint

AnyIndex = QModelIndex | QPersistentModelIndex
STATE_COLORS = {
    "indexed": QColor(46, 160, 67),
    "pending": QColor(210, 153, 34),
    "failed": QColor(207, 34, 46),
}  # mid tones: they read on light and dark bases
UNSEEN_COLOR = QColor(47, 129, 247)  # the agent changed it since the user looked (blue, apart from states)


_DATED_NAME = re.compile(r"^\d{4}-(\d{2}-\d{2}.*)$")


def fit_name(name: str, width: int, metrics: QFontMetrics) -> str:
    """A note's name to fit ``width``. A daily note that does not fit drops its year
    first (the year and month groups above it carry both): elided in the middle,
    a month of notes all read "2025…8.md" and the day that tells them apart was gone."""
    if metrics.horizontalAdvance(name) <= width:
        return name
    match = _DATED_NAME.match(name)
    if match:
        return metrics.elidedText(match.group(1), Qt.TextElideMode.ElideRight, width)
    return metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, width)


class StateDelegate(QStyledItemDelegate):
    """A coloured dot before each file name: green indexed, amber pending, red failed;
    and a blue badge after it when the agent changed the note since the user last
    looked (opening the note or its history clears it)."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        state = index.data(models.StateRole)
        color = STATE_COLORS.get(state or "")
        if color is None:
            super().paint(painter, option, index)
            return
        _opt, text = item_paint.draw_item_background(self, painter, option, index)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = option.rect
        size = 8
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawEllipse(rect.left() + 3, rect.center().y() - size // 2 + 1, size, size)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        painter.setPen(
            option.palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        )
        text_rect = rect.adjusted(size + 8, 0, -2, 0)
        shown = fit_name(text, text_rect.width(), option.fontMetrics)
        painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), shown)
        if index.data(models.UnseenRole):
            # A blue ring around the state dot: seen at a glance, and it takes no width
            # from the name (a narrow tree already drops a daily note's year).
            pen = QPen(UNSEEN_COLOR)
            pen.setWidthF(2.0)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(
                QRectF(rect.left() + 0.5, rect.center().y() - size // 2 - 1.5, size + 5, size + 5)
            )
        painter.restore()


class WorkspaceTree(QTreeView):
    """Tree of the workspace's notes.

    Signals:
        note_activated(str): open this workspace-relative note.
        new_note_requested(str): create a topic note in this folder ("memory" by default).
        rename_requested(str), delete_requested(str): file actions from the context menu.
        history_requested(str): show this note's versions (History panel).
    """

    note_activated = Signal(str)
    new_note_requested = Signal(str)
    rename_requested = Signal(str)
    delete_requested = Signal(str)
    history_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workspaceTree")
        self.tree_model = models.WorkspaceTreeModel(self)
        self.setModel(self.tree_model)
        self.setHeaderHidden(True)
        self.setUniformRowHeights(True)  # keeps 2,000-note trees cheap to lay out
        self.setItemDelegate(StateDelegate(self))
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._on_self_context_menu_requested)
        self.activated.connect(self._on_self_activated)
        self.clicked.connect(self._on_self_activated)
        self.tree_model.modelReset.connect(self._on_model_reset)
        self._expanded: set[str] = {"memory"}
        # The note the window has open: selected again after the tree is rebuilt (a note
        # added anywhere rebuilds it) and once a just-created note reaches the listing.
        self._selected = ""

    def set_files(self, files: tuple[str, ...], states: dict[str, tuple[str, str]]) -> None:
        self._remember_expanded()
        # The states change for thousands of notes at once while indexing: repaint the
        # visible rows (the delegate reads each row's state as it paints) instead of a
        # dataChanged per folder.
        if self.tree_model.set_states(states, notify=False):
            self.viewport().update()
        self.tree_model.set_files(files)

    def set_filter(self, text: str) -> None:
        """Show only notes whose path holds every word of ``text`` (all folders open)."""
        if not self.tree_model.filtering:
            self._remember_expanded()
        self.tree_model.set_filter(text)
        if text.strip():
            self.expandAll()

    def select_note(self, rel: str) -> None:
        self._selected = rel
        index = self.tree_model.index_of(rel)
        if index.isValid():
            self.setCurrentIndex(index)
            self.scrollTo(index)

    def _remember_expanded(self) -> None:
        model = self.tree_model
        stack = [QModelIndex()]
        while stack:
            parent = stack.pop()
            for row in range(model.rowCount(parent)):
                index = model.index(row, 0, parent)
                if model.hasChildren(index):
                    path = index.data(models.PathRole)
                    if self.isExpanded(index):
                        self._expanded.add(path)
                        stack.append(index)
                    else:
                        self._expanded.discard(path)

    @Slot()
    def _on_model_reset(self) -> None:
        if self.tree_model.filtering:
            self.expandAll()
        else:
            for path in sorted(self._expanded):
                index = self.tree_model.index_of(path)
                if index.isValid():
                    self.expand(index)
        selected = self.tree_model.index_of(self._selected) if self._selected else QModelIndex()
        if selected.isValid():
            self.setCurrentIndex(selected)
            self.scrollTo(selected)

    @Slot(QModelIndex)
    def _on_self_activated(self, index: QModelIndex) -> None:
        if index.isValid() and not self.tree_model.hasChildren(index):
            self._selected = index.data(models.PathRole)
            self.note_activated.emit(self._selected)

    @Slot(QPoint)
    def _on_self_context_menu_requested(self, pos: QPoint) -> None:
        index = self.indexAt(pos)
        path = index.data(models.PathRole) if index.isValid() else ""
        is_file = bool(path) and not self.tree_model.hasChildren(index)
        folder = (index.data(models.FolderRole) if index.isValid() else "") or "memory"
        menu = QMenu(self)
        menu.addAction(self.tr("New topic note…"), lambda: self.new_note_requested.emit(folder))
        if is_file:
            menu.addAction(self.tr("History…"), lambda: self.history_requested.emit(path))
            menu.addAction(self.tr("Rename…"), lambda: self.rename_requested.emit(path))
            menu.addAction(self.tr("Move to trash"), lambda: self.delete_requested.emit(path))
        menu.popup(self.viewport().mapToGlobal(pos))

    def set_unseen(self, notes: set[str] | frozenset[str]) -> None:
        """Badge the notes the agent changed since the user last looked."""
        self.tree_model.set_unseen(notes)

    def current_note(self) -> str:
        index = self.currentIndex()
        if index.isValid() and not self.tree_model.hasChildren(index):
            return str(index.data(models.PathRole))
        return ""

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt override
        if event.key() == Qt.Key.Key_Delete and self.current_note():
            self.delete_requested.emit(self.current_note())
            return
        super().keyPressEvent(event)
