"""Answer a real modal dialog the way a user does: find the modal window once it is
up (from a timer, since ``exec()`` runs its own event loop) and click the button
whose text (mnemonic ``&`` aside) is the one asked for."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QAbstractButton, QApplication, QMessageBox


def _text(button: QAbstractButton) -> str:
    return button.text().replace("&", "")


_pending: list[list[bool]] = []  # one live flag per answer not yet given


def drop_pending() -> None:
    """Stop every answer still looking for its dialog."""
    for alive in _pending:
        alive[0] = False
    _pending.clear()


def answer_modal(button_text: str, *, tries: int = 300) -> list[dict[str, object]]:
    """Click ``button_text`` in the next modal dialog. The list receives what the
    dialog showed, read before the click: its objectName, text, default button and
    buttons (an empty ``clicked`` when no such button was there: it was closed)."""
    seen: list[dict[str, object]] = []
    alive = [True]
    _pending.append(alive)

    def look(left: int = tries) -> None:
        if not alive[0]:
            return
        modal = QApplication.activeModalWidget()
        if modal is None:
            if left > 0:
                QTimer.singleShot(10, lambda: look(left - 1))
            return
        alive[0] = False
        _pending.remove(alive)
        buttons = [b for b in modal.findChildren(QAbstractButton) if b.isVisible()]
        button = next((b for b in buttons if _text(b) == button_text), None)
        record: dict[str, object] = {
            "name": modal.objectName(),
            "buttons": [_text(b) for b in buttons],
            "clicked": _text(button) if button is not None else "",
        }
        if isinstance(modal, QMessageBox):
            record["text"] = modal.text()
            default = modal.defaultButton()
            record["default"] = _text(default) if default is not None else ""
        seen.append(record)
        if button is None:
            modal.close()  # never leave a test hanging in exec()
            return
        button.click()

    QTimer.singleShot(0, look)
    return seen
