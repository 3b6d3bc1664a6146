"""Vectors of the OpenClaw profiles' own indexes, kept on disk beside the main index.

The ``openclaw-2026.4``/``-2026.9`` profiles embed every chunk the way that release
does (bare text, one sequence per llama.cpp call): minutes for a large workspace. The
main index cannot hold those vectors (its one writer is the sync, and its chunks are
not the release's), so they live in a small database of their own,
``<index>.openclaw-vectors`` (one row per recipe and chunk-text hash): the next app
start or ``memdesk search --profile openclaw-2026.4`` reads them instead of
re-embedding. Only the profiles' users pay for it.

Losing this file loses nothing but time, so every failure (read-only or full disk,
a damaged file, another process holding the lock) is logged and the profile goes on
with the vectors it has in memory.

The file lives as long as its index file: when the index is rebuilt (``memdesk index
--rebuild``, a model change) or set aside as damaged, ``remove_for`` deletes it too
(``core/index/connections.py``). A rebuild is the one moment an index starts over, so
it is also when the vectors of other models and recipes (which ``put`` never prunes)
go; a damaged index may mean a damaged disk, and a fresh index starts with fresh
vectors. The profiles embed again on their next search. A cache whose file was
removed or replaced (by this process or another) reopens the new one on next use.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from memdesk.core import errors
from memdesk.core.base import sqlite
from memdesk.core.index.store import file_identity, remove_index_files

log = logging.getLogger(__name__)

SUFFIX = ".openclaw-vectors"
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS recipe_vectors (provider_key TEXT NOT NULL, hash TEXT NOT NULL, "
    "dims INTEGER NOT NULL, embedding BLOB NOT NULL, PRIMARY KEY (provider_key, hash)) WITHOUT ROWID"
)
_CHUNK = 500  # hashes per IN (...) look-up


def path_for(index_path: Path) -> Path:
    return index_path.with_name(index_path.name + SUFFIX)


def remove_for(index_path: Path) -> bool:
    """Delete the vectors file of ``index_path`` (with its -wal/-shm); True if there was one."""
    path = path_for(Path(index_path))
    existed = path.exists()
    remove_index_files(path)
    if existed:
        log.info("removed %s with its index", path.name)
    return existed


class RecipeCache:
    """(recipe provider key, text hash) -> float32 vector, in one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._conn: sqlite.Connection | None = None
        self._opened: tuple[int, int] | None = None  # (device, inode) of the file open
        self._lock = threading.Lock()
        self._broken = False

    def _connection(self) -> sqlite.Connection | None:
        if (self._conn is not None or self._broken) and file_identity(self.path) != self._opened:
            # Removed with its index (a rebuild, a damaged index set aside), here or in
            # another process: writing on would go into a deleted file, and a damaged
            # file that was replaced deserves another try.
            if self._conn is not None:
                self._conn.close()
            self._conn = None
            self._broken = False
        if self._broken:
            return None
        if self._conn is None:
            try:
                conn = sqlite.connect(self.path)
                conn.setbusytimeout(sqlite.BUSY_TIMEOUT_MS)
                for _ in sqlite.each(conn, "PRAGMA journal_mode=WAL", where=self.path):
                    pass
                sqlite.rows(conn, SCHEMA, where=self.path)
                self._conn = conn
                self._opened = file_identity(self.path)
            except (errors.MemdeskError, OSError) as exc:
                log.warning("OpenClaw profile vectors not kept on disk (%s): %s", self.path, exc)
                self._broken = True
                self._opened = file_identity(self.path)
                return None
        return self._conn

    def replaced(self) -> bool:
        """True when the file this cache wrote into has since been removed or replaced
        (its index was rebuilt or set aside): the caller's vectors in memory belong in
        the new file."""
        with self._lock:
            return self._conn is not None and file_identity(self.path) != self._opened

    def get(self, provider_key: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._lock:
            conn = self._connection()
            if conn is None:
                return out
            try:
                for start in range(0, len(hashes), _CHUNK):
                    part = list(hashes[start : start + _CHUNK])
                    marks = ", ".join("?" for _ in part)
                    for h, dims, blob in sqlite.each(
                        conn,
                        f"SELECT hash, dims, embedding FROM recipe_vectors WHERE provider_key = ? "
                        f"AND hash IN ({marks})",
                        [provider_key, *part],
                        where=self.path,
                    ):
                        vec = np.frombuffer(bytes(blob), dtype=np.float32)
                        if vec.shape == (int(dims),):
                            out[str(h)] = vec
            except errors.MemdeskError as exc:
                log.warning("OpenClaw profile vectors could not be read (%s): %s", self.path, exc)
        return out

    def put(self, provider_key: str, vectors: Mapping[str, np.ndarray], keep: Sequence[str]) -> None:
        """Store ``vectors``; drop this recipe's rows whose hash is not in ``keep``
        (chunks edited away), so the file stays the size of the current index."""
        with self._lock:
            conn = self._connection()
            if conn is None:
                return
            try:
                with conn:
                    for h, vec in vectors.items():
                        arr = np.ascontiguousarray(vec, dtype=np.float32)
                        sqlite.rows(
                            conn,
                            "INSERT OR REPLACE INTO recipe_vectors VALUES (?, ?, ?, ?)",
                            (provider_key, h, int(arr.shape[0]), arr.tobytes()),
                            where=self.path,
                        )
                    wanted = set(keep)
                    stale = [
                        str(h)
                        for (h,) in sqlite.rows(
                            conn,
                            "SELECT hash FROM recipe_vectors WHERE provider_key = ?",
                            (provider_key,),
                            where=self.path,
                        )
                        if str(h) not in wanted
                    ]
                    for h in stale:
                        sqlite.rows(
                            conn,
                            "DELETE FROM recipe_vectors WHERE provider_key = ? AND hash = ?",
                            (provider_key, h),
                            where=self.path,
                        )
            except errors.MemdeskError as exc:
                log.warning("OpenClaw profile vectors not saved (%s): %s", self.path, exc)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
