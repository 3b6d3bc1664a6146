"""watchdog → Qt bridge: file events from the observer thread become one debounced signal.

watchdog calls its handler on its own thread; the handler only emits a signal of a
QObject that lives on the GUI thread (so Qt queues the call across threads). A
single-shot timer on the GUI thread then gathers a burst of events (an editor's
save is often delete + create + modify) into one ``paths_changed`` emission, which
the window turns into one incremental index job.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from memdesk.core.index import workspace as workspace_mod

log = logging.getLogger(__name__)

DEBOUNCE_MS = 400


def is_watched_rel(rel: str) -> bool:
    """Memory notes only: our own atomic-save temp files and other files are noise.

    A folder under ``memory/`` that was deleted or moved arrives with a trailing ``/``.
    """
    if rel.endswith("/"):
        return rel == "memory/" or rel.startswith("memory/")
    return rel.endswith(".md") and (rel in workspace_mod.ROOT_FILES or rel.startswith("memory/"))


class _Handler(FileSystemEventHandler):
    def __init__(self, bridge: WatchBridge) -> None:
        super().__init__()
        self._bridge = bridge

    def on_events_lost(self, event: FileSystemEvent) -> None:
        # The kernel's queue overflowed (watchdog 7.1 reports it here only, never to
        # ``on_any_event``): which notes changed is unknown, so everything is rescanned.
        log.warning("file events under %s were lost; the workspace is scanned again", event.src_path)
        self._bridge.lost_event.emit()

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        if event.is_directory and event.event_type not in ("deleted", "moved"):
            return  # folder mtime noise; the files inside report themselves
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if raw:
                path = os.fsdecode(raw)
                if event.is_directory:
                    path = path.rstrip(os.sep) + "/"  # marks "a whole folder went"
                # Emitting from the observer thread: Qt queues it to the bridge's thread.
                self._bridge.raw_event.emit(path)


class WatchBridge(QObject):
    """Watches a workspace and reports changed memory notes, debounced.

    Signals:
        raw_event(str): absolute path, emitted from the watchdog thread (internal).
        paths_changed(list): workspace-relative paths changed, added or deleted since
            the last emission (folders end in ``/``); emitted on the GUI thread after
            ``DEBOUNCE_MS`` of quiet.
        lost_event(): emitted from the watchdog thread when events were lost (internal).
        events_lost(): some changes were not reported (the event queue overflowed):
            only a full scan finds them. On the GUI thread.
    """

    raw_event = Signal(str)
    paths_changed = Signal(list)
    lost_event = Signal()
    events_lost = Signal()

    def __init__(self, root: Path, parent: QObject | None = None, *, debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self._root = Path(root)
        self._real_root = os.path.realpath(self._root)
        self._pending: set[str] = set()
        self._observer: BaseObserver | None = None
        self._timer = QTimer(self)
        self._timer.setObjectName("watch-debounce-timer")
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._on_timer_timeout)
        self.raw_event.connect(self._on_raw_event)
        self.lost_event.connect(self._on_lost_event)

    @property
    def root(self) -> Path:
        return self._root

    @property
    def watching(self) -> bool:
        """True while the observer runs (False: it could not start, e.g. inotify limits)."""
        return self._observer is not None

    def start(self) -> None:
        if self._observer is not None:
            return
        observer = Observer()
        observer.daemon = True
        try:
            observer.schedule(_Handler(self), str(self._root), recursive=True)
            observer.start()
        except OSError as exc:  # inotify limits etc.: keep working without live updates
            log.warning("cannot watch %s: %s", self._root, exc)
            return
        self._observer = observer

    def stop(self) -> None:
        self._timer.stop()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=2)
            self._observer = None

    @Slot(str)
    def _on_raw_event(self, path: str) -> None:
        for base in (str(self._root), self._real_root):
            try:
                rel = os.path.relpath(path, base).replace(os.sep, "/")
                rel += "/" if path.endswith("/") else ""
            except ValueError:
                continue
            if not rel.startswith("..") and is_watched_rel(rel):
                self._pending.add(rel)
                self._timer.start()  # restarts: fire only after a quiet spell
                return

    @Slot()
    def _on_lost_event(self) -> None:
        self._pending.clear()  # the full scan covers them
        self._timer.stop()
        self.events_lost.emit()

    @Slot()
    def _on_timer_timeout(self) -> None:
        if self._pending:
            paths = sorted(self._pending)
            self._pending.clear()
            self.paths_changed.emit(paths)
