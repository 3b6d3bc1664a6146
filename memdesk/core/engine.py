"""The facade the GUI and CLI use: one workspace, its index and its embedder.

Threading contract: ``sync`` is the only writer and may run on a worker thread;
``fetch_candidates``/``search``/``status`` use a separate read connection (WAL) and
may run concurrently with it. Embedder calls are serialised by a lock because a
llama.cpp context is not re-entrant.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path
from typing import Callable, Literal, Sequence

from memdesk.core import embedder as embedder_mod
from memdesk.core import hits as hits_mod
from memdesk.core import settings as settings_mod

Scope = Literal["all", "shared"]  # "shared" = a group chat: no MEMORY.md / memory.md
ProgressFn = Callable[["SyncProgress"], None]
CancelledFn = Callable[[], bool]


@dataclasses.dataclass(frozen=True)
class SyncProgress:
    """Reported after each file during ``Engine.sync``."""

    files_done: int
    files_total: int
    chunks_done: int
    path: str  # workspace-relative path just handled ("" at start/end)
    phase: str  # "scan" | "index" | "embed" | "finish"


@dataclasses.dataclass(frozen=True)
class FileFailure:
    path: str
    reason: str


@dataclasses.dataclass(frozen=True)
class SyncReport:
    """What one sync did; ``to_json`` is the ``memdesk index --json`` contract."""

    files: int
    chunks: int
    embedded: int
    cache_hits: int
    removed: int
    seconds: float
    mode: hits_mod.Mode
    indexed_paths: tuple[str, ...] = ()
    removed_paths: tuple[str, ...] = ()
    failures: tuple[FileFailure, ...] = ()
    rebuilt: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "files": self.files, "chunks": self.chunks, "embedded": self.embedded,
            "cache_hits": self.cache_hits, "removed": self.removed,
            "seconds": round(self.seconds, 3), "mode": self.mode,
            "failures": [dataclasses.asdict(f) for f in self.failures],
        }


@dataclasses.dataclass(frozen=True)
class IndexStatus:
    """``memdesk status`` and the GUI status bar."""

    workspace: str
    files: int
    chunks: int
    dirty_files: tuple[str, ...]
    db_path: str
    db_bytes: int
    embedder: dict[str, object] | None
    dims: int | None
    fts_available: bool
    vector_available: bool  # sqlite-vec loaded (else numpy scan)
    mode: hits_mod.Mode
    fallback_reason: str | None
    failures: tuple[FileFailure, ...] = ()
    last_sync: dt.datetime | None = None


@dataclasses.dataclass(frozen=True)
class SearchResult:
    pool: hits_mod.CandidatePool
    hits: tuple[hits_mod.Hit, ...]
    settings: settings_mod.SearchSettings
