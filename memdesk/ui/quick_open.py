"""Ctrl+P: open a note by typing part of its file name."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QModelIndex, QObject, QStringListModel, Qt, Signal, Slot
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QLineEdit, QListView, QVBoxLayout, QWidget

MAX_SHOWN = 200


def rank_paths(paths: Sequence[str], needle: str) -> list[str]:
    """Paths whose name holds ``needle``'s characters in order, best first.

    A contiguous match in the file name beats one in the folder, and an earlier,
    shorter match beats a later one; an empty needle keeps the given order.
    """
    words = needle.lower().split()
    if not words:
        return list(paths)
    scored: list[tuple[tuple[int, int, int], str]] = []
    for path in paths:
        low = path.lower()
        name = low.rsplit("/", 1)[-1]
        rank = 0
        first = len(low)
        ok = True
        for word in words:
            if word in name:
                first = min(first, len(low) - len(name) + name.index(word))
            elif word in low:
                rank += 1
                first = min(first, low.index(word))
            elif _subsequence(word, low):
                rank += 2
            else:
                ok = False
                break
        if ok:
            scored.append(((rank, first, len(path)), path))
    scored.sort()
    return [path for _key, path in scored]


def _subsequence(needle: str, hay: str) -> bool:
    it = iter(hay)
    return all(ch in it for ch in needle)


class QuickOpen(QDialog):
    """A filter box over the workspace's notes; Enter opens the selected one.

    Signals:
        note_chosen(str): the workspace-relative path picked.
    """

    note_chosen = Signal(str)

    def __init__(self, paths: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("quickOpen")
        self.setWindowTitle(self.tr("Open note"))
        self._paths = list(paths)
        self.input = QLineEdit()
        self.input.setObjectName("quickOpenInput")
        self.input.setPlaceholderText(self.tr("Type part of a file name…"))
        self.list = QListView()
        self.list.setObjectName("quickOpenList")
        self.list.setUniformItemSizes(True)
        self.list.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self._model = QStringListModel(self)
        self.list.setModel(self._model)
        layout = QVBoxLayout(self)
        layout.addWidget(self.input)
        layout.addWidget(self.list)
        self.resize(520, 360)
        self.input.textChanged.connect(self._on_input_text_changed)
        self.input.returnPressed.connect(self._on_input_return_pressed)
        self.list.activated.connect(self._on_list_activated)
        self.input.installEventFilter(self)
        self._on_input_text_changed("")

    def shown_paths(self) -> list[str]:
        return list(self._model.stringList())

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # Qt override
        # Up/Down in the box move the list's selection, as in every quick-open box.
        if (
            obj is self.input
            and isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
            and event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp)
        ):
            row = self.list.currentIndex().row()
            step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_PageDown: 10, Qt.Key.Key_PageUp: -10}[
                Qt.Key(event.key())
            ]
            row = max(0, min(self._model.rowCount() - 1, row + step))
            self.list.setCurrentIndex(self._model.index(row, 0))
            return True
        return super().eventFilter(obj, event)

    @Slot(str)
    def _on_input_text_changed(self, text: str) -> None:
        self._model.setStringList(rank_paths(self._paths, text)[:MAX_SHOWN])
        if self._model.rowCount():
            self.list.setCurrentIndex(self._model.index(0, 0))

    @Slot()
    def _on_input_return_pressed(self) -> None:
        index = self.list.currentIndex()
        if index.isValid():
            self._on_list_activated(index)

    @Slot(object)
    def _on_list_activated(self, index: QModelIndex) -> None:
        self.note_chosen.emit(str(index.data()))
        self.accept()
