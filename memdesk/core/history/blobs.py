"""Content, addressed by sha256, stored once, as zstd frames in chains of deltas.

A note's new content is compressed against the note's previous content (``codec``), up
to ``MAX_DEPTH`` deltas deep; then one is compressed on its own again, so reading any
version decompresses at most ``MAX_DEPTH + 1`` frames. Recently used contents are kept
in memory (``ContentCache``), so the usual capture (the next version of a note just
seen) compresses against bytes already at hand.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from memdesk.core.base import sqlite
from memdesk.core.history import codec

MAX_DEPTH = 64
CACHE_BYTES = 16 << 20


class ContentCache:
    """Decompressed contents by blob id, least recently used dropped past a byte budget."""

    def __init__(self, budget: int = CACHE_BYTES) -> None:
        self._items: OrderedDict[int, bytes] = OrderedDict()
        self._bytes = 0
        self._budget = budget
        self._lock = threading.Lock()

    def get(self, blob: int) -> bytes | None:
        with self._lock:
            data = self._items.get(blob)
            if data is not None:
                self._items.move_to_end(blob)
            return data

    def put(self, blob: int, data: bytes) -> None:
        if len(data) > self._budget // 4:
            return
        with self._lock:
            old = self._items.pop(blob, None)
            if old is not None:
                self._bytes -= len(old)
            self._items[blob] = data
            self._bytes += len(data)
            while self._bytes > self._budget:
                _, dropped = self._items.popitem(last=False)
                self._bytes -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


class Blobs:
    """The ``blobs`` table of one store (its connection; the caller holds the transaction)."""

    def __init__(self, conn: sqlite.Connection, where: Path) -> None:
        self.conn = conn
        self.where = where
        self.cache = ContentCache()

    def find(self, digest: bytes) -> int | None:
        found = sqlite.rows(self.conn, "SELECT id FROM blobs WHERE digest = ?", (digest,), where=self.where)
        return int(found[0][0]) if found else None

    def put(self, data: bytes, digest: bytes, previous: int | None) -> int:
        """The id of ``data``'s blob, stored now unless already there; ``previous``: the
        blob of the note's version before, the base of a delta when not too deep."""
        existing = self.find(digest)
        if existing is not None:
            return existing
        base, depth, base_data = None, 0, None
        if previous is not None:
            found = sqlite.rows(
                self.conn, "SELECT depth FROM blobs WHERE id = ?", (previous,), where=self.where
            )
            if found and int(found[0][0]) < MAX_DEPTH:
                base_data = self.read(previous)
                if base_data is not None:
                    base, depth = previous, int(found[0][0]) + 1
        frame = codec.compress(data, base_data)
        sqlite.rows(
            self.conn,
            "INSERT INTO blobs(digest, size, base, depth, data) VALUES (?, ?, ?, ?, ?)",
            (digest, len(data), base, depth, frame),
            where=self.where,
        )
        blob = int(self.conn.last_insert_rowid())
        self.cache.put(blob, data)
        return blob

    def read(self, blob: int) -> bytes | None:
        """The content of ``blob``; None when it (or a base beneath it) is missing or damaged."""
        cached = self.cache.get(blob)
        if cached is not None:
            return cached
        # Walk down to a cached content or a frame compressed on its own, then back up.
        chain: list[tuple[int, bytes, int, bytes]] = []
        current: int | None = blob
        start: bytes | None = None
        while current is not None:
            hit = self.cache.get(current)
            if hit is not None:
                start = hit
                break
            found = sqlite.rows(
                self.conn,
                "SELECT data, size, base, digest FROM blobs WHERE id = ?",
                (current,),
                where=self.where,
            )
            if not found or len(chain) > MAX_DEPTH + 1:
                return None
            frame, size, base, digest = found[0]
            chain.append((current, bytes(frame), int(size), bytes(digest)))
            current = None if base is None else int(base)
        data = start
        for blob_id, frame, size, digest in reversed(chain):
            try:
                data = codec.decompress(frame, size, data)
            except codec.CorruptBlob:
                return None
            if codec.digest(data) != digest:
                return None
            self.cache.put(blob_id, data)
        return data
