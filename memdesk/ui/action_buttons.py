"""Actions with a key, and push buttons that follow them, for the History panel and
the Changes view: each of their hunk actions (previous, next, revert, keep...) has a
shortcut and a button, and the button shows the action's text, tooltip and enabled
state, so the panels set only the actions (on retranslating, on a new diff)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QPushButton, QWidget


def shortcut_action(
    owner: QWidget, slot: Callable[[], object], key: str, context: Qt.ShortcutContext
) -> QAction:
    """An action of ``owner`` that runs ``slot`` on ``key`` within ``context``."""
    action = QAction(owner)
    action.setShortcut(QKeySequence(key))
    action.setShortcutContext(context)
    action.triggered.connect(lambda _checked=False: slot())
    owner.addAction(action)
    return action


def action_button(action: QAction, name: str) -> QPushButton:
    """A push button (object name ``name``) that triggers ``action`` and follows its
    text, tooltip and enabled state from then on."""
    button = QPushButton()
    button.setObjectName(name)
    button.clicked.connect(action.trigger)

    def follow() -> None:
        button.setText(action.text())
        button.setToolTip(action.toolTip())
        button.setEnabled(action.isEnabled())

    action.changed.connect(follow)
    follow()
    return button


def set_texts(rows: Iterable[tuple[QAction, str, str]]) -> None:
    """(action, text, tooltip) for each row: their buttons follow."""
    for action, text, tip in rows:
        action.setText(text)
        action.setToolTip(tip)
