"""Vectors of the OpenClaw profiles' own indexes, kept on disk beside the main index.

The ``openclaw-2026.4``/``-2026.9`` profiles embed every chunk the way that release
does (bare text, one sequence per llama.cpp call): minutes for a large workspace. The
main index cannot hold those vectors (its one writer is the sync, and its chunks are
not the release's), so they live in a small database of their own,
``<index>.openclaw-vectors`` (one row per recipe and chunk-text hash): the next app
start or ``memdesk search --profile openclaw-2026.4`` reads them instead of
re-embedding. Only the profiles' users pay for it.

Each row also carries its *vector key* (``openclaw_recipe.vector_key``: the model's
digest, how it was computed and the exact token ids): two recipes that hand the model
the same tokens under the same conditions get the same vector, so a profile looks a
text up by that key too (``get_by_keys``) and takes another profile's vector instead
of embedding it again.

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
    # Before vector keys the rows had none; they are only time to lose.
    "DROP TABLE IF EXISTS recipe_vectors",
    "CREATE TABLE IF NOT EXISTS recipe_vectors_v2 (provider_key TEXT NOT NULL, hash TEXT NOT NULL, "
    "vector_key TEXT NOT NULL, dims INTEGER NOT NULL, embedding BLOB NOT NULL, "
    "PRIMARY KEY (provider_key, hash)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS recipe_vectors_v2_key ON recipe_vectors_v2 (vector_key)",
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
                for statement in SCHEMA:
                    sqlite.rows(conn, statement, where=self.path)
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

    def get(self, provider_key: str, hashes: Sequence[str]) -> dict[str, tuple[str, np.ndarray]]:
        """hash -> (vector key, vector) of this recipe's rows for ``hashes``."""
        out: dict[str, tuple[str, np.ndarray]] = {}
        for h, key, vec in self._select("provider_key = ? AND hash", [provider_key], hashes):
            out[h] = (key, vec)
        return out

    def get_by_keys(self, vector_keys: Sequence[str]) -> dict[str, np.ndarray]:
        """vector key -> vector, whichever recipe stored it (the same tokens computed
        the same way: see the module docstring)."""
        return {key: vec for _h, key, vec in self._select("vector_key", [], vector_keys)}

    def _select(
        self, where: str, params: list[str], values: Sequence[str]
    ) -> list[tuple[str, str, np.ndarray]]:
        out: list[tuple[str, str, np.ndarray]] = []
        with self._lock:
            conn = self._connection()
            if conn is None:
                return out
            try:
                for start in range(0, len(values), _CHUNK):
                    part = list(values[start : start + _CHUNK])
                    marks = ", ".join("?" for _ in part)
                    for h, key, dims, blob in sqlite.each(
                        conn,
                        f"SELECT hash, vector_key, dims, embedding FROM recipe_vectors_v2 "
                        f"WHERE {where} IN ({marks})",
                        [*params, *part],
                        where=self.path,
                    ):
                        vec = np.frombuffer(bytes(blob), dtype=np.float32)
                        if vec.shape == (int(dims),):
                            out.append((str(h), str(key), vec))
            except errors.MemdeskError as exc:
                log.warning("OpenClaw profile vectors could not be read (%s): %s", self.path, exc)
        return out

    def put(
        self,
        provider_key: str,
        vectors: Mapping[str, tuple[str, np.ndarray]],
        keep: Sequence[str] | None,
    ) -> None:
        """Store ``vectors`` (hash -> (vector key, vector)); with ``keep``, drop this
        recipe's rows whose hash is not in it (chunks edited away), so the file stays
        the size of the current index (None: a partial write, prune nothing)."""
        with self._lock:
            conn = self._connection()
            if conn is None:
                return
            try:
                with conn:
                    for h, (key, vec) in vectors.items():
                        arr = np.ascontiguousarray(vec, dtype=np.float32)
                        sqlite.rows(
                            conn,
                            "INSERT OR REPLACE INTO recipe_vectors_v2 VALUES (?, ?, ?, ?, ?)",
                            (provider_key, h, key, int(arr.shape[0]), arr.tobytes()),
                            where=self.path,
                        )
                    if keep is None:
                        return
                    wanted = set(keep)
                    stale = [
                        str(h)
                        for (h,) in sqlite.rows(
                            conn,
                            "SELECT hash FROM recipe_vectors_v2 WHERE provider_key = ?",
                            (provider_key,),
                            where=self.path,
                        )
                        if str(h) not in wanted
                    ]
                    for h in stale:
                        sqlite.rows(
                            conn,
                            "DELETE FROM recipe_vectors_v2 WHERE provider_key = ? AND hash = ?",
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
