"""One ``History`` per workspace per process, shared by everything that captures.

The index's sync, the safe save, note create/rename/trash and ``memory_append`` all
record into the same store; they find it here by the workspace's root instead of
having it handed down through the GUI's layers. A store that cannot be opened (a
read-only data dir) is reported once and capture is skipped: nothing else stops.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from pathlib import Path

from memdesk.core import errors, paths
from memdesk.core.history.store import History, open_history

log = logging.getLogger(__name__)

_KEPT = 8  # stores kept open; one dropped is closed when its last user lets go of it
_lock = threading.Lock()
_open: OrderedDict[str, History] = OrderedDict()
_failed: set[str] = set()


def for_workspace(root: Path) -> History | None:
    """The history of the workspace at ``root``; None when its store cannot be opened."""
    try:
        key = str(paths.history_path_for(root))
    except OSError as exc:
        log.warning("no version history for %s: %s", root, exc)
        return None
    with _lock:
        found = _open.get(key)
        if found is not None:
            _open.move_to_end(key)
            return found
        try:
            found = open_history(root)
        except (errors.MemdeskError, OSError) as exc:
            if key not in _failed:
                _failed.add(key)
                log.warning("no version history for %s: %s", root, exc)
            return None
        _failed.discard(key)
        _open[key] = found
        while len(_open) > _KEPT:
            _open.popitem(last=False)
        return found


def forget_all() -> None:
    """Drop every shared store (tests; the app when it quits): the next use reopens."""
    with _lock:
        _open.clear()
        _failed.clear()
