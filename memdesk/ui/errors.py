"""The one way an error reaches the user: ``show_error(parent, exc)``.

Environment problems (``MemdeskError``: a bad model, an unreadable note...) are shown
with their own message; anything else is a bug, shown with its traceback under
"Show Details" and a pointer to the log file. The box is opened window-modal with
``open()`` rather than ``exec()``, so no nested event loop stalls workers or tests.
"""

from __future__ import annotations

import logging
import traceback
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from memdesk.core import errors
from memdesk.qt import messages

log = logging.getLogger(__name__)


def show_error(
    parent: QWidget | None, exc: BaseException, *, title: str | None = None, log_file: Path | None = None
) -> QMessageBox | None:
    """Tell the user about ``exc``; returns the (already open) box, or None if ignored."""
    if isinstance(exc, errors.Cancelled):
        return None  # the user asked for it; nothing to report
    box = QMessageBox(parent)
    box.setObjectName("errorDialog")
    if isinstance(exc, errors.MemdeskError):
        log.warning("%s: %s", type(exc).__name__, exc)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(title or "memdesk")
        box.setText(messages.text(exc))
    else:
        log.error("unexpected error", exc_info=(type(exc), exc, exc.__traceback__))
        box.setIcon(QMessageBox.Icon.Critical)
        box.setWindowTitle(title or QCoreApplication.translate("ErrorDialog", "memdesk: unexpected error"))
        box.setText(
            QCoreApplication.translate("ErrorDialog", "Something went wrong: {0}: {1}").format(
                type(exc).__name__, exc
            )
        )
        if log_file is not None:
            box.setInformativeText(
                QCoreApplication.translate("ErrorDialog", "Details were written to {0}").format(log_file)
            )
        box.setDetailedText("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.open()
    return box
