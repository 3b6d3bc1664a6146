"""What a sync did and how the index is: the ``memdesk index``/``status --json`` contracts,
and reading the index's health (``read_status``) and each note's state (``file_states``)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Sequence
from pathlib import Path

from memdesk.core import errors
from memdesk.core.base.modes import Mode
from memdesk.core.embed.embedder import Embedder
from memdesk.core.index import indexer, workspace
from memdesk.core.index.connections import IndexFiles


@dataclasses.dataclass(frozen=True)
class SyncProgress:
    """Reported after each file, then after each group of chunks embedded, during a sync.

    Phases: "scan", "index" (a file's chunks and keyword index written), "keyword"
    (every changed file is keyword-searchable now), "embed" (``embedded`` of
    ``to_embed`` chunks have their vectors), "windows" (every chunk has its vector, so
    the workspace is searchable by meaning; ``embedded`` of ``to_embed`` chunks have
    their passage windows), "finish".
    """

    files_done: int
    files_total: int
    chunks_done: int
    path: str  # workspace-relative path just handled ("" at start/end)
    phase: str
    embedded: int = 0
    to_embed: int = 0


ProgressFn = Callable[[SyncProgress], None]
CancelledFn = Callable[[], bool]


@dataclasses.dataclass(frozen=True)
class FileFailure:
    path: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "reason": self.reason}


@dataclasses.dataclass(frozen=True)
class SyncReport:
    """What one sync did; ``to_json`` is the ``memdesk index --json`` contract."""

    files: int
    chunks: int
    embedded: int
    cache_hits: int
    removed: int
    seconds: float
    mode: Mode
    indexed_paths: tuple[str, ...] = ()
    removed_paths: tuple[str, ...] = ()
    failures: tuple[FileFailure, ...] = ()
    skipped: tuple[FileFailure, ...] = ()  # paths discovery passed over (symlinks, odd names...)
    rebuilt: bool = False
    repaired: str | None = None  # the damage that made this sync rebuild the index

    def to_json(self) -> dict[str, object]:
        return {
            "files": self.files,
            "chunks": self.chunks,
            "embedded": self.embedded,
            "cache_hits": self.cache_hits,
            "removed": self.removed,
            "seconds": round(self.seconds, 3),
            "mode": self.mode,
            "failures": [f.to_json() for f in self.failures],
            "skipped": [f.to_json() for f in self.skipped],
        }


@dataclasses.dataclass(frozen=True)
class IndexStatus:
    """``memdesk status`` and the GUI status bar; ``to_json`` is the ``status --json`` contract."""

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
    mode: Mode
    fallback_reason: str | None
    failures: tuple[FileFailure, ...] = ()
    last_sync: dt.datetime | None = None
    skipped: tuple[FileFailure, ...] = ()
    damage: str | None = None  # why the index is being rebuilt, if it was found damaged
    corrupt_copy: str | None = None  # where the last damaged index was moved aside

    def to_json(self) -> dict[str, object]:
        return {
            "workspace": self.workspace,
            "files": self.files,
            "chunks": self.chunks,
            "dirty_files": list(self.dirty_files),
            "db_path": self.db_path,
            "db_bytes": self.db_bytes,
            "embedder": self.embedder,
            "dims": self.dims,
            "fts_available": self.fts_available,
            "vector_available": self.vector_available,
            "mode": self.mode,
            "fallback_reason": self.fallback_reason,
            "failures": [f.to_json() for f in self.failures],
            "skipped": [f.to_json() for f in self.skipped],
            "damage": self.damage,
            "corrupt_copy": self.corrupt_copy,
        }


def _optional_str(value: object | None) -> str | None:
    return None if value is None else str(value)


def read_status(
    index: IndexFiles,
    root: Path,
    extra_paths: Sequence[Path | str],
    embedder: Embedder | None,
    fallback_reason: str | None,
    last_sync: dt.datetime | None,
    *,
    verify: bool = False,
    kept: workspace.KeptListing | None = None,
) -> IndexStatus:
    """Counts, mode and health; ``verify`` also reads every page of the index.

    ``kept``: the workspace's listing as a watcher keeps it (``Engine.watched``); the
    notes not indexed yet are then what the listing and the index disagree on, with no
    note stat'ed. A damaged index is reported (and remembered in ``index.damage`` for
    the next sync to rebuild), never raised.
    """
    mode: Mode = "hybrid" if embedder is not None else "fts"
    # Once, for the dirty and the skipped.
    scan = kept.scan if kept is not None else workspace.scan_memory_files(root, extra_paths)
    with index.read_lock:
        try:
            store = index.reader()
            files, chunks = store.counts()
            damage = index.damage or index.damaged_at_open or (store.integrity_problem() if verify else None)
            # Inside the try: a files row of the wrong type is damage found here.
            if kept is None:
                known = store.file_rows()
                dirty = indexer.dirty_files(store, root, extra_paths, scan=scan, known=known)
                failures = tuple(
                    FileFailure(p, r.reason or "") for p, r in known.items() if r.status == "failed"
                )
            else:
                states = store.file_statuses()
                dirty = _kept_dirty(kept, states)
                failures = tuple(FileFailure(p, r or "") for p, (st, r) in states.items() if st == "failed")
        except (errors.IndexCorrupt, errors.QueryRejected) as exc:
            index.damage = str(exc)
            return _damaged_status(index, root, embedder, fallback_reason, mode, str(exc))
        vec_ok, vec_err = store.vec_available, store.vec_error
        size = store.size_bytes()
    skipped = tuple(FileFailure(s.path, s.reason) for s in scan.skipped)
    ident = embedder.identity if embedder is not None else None
    reason = fallback_reason if ident is None else None
    if ident is not None and not vec_ok:
        reason = f"vectors use a numpy scan: {vec_err}"
    return IndexStatus(
        workspace=str(root),
        files=files,
        chunks=chunks,
        dirty_files=tuple(dirty),
        db_path=str(index.db_path),
        db_bytes=size,
        embedder=ident.to_json() if ident else None,
        dims=ident.dims if ident else None,
        fts_available=True,
        vector_available=vec_ok,
        mode=mode,
        fallback_reason=reason,
        failures=failures,
        last_sync=last_sync,
        skipped=skipped,
        damage=damage,
        corrupt_copy=_optional_str(index.corrupt_copy()),
    )


def _damaged_status(
    index: IndexFiles,
    root: Path,
    embedder: Embedder | None,
    fallback_reason: str | None,
    mode: Mode,
    damage: str,
) -> IndexStatus:
    return IndexStatus(
        workspace=str(root),
        files=0,
        chunks=0,
        dirty_files=(),
        db_path=str(index.db_path),
        db_bytes=0,
        embedder=embedder.identity.to_json() if embedder is not None else None,
        dims=embedder.identity.dims if embedder is not None else None,
        fts_available=True,
        vector_available=False,
        mode=mode,
        fallback_reason=fallback_reason,
        damage=damage,
        corrupt_copy=_optional_str(index.corrupt_copy()),
    )


def file_states(
    index: IndexFiles,
    root: Path,
    extra_paths: Sequence[Path | str],
    *,
    kept: workspace.KeptListing | None = None,
) -> dict[str, tuple[str, str]]:
    """rel path -> ("indexed" | "pending" | "failed", reason) for every listed file
    (``kept``: as ``read_status``)."""
    # Once, for the dirty and the states.
    scan = kept.scan if kept is not None else workspace.scan_memory_files(root, extra_paths)
    with index.read_lock:
        store = index.reader()
        if kept is None:
            known = {p: (r.status, r.reason) for p, r in store.file_rows().items()}
            dirty = set(indexer.dirty_files(store, root, extra_paths, scan=scan))
        else:
            known = store.file_statuses()
            dirty = set(_kept_dirty(kept, known))
    rels = kept.notes if kept is not None else (workspace.rel_path(root, p) for p in scan.files)
    out: dict[str, tuple[str, str]] = {}
    for rel in rels:
        row = known.get(rel)
        if rel in dirty or row is None:
            out[rel] = ("pending", "changed since the last index")
        elif row[0] == "failed":
            out[rel] = ("failed", row[1] or "could not be indexed")
        else:
            out[rel] = ("indexed", "")
    return out


def _kept_dirty(kept: workspace.KeptListing, states: dict[str, tuple[str, str | None]]) -> list[str]:
    """The notes not indexed yet by a kept listing (``Engine.watched``): those the listing
    and the index disagree on. Every change was synced by name as it came, so no note
    is stat'ed; one nobody named waits for the next full scan."""
    return sorted(
        [rel for rel in states if rel not in kept.notes] + [rel for rel in kept.notes if rel not in states]
    )
