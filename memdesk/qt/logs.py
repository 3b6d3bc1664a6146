"""Logging for the GUI entry point: a rotating file in the data dir (stderr on request)."""

from __future__ import annotations

import logging
import logging.handlers
import os
from pathlib import Path

from PySide6.QtCore import QtMsgType, qInstallMessageHandler

from memdesk.core import paths

LOG_NAME = "memdesk.log"
_qt_log = logging.getLogger("qt")


def log_path(data_dir: Path) -> Path:
    return Path(data_dir) / "logs" / LOG_NAME


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log whose files are owner-only (0600) whatever the umask: the log
    names notes and queries."""

    def _open(self):  # type: ignore[no-untyped-def]
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)  # one an earlier version left readable by others
        return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)


def _on_qt_message(mode: QtMsgType, context: object, message: str) -> None:
    level = {
        QtMsgType.QtDebugMsg: logging.DEBUG,
        QtMsgType.QtInfoMsg: logging.INFO,
        QtMsgType.QtWarningMsg: logging.WARNING,
        QtMsgType.QtCriticalMsg: logging.ERROR,
        QtMsgType.QtFatalMsg: logging.CRITICAL,
    }.get(mode, logging.WARNING)
    _qt_log.log(level, "%s", message)


def setup_logging(data_dir: Path, *, level: int = logging.INFO, verbose: bool = False) -> Path:
    """Send the root logger (and Qt's own messages) to ``<data dir>/logs/memdesk.log``.

    Called only by entry points. The terminal stays quiet (warnings and errors only)
    unless ``verbose`` (``memdesk -v``) or ``MEMDESK_LOG_TO_STDERR=1`` asks for details.
    """
    path = log_path(data_dir)
    paths.private_dir(path.parent)
    handler = PrivateRotatingFileHandler(path, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)-7s %(threadName)s %(name)s: %(message)s")
    )
    root = logging.getLogger()
    root.setLevel(level)
    loud = verbose or bool(os.environ.get("MEMDESK_LOG_TO_STDERR"))
    for existing in root.handlers:  # e.g. the CLI's basicConfig stderr handler
        if type(existing) is logging.StreamHandler:
            existing.setLevel(logging.NOTSET if loud else logging.WARNING)
    root.addHandler(handler)
    if os.environ.get("MEMDESK_LOG_TO_STDERR") and not any(
        type(h) is logging.StreamHandler for h in root.handlers
    ):
        root.addHandler(logging.StreamHandler())
    logging.captureWarnings(True)
    qInstallMessageHandler(_on_qt_message)
    return path
