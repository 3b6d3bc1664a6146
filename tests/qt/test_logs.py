"""The GUI's log file: owner-only whatever the umask, its rotations too."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from memdesk.qt import logs


def test_the_log_and_its_rotations_are_owner_only_under_umask_000(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = logging.getLogger()
    before = list(root.handlers)
    old = os.umask(0)
    try:
        path = logs.setup_logging(tmp_path)
        handler = next(h for h in root.handlers if h not in before)
        logging.getLogger("memdesk.test").warning("private note name: budget.md")
        assert isinstance(handler, logs.PrivateRotatingFileHandler)
        handler.doRollover()
        logging.getLogger("memdesk.test").warning("after the rollover")
        handler.flush()
    finally:
        os.umask(old)
        for h in list(root.handlers):
            if h not in before:
                root.removeHandler(h)
                h.close()
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in path.parent.iterdir()}
    assert set(modes) == {"memdesk.log", "memdesk.log.1"} and set(modes.values()) == {0o600}, modes
