"""The temporary files memdesk's model writers work in, and what a killed writer left.

A model file (~100 MB) and its encoder file (~90 MB) are each written under a
temporary name beside their final one and renamed over it when complete. A writer
holds an exclusive lock (``flock``) on its temporary file for as long as it writes,
so a clean-up in another process (the next build, a bundle's next start) can tell a
killed writer's file, which it removes, from a running writer's, which it keeps.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no flock; a partial file is removed by the next writer only
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)


def lock(fd: int, *, wait: bool) -> bool:
    """Hold an exclusive lock on the open file ``fd``. False when another writer holds it."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        return False
    return True


def remove_unlocked(folder: Path, pattern: re.Pattern[str]) -> list[Path]:
    """Delete the files in ``folder`` whose whole name matches ``pattern`` (a writer's own
    temporary names, and nothing else): only regular files, never through a symlink, and
    never one a running writer still holds (its lock). Returns what was removed."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not (pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False)):
            continue
        try:
            fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue
        try:
            if not lock(fd, wait=False):
                continue  # a writer is working in it
            # Gone meanwhile, a read-only folder, Windows's open file: left, never an error.
            os.unlink(entry.path)
            removed.append(Path(entry.path))
        except OSError:
            continue
        finally:
            os.close(fd)
    for path in removed:
        logger.info("removed the partial model file %s", path)
    return removed


def holds(fd: int, path: Path) -> bool:
    """Whether the locked descriptor ``fd`` is still the file named ``path``: a clean-up
    may have removed that file between its creation and the lock."""
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


def open_locked(path: Path) -> int:
    """Create (or truncate) the owner-only file ``path`` and return a descriptor holding
    its lock, for as long as the caller writes it under that name (it closes it)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    while True:
        fd = os.open(path, flags, 0o600)
        lock(fd, wait=True)
        if holds(fd, path):
            return fd
        os.close(fd)
