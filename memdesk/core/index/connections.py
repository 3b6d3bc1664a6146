"""One index file's connections, and what keeps them honest: damage, swaps, rebuilds.

The sync path owns the writer (under ``sync_lock``), the search path the reader
(under ``read_lock``); SQLite's WAL lets them run at once. Another process may swap
a rebuilt index in, or move a damaged one aside: a connection that still sees the
old file is reopened before use (``Store.is_current``), since writes into it would
be lost. ``generation`` changes whenever the file under the connections changes, so
caches of its contents (the vector leg's in-memory copy) know to reload.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from memdesk.core import errors
from memdesk.core.index import recipe_cache
from memdesk.core.index.store import Store, remove_index_files, swap_in

log = logging.getLogger(__name__)

T = TypeVar("T")
SIDECAR_SUFFIXES = ("-wal", "-shm", "-journal")  # SQLite's files beside an index


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


class IndexFiles:
    """The writer and reader connections of the index at ``db_path``."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = Path(db_path)
        self.sync_lock = threading.RLock()
        self.read_lock = threading.RLock()
        self._writer: Store | None = None
        self._reader: Store | None = None
        self.generation = 0
        self._reader_generation = -1
        # Why the index must be rebuilt, when a read found it damaged; the next sync does.
        self.damage: str | None = None
        # Why the file found at open was moved aside (a fresh, empty index replaced it):
        # until a sync has indexed the notes' text into the fresh one, every search
        # would look like "no matches". Cleared once their keyword index is in.
        self.damaged_at_open: str | None = None

    # -- connections -------------------------------------------------------------
    def writer(self) -> Store:
        """The sync path's connection (call under ``sync_lock``), opened on first use.

        A damaged file found at open is moved aside and a fresh index started.
        """
        if self._writer is not None and not self._writer.is_current():
            self._reopen_swapped(writer=True)
        if self._writer is None:
            try:
                self._writer = Store(self.db_path)
            except errors.IndexCorrupt as exc:
                # The index is disposable: move the damaged file aside and start over.
                log.warning("%s; rebuilding from the Markdown files", exc)
                self._discard_corrupt()
                self._writer = Store(self.db_path)
                self.damaged_at_open = str(exc.__cause__ or exc)  # SQLite's words, not the path
        return self._writer

    def reader(self) -> Store:
        """The search path's connection (call under ``read_lock``)."""
        if self._reader is not None and not self._reader.is_current():
            self._reopen_swapped(writer=False)
        if self._reader is None or self._reader_generation != self.generation:
            if self._reader is not None:
                self._reader.close()
            self._reader = Store(self.db_path)
            self._reader_generation = self.generation
        return self._reader

    def close(self) -> None:
        for store in (self._reader, self._writer):
            if store is not None:
                store.close()
        self._reader = self._writer = None

    def _close_both(self) -> None:
        with self.read_lock:
            for store in (self._writer, self._reader):
                if store is not None:
                    store.close()
            self._writer = self._reader = None

    def _reopen_swapped(self, *, writer: bool) -> None:
        """Another process swapped a rebuilt index in (or moved a damaged one aside):
        our connections still see the old file, and writes into it would be lost.

        The writer is only replaced from the sync path (it holds the sync lock), the
        reader from the read path (it holds the read lock).
        """
        log.info("%s was replaced by another process; reopening it", self.db_path.name)
        with self.read_lock:
            if writer and self._writer is not None:
                self._writer.close()
                self._writer = None
            if self._reader is not None:
                self._reader.close()
                self._reader = None
            self.generation += 1  # what was cached from the old file is stale

    # -- damage --------------------------------------------------------------------
    def _discard_corrupt(self) -> None:
        """Move the damaged index aside (kept for a post-mortem; only the newest copy
        stays) so a fresh one can be built from the notes."""
        aside = self.db_path.with_name(self.db_path.name + f".corrupt-{time.time_ns()}")
        with contextlib.suppress(OSError):
            self.db_path.replace(aside)
            log.warning("the damaged index was moved to %s", aside)
        remove_index_files(self.db_path)
        recipe_cache.remove_for(self.db_path)
        self.generation += 1
        copies = sorted(self.db_path.parent.glob(self.db_path.name + ".corrupt-*"), key=_mtime)
        for old in copies[:-1]:
            with contextlib.suppress(OSError):
                old.unlink()

    def corrupt_copy(self) -> Path | None:
        """The newest damaged index moved aside, if any."""
        copies = sorted(self.db_path.parent.glob(self.db_path.name + ".corrupt-*"), key=_mtime)
        return copies[-1] if copies else None

    def reset_damaged(self, reason: str) -> Store:
        """Replace a damaged index by an empty one (under the sync lock)."""
        log.warning("index damaged (%s); rebuilding it from the notes", reason)
        with self.read_lock:
            self._close_both()
            self._discard_corrupt()
        self.damage = None
        return self.writer()

    # -- rebuilds -----------------------------------------------------------------
    def rebuild(self, fill: Callable[[Store], T]) -> T:
        """Build a fresh index next to the current one with ``fill`` and swap it in.

        A crash or cancel mid-rebuild leaves the current index in use; the fresh one
        starts with the current one's embedding cache, so unchanged text is not
        embedded again. Call under the sync lock.
        """
        self.remove_stale_rebuilds()
        # The builder's pid is in the name, so a leftover of a killed rebuild is known
        # for one at once (``remove_stale_rebuilds``).
        tmp = self.db_path.with_name(f"{self.db_path.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        fresh = Store(tmp)
        try:
            fresh.copy_cache_from(self.db_path)
            result = fill(fresh)
            fresh.checkpoint()
        except BaseException:
            fresh.close()
            remove_index_files(tmp)
            raise
        fresh.close()
        with self.read_lock:
            self._close_both()
            swap_in(tmp, self.db_path)
            recipe_cache.remove_for(self.db_path)
            self.generation += 1
        self.writer()
        return result

    def remove_stale_rebuilds(self, idle_seconds: float = 600.0) -> None:
        """Delete half-built indexes (and their -wal/-shm) left by a killed rebuild.

        One whose builder process is gone goes at once; one whose name carries no pid,
        or whose pid now belongs to another process, once untouched for ten minutes
        (a live rebuild writes its files continuously).
        """
        now = time.time()
        prefix = self.db_path.name + ".tmp-"
        for path in self.db_path.parent.glob(prefix + "*"):
            if path.name.endswith(SIDECAR_SUFFIXES):
                main = path.with_name(path.name.rsplit("-", 1)[0])
                if main.exists():
                    continue  # goes with its main file
                # else an orphan: a killed builder's main file went but its -wal/-shm
                # stayed (8 MB each), and nothing else would ever remove them.
            pid = path.name[len(prefix) :].split("-", 1)[0]
            try:
                stale = (pid.isdigit() and not _process_alive(int(pid))) or (
                    now - path.stat().st_mtime > idle_seconds
                )
            except OSError:
                continue
            if stale:
                if not path.name.endswith(SIDECAR_SUFFIXES):
                    self._keep_embeddings_of(path)
                remove_index_files(path)
                log.info("removed %s, left by a rebuild that did not finish", path.name)

    def _keep_embeddings_of(self, unfinished: Path) -> None:
        """Copy a killed rebuild's embedding cache into the current index, whose cache
        the next rebuild starts from: quitting during a long re-embed (a new model over
        thousands of notes) then loses nothing it had embedded."""
        try:
            kept = self.writer().copy_cache_from(unfinished)
        except errors.StoreError as exc:
            log.warning("could not keep the embeddings of %s: %s", unfinished.name, exc)
            return
        if kept:
            log.info("kept %d embeddings of %s", kept, unfinished.name)
