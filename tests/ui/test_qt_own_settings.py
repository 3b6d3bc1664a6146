"""What Qt itself remembers for the window (its file dialog's folders) is written in
memdesk's data dir, never in the user's ~/.config: memdesk writes only inside the
workspace and its data dir."""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import QSettings, QStandardPaths
from PySide6.QtWidgets import QFileDialog


def test_the_open_dialog_remembers_its_folders_in_the_data_dir(
    qtbot, make_window, workspace: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    default = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericConfigLocation)
    try:
        window = make_window(workspace)
        data = tmp_path / "data"  # make_window's data dir
        assert (data / "memdesk.ini").exists()
        # The dialog File > Open workspace… shows (Qt's own widgets, as on a desktop
        # without a native one); Qt saves its history when the dialog is destroyed.
        dialog = QFileDialog(window, "Open memory workspace", str(workspace))
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.setDirectory(str(workspace / "memory"))
        dialog.reject()
        shiboken6.delete(dialog)
        remembered = data / "QtProject.conf"
        assert remembered.is_file(), sorted(p.name for p in data.iterdir())
        assert str(workspace / "memory") in remembered.read_text(encoding="utf-8")
    finally:
        # Qt's paths are per process: the next test's QSettings go where they went before.
        for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
            QSettings.setPath(fmt, QSettings.Scope.UserScope, default)
