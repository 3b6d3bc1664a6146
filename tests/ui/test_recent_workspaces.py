"""File > Recent workspaces: a folder that no longer exists is listed, disabled, as missing."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QTranslator

from memdesk.qt import translations


def _entries(window) -> dict[str, bool]:  # type: ignore[no-untyped-def]
    window.recent_menu.aboutToShow.emit()
    return {a.text(): a.isEnabled() for a in window.recent_menu.actions()}


def test_a_missing_recent_folder_is_disabled_and_says_so(
    qtbot, qapp, make_window, workspace: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    window = make_window(workspace, model=None)
    gone = tmp_path / "gone-workspace"
    gone.mkdir()
    window.prefs.remember_workspace(gone)
    shutil.rmtree(gone)
    here = str(workspace.resolve())
    assert _entries(window) == {f"{gone.resolve()} (missing)": False, here: True}
    # Chinese: the same entry, in Chinese.
    translations.compile_all()
    assert translations.install(qapp, "zh_CN") == "zh_CN"
    try:
        entries = _entries(window)
    finally:
        for translator in qapp.findChildren(QTranslator):
            QCoreApplication.removeTranslator(translator)
            translator.deleteLater()
    assert entries == {f"{gone.resolve()}（不存在）": False, here: True}
    # It comes back (a disk mounted again): so does its entry.
    gone.mkdir()
    assert _entries(window)[str(gone.resolve())] is True
