"""The History panel's and the Changes view's buttons follow their actions."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from memdesk.ui import action_buttons


def test_a_button_follows_its_actions_text_tip_and_state_and_triggers_it(qtbot) -> None:  # type: ignore[no-untyped-def]
    owner = QWidget()
    qtbot.addWidget(owner)
    runs: list[str] = []
    action = action_buttons.shortcut_action(
        owner, lambda: runs.append("ran"), "Alt+K", Qt.ShortcutContext.WindowShortcut
    )
    button = action_buttons.action_button(action, "keep")
    assert button.objectName() == "keep"
    assert action in owner.actions()
    action_buttons.set_texts([(action, "Keep", "Keep this change (Alt+K)")])
    assert (button.text(), button.toolTip()) == ("Keep", "Keep this change (Alt+K)")
    action.setEnabled(False)
    assert not button.isEnabled()
    action.setEnabled(True)
    assert button.isEnabled()
    button.click()
    assert runs == ["ran"]
