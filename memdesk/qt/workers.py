"""QObject workers that run memdesk's long jobs on QThreads and report by signals.

The wiring follows Mu's (``thread.started -> worker.run``, ``worker.done ->
thread.quit``), adapted to PySide's object ownership (see ``start_in_thread``).
Workers never touch widgets; they only emit plain values (core dataclasses,
exceptions) that the GUI thread turns into pixels.

Searches are different: they are short and frequent, so one long-lived
``ReaderWorker`` sits on its own thread and serves requests one at a time, each
tagged with an id so the GUI can drop answers to queries the user has already
typed past.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

from memdesk.core import engine as engine_mod
from memdesk.core import errors
from memdesk.core.index import workspace as workspace_mod
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import settings as settings_mod

log = logging.getLogger(__name__)


def start_in_thread(worker: QObject, *, name: str, on_finished: Callable[[], None] | None = None) -> QThread:
    """Move ``worker`` to a new QThread, start it and return the thread.

    The worker must have a ``run`` slot and a ``done`` signal emitted last, whatever
    the outcome. Two deliberate departures from Mu's wiring:
    ``done -> quit`` is a direct connection, because a queued ``quit`` needs the GUI
    event loop and ``thread.wait()`` on shutdown would deadlock; and there is no
    ``deleteLater``: in PySide the Python wrappers own both objects, so the owner keeps
    references until ``thread.finished``, calls ``release_thread`` and lets them go
    (a ``deleteLater`` as well would free them twice, under a live wrapper).
    """
    thread = QThread()
    thread.setObjectName(name)
    worker.moveToThread(thread)
    thread.started.connect(worker.run)  # type: ignore[attr-defined]
    worker.done.connect(thread.quit, Qt.ConnectionType.DirectConnection)  # type: ignore[attr-defined]
    if on_finished is not None:
        # Connected before start(): a short job can finish before this function returns.
        thread.finished.connect(on_finished)
    thread.start()
    return thread


def release_thread(thread: QThread) -> None:
    """Call on ``thread.finished`` before dropping references: ``finished`` is emitted
    from the thread just before it really ends, and freeing a running QThread aborts."""
    thread.wait()


class SyncWorker(QObject):
    """Brings the index up to date (optionally swapping the embedder first).

    Signals:
        progress(object): an ``engine.SyncProgress`` after each file.
        finished(object): the ``engine.SyncReport`` of a completed sync.
        failed(object): the exception that stopped it (``errors.Cancelled`` when cancelled).
        done(): emitted last, whatever happened; the thread quits on it.
    """

    progress = Signal(object)
    finished = Signal(object)
    failed = Signal(object)
    done = Signal()

    def __init__(
        self,
        engine: engine_mod.Engine,
        *,
        paths: list[str] | None = None,
        rebuild: bool = False,
        model: Path | str | object | None = None,
        set_model: bool = False,
    ) -> None:
        super().__init__()
        self._engine = engine
        self._paths = paths
        self._rebuild = rebuild
        self._model = model
        self._set_model = set_model
        # A plain Event, not a signal: the worker thread is busy inside sync() and
        # would never process a queued cancel slot until it returned.
        self._cancel = threading.Event()
        self._last_emit = 0.0

    def cancel(self) -> None:
        """Ask the sync to stop between files (callable from any thread)."""
        self._cancel.set()

    def _on_progress(self, progress: engine_mod.SyncProgress) -> None:
        # Throttle: 2,000 queued signals per sync would cost the GUI thread more
        # than the progress bar is worth; the final tick always goes through.
        now = time.monotonic()
        if now - self._last_emit >= 0.05 or progress.files_done >= progress.files_total:
            self._last_emit = now
            self.progress.emit(progress)

    @Slot()
    def run(self) -> None:
        try:
            if self._set_model:
                self._engine.set_model(self._model)  # type: ignore[arg-type]
            report = self._engine.sync(
                rebuild=self._rebuild,
                paths=self._paths,
                progress=self._on_progress,
                cancelled=self._cancel.is_set,
            )
        except Exception as exc:  # every failure reaches the UI as a value
            if not isinstance(exc, errors.Cancelled):
                log.exception("sync failed")
            self.failed.emit(exc)
        else:
            self.finished.emit(report)
        finally:
            self.done.emit()


class ModelLoadWorker(QObject):
    """Loads a lazy embedder's weights into llama.cpp off the GUI thread.

    The window opens over keyword search at once; this makes the model ready
    for hybrid search in the background.

    Signals:
        finished(): the weights are loaded.
        failed(object): the exception (the engine then stays keyword-only).
        done(): emitted last.
    """

    finished = Signal()
    failed = Signal(object)
    done = Signal()

    def __init__(self, load: Callable[[], None]) -> None:
        super().__init__()
        self._load = load

    @Slot()
    def run(self) -> None:
        try:
            self._load()
        except Exception as exc:
            log.warning("the embedding model could not be loaded: %s", exc)
            self.failed.emit(exc)
        else:
            self.finished.emit()
        finally:
            self.done.emit()


class ModelBuildWorker(QObject):
    """Builds the default GGUF embedding model (minutes of CPU) off the GUI thread.

    Signals:
        progress(str): a human-readable line from the builder.
        finished(object): the ``Path`` of the built model.
        failed(object): the exception.
        done(): emitted last.
    """

    progress = Signal(str)
    finished = Signal(object)
    failed = Signal(object)
    done = Signal()

    def __init__(self, build: Callable[[Callable[[Any], None]], Path]) -> None:
        super().__init__()
        self._build = build

    @Slot()
    def run(self) -> None:
        try:
            path = self._build(lambda message: self.progress.emit(str(message)))
        except Exception as exc:
            log.exception("model build failed")
            self.failed.emit(exc)
        else:
            self.finished.emit(path)
        finally:
            self.done.emit()


@dataclasses.dataclass(frozen=True)
class SearchRequest:
    """An immutable query built on the GUI thread; ``request_id`` orders them."""

    request_id: int
    query: str
    settings: settings_mod.SearchSettings
    scope: engine_mod.Scope


@dataclasses.dataclass(frozen=True)
class SearchResponse:
    request_id: int
    request: SearchRequest
    pool: hits_mod.CandidatePool | None
    hits: tuple[hits_mod.Hit, ...]
    error: BaseException | None = None
    seconds: float = 0.0


@dataclasses.dataclass(frozen=True)
class WorkspaceSnapshot:
    """What the tree and the status bar show, read off the GUI thread."""

    request_id: int
    files: tuple[str, ...]  # workspace-relative paths in discovery order
    states: dict[str, tuple[str, str]]
    status: engine_mod.IndexStatus | None
    error: BaseException | None = None


class ReaderWorker(QObject):
    """Serves searches and status reads on one long-lived thread (the read connection).

    Signals:
        searched(object): a ``SearchResponse``.
        snapshot_ready(object): a ``WorkspaceSnapshot``.
    """

    searched = Signal(object)
    snapshot_ready = Signal(object)

    def __init__(self, engine: engine_mod.Engine, *, rank: Callable[..., list[hits_mod.Hit]]) -> None:
        super().__init__()
        self._engine = engine
        self._rank = rank
        self._latest_search = 0
        self._lock = threading.Lock()

    def note_latest(self, request_id: int) -> None:
        """Record the newest request id (GUI thread) so stale queued ones are skipped."""
        with self._lock:
            self._latest_search = max(self._latest_search, request_id)

    def _is_stale(self, request_id: int) -> bool:
        with self._lock:
            return request_id < self._latest_search

    @Slot(object)
    def search(self, request: SearchRequest) -> None:
        if self._is_stale(request.request_id):
            return  # the user typed on; answering this would only be thrown away
        started = time.perf_counter()
        try:
            pool = self._engine.fetch_candidates(
                request.query, request.settings, scope=request.scope, wait_for_model=False
            )
            hits = tuple(self._rank(pool, request.settings))
        except Exception as exc:
            if not isinstance(exc, errors.MemdeskError):
                log.exception("search failed for %r", request.query)
            self.searched.emit(SearchResponse(request.request_id, request, None, (), exc))
            return
        self.searched.emit(
            SearchResponse(request.request_id, request, pool, hits, None, time.perf_counter() - started)
        )

    @Slot(int)
    def snapshot(self, request_id: int) -> None:
        root = self._engine.workspace
        try:
            files = tuple(
                workspace_mod.rel_path(root, p)
                for p in workspace_mod.list_memory_files(root, self._engine.extra_paths)
            )
            states = self._engine.file_states()
            status = self._engine.status()
        except Exception as exc:
            log.exception("status read failed")
            self.snapshot_ready.emit(WorkspaceSnapshot(request_id, (), {}, None, exc))
            return
        self.snapshot_ready.emit(WorkspaceSnapshot(request_id, files, states, status))
