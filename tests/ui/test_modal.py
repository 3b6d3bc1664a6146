"""The test helper that answers modal dialogs stays inside the test that asked."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from tests.ui.modal import answer_modal


def test_an_answer_no_dialog_took_is_left_pending() -> None:
    # No event loop runs here, so the answer is still looking when the test ends;
    # the next test checks that it looks no further.
    assert answer_modal("Cancel") == []


def test_a_dialog_opened_later_is_not_answered_by_an_earlier_test(qtbot) -> None:  # type: ignore[no-untyped-def]
    parent = QWidget()
    qtbot.addWidget(parent)
    box = QMessageBox(QMessageBox.Icon.Warning, "title", "text", QMessageBox.StandardButton.Cancel, parent)
    finished: list[int] = []
    box.finished.connect(finished.append)
    box.setModal(True)
    box.open()
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is box, timeout=2000)
    qtbot.wait(300)  # the earlier answer, were it alive, looks every 10 ms
    assert finished == [] and box.isVisible()
    box.done(0)
