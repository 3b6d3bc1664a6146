"""The window's Help menu: the shortcuts, About memdesk (model, index, data dir, log) and
the log file opened in the desktop's viewer."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QWidget

from memdesk.core import paths
from memdesk.qt import session as session_mod
from memdesk.ui import help as help_mod


def show_shortcuts(window: QWidget) -> help_mod.ShortcutsDialog:
    dialog = help_mod.ShortcutsDialog(window.actions(), window)
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
    return dialog


def about_text(session: session_mod.Session, log_file: Path | None) -> str:
    status = session.snapshot.status if session.snapshot else None
    embedder = status.embedder if status is not None else None
    model = (
        str(embedder.get("model"))
        if embedder and embedder.get("model")
        # The window's string, kept under its context (and its translation).
        else QCoreApplication.translate("MainWindow", "none (keyword search only)")
    )
    try:
        from importlib import metadata

        version = metadata.version("memdesk")
    except Exception:  # not installed as a distribution (a source checkout)
        version = "?"
    db = getattr(session.engine, "db_path", None)
    return help_mod.about_html(
        version=version,
        model=model,
        index_path=str(db) if db else "?",
        data_dir=str(log_file.parent.parent if log_file else paths.data_dir()),
        log_file=str(log_file or ""),
    )


def show_about(text: str, window: QWidget) -> help_mod.AboutDialog:
    dialog = help_mod.AboutDialog(text, window)
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
    return dialog


def open_log(log_file: Path | None) -> bool:
    """Open the log file in the desktop's viewer (it is created if missing)."""
    if log_file is None:
        return False
    log_file.parent.mkdir(parents=True, exist_ok=True)
    log_file.touch(exist_ok=True)
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(log_file)))
