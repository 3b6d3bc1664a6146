"""Painting helpers shared by the item delegates."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem


def draw_item_background(
    delegate: QStyledItemDelegate,
    painter: QPainter,
    option: QStyleOptionViewItem,
    index: QModelIndex | QPersistentModelIndex,
) -> tuple[QStyleOptionViewItem, str]:
    """Let the style draw the cell (background, selection, focus, icon) without its text.

    Returns the initialised option and the text, for the delegate to draw its own way.
    """
    opt = QStyleOptionViewItem(option)
    delegate.initStyleOption(opt, index)
    text = opt.text
    opt.text = ""
    style = opt.widget.style() if opt.widget else QApplication.style()
    style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
    return opt, text
