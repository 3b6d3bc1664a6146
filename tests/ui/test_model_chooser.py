"""Index > Choose embedding model (GGUF)… asks in the window's language."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt, QTimer, QTranslator
from PySide6.QtWidgets import QApplication, QComboBox, QFileDialog

from memdesk.qt import translations


@pytest.fixture
def chinese(qapp):  # type: ignore[no-untyped-def]
    translations.compile_all()
    assert translations.install(qapp, "zh_CN") == "zh_CN"
    yield
    for translator in qapp.findChildren(QTranslator):
        QCoreApplication.removeTranslator(translator)
        translator.deleteLater()


def test_the_model_file_dialog_is_chinese(qtbot, chinese, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(workspace)
    seen: list[tuple[str, list[str]]] = []
    timer = QTimer(window)
    timer.setObjectName("look-for-the-model-dialog")
    timer.setInterval(20)

    def look() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QFileDialog):
            return
        timer.stop()
        combo = dialog.findChild(QComboBox, "fileTypeCombo")
        types = [combo.itemText(i) for i in range(combo.count())] if combo is not None else []
        seen.append((dialog.windowTitle(), types))
        dialog.reject()  # Cancel: no model is chosen, nothing changes

    timer.timeout.connect(look)
    timer.start()
    try:
        # Qt's own dialog (no desktop portal offscreen), opened as the menu entry does.
        QApplication.instance().setAttribute(Qt.ApplicationAttribute.AA_DontUseNativeDialogs, True)
        window._on_choose_model_action()
    finally:
        timer.stop()
        QApplication.instance().setAttribute(Qt.ApplicationAttribute.AA_DontUseNativeDialogs, False)
    assert seen, "the model dialog never showed"
    title, types = seen[0]
    assert title == "选择 GGUF 嵌入模型"
    assert types == ["GGUF 模型 (*.gguf)", "所有文件 (*)"]
    assert window.prefs.model_choice() is None  # cancelled: the choice is unchanged
