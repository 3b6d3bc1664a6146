"""Content, addressed by sha256, stored once, as zstd frames in chains of deltas.

A note's new content is compressed against the note's previous content (``codec``): a
delta of a few hundred bytes for an edit of a large note. A chain of deltas starts at
a keyframe (content compressed on its own); a new keyframe starts when the chain's
deltas add up to ``CHAIN_RATIO`` times the keyframe's size, or ``MAX_DEPTH`` deltas,
so the keyframes cost about a twentieth of what the deltas cost, and reading any version
decompresses at most ``MAX_DEPTH + 1`` frames (a delta frame decompresses in tens of
microseconds; every ``CACHE_EVERY``-th step is kept in memory for the next read). Recently used contents are kept in memory (``ContentCache``), so
the usual capture (the next version of a note just seen) has its base at hand.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from memdesk.core.base import sqlite
from memdesk.core.history import codec
from memdesk.core.history.catalog import DIGEST_KEY

MAX_DEPTH = 2000
CHAIN_RATIO = 20
CACHE_BYTES = 16 << 20
CACHE_EVERY = 32  # of a chain walked to read one content, every 32nd is kept in memory


def keyframe_room(frame: bytes) -> int:
    """The delta bytes a chain may add on top of keyframe ``frame``."""
    return CHAIN_RATIO * len(frame)


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

    def drop(self, blob: int) -> None:
        with self._lock:
            old = self._items.pop(blob, None)
            if old is not None:
                self._bytes -= len(old)

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
        found = sqlite.rows(
            self.conn,
            f"SELECT id FROM blobs WHERE {DIGEST_KEY} = ? AND digest = ?",
            (digest[:4], digest),
            where=self.where,
        )
        return int(found[0][0]) if found else None

    def put(self, data: bytes, digest: bytes, previous: int | None, previous_data: bytes | None) -> int:
        """The id of ``data``'s blob, stored now unless already there. ``previous``:
        the blob of the note's version before (``previous_data`` its content), the
        base of a delta unless its chain is long enough."""
        existing = self.find(digest)
        if existing is not None:
            return existing
        base, depth, room, frame = None, 0, 0, b""
        if previous is not None and previous_data is not None:
            found = sqlite.rows(
                self.conn,
                "SELECT depth, room FROM blobs WHERE id = ?",
                (previous,),
                where=self.where,
            )
            if found:
                b_depth, b_room = (int(x) for x in found[0])
                frame = codec.compress(data, previous_data)
                if b_depth < MAX_DEPTH and len(frame) <= b_room:
                    base, depth, room = previous, b_depth + 1, b_room - len(frame)
        if base is None:
            frame = codec.compress(data)
            room = keyframe_room(frame)
        # Its id given here, so its base is stored as the step back to it (1, the blob
        # just before, in the usual case: no byte at all in the row).
        blob = int(
            sqlite.rows(self.conn, "SELECT coalesce(max(id), 0) + 1 FROM blobs", where=self.where)[0][0]
        )
        sqlite.rows(
            self.conn,
            "INSERT INTO blobs(id, digest, size, back, depth, room, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (blob, digest, len(data), None if base is None else blob - base, depth, room, frame),
            where=self.where,
        )
        self.cache.put(blob, data)
        return blob

    def read(self, blob: int) -> bytes | None:
        """The content of ``blob``; None when it (or a base beneath it) is missing or damaged."""
        cached = self.cache.get(blob)
        if cached is not None:
            return cached
        # Walk down to a cached content or a keyframe, then decompress back up.
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
                "SELECT data, size, id - back, digest FROM blobs WHERE id = ?",
                (current,),
                where=self.where,
            )
            if not found or len(chain) > MAX_DEPTH + 1:
                return None
            frame, size, base, digest = found[0]
            chain.append((current, bytes(frame), int(size), bytes(digest)))
            current = None if base is None else int(base)
        data = start
        for step, (blob_id, frame, size, _digest) in enumerate(reversed(chain)):
            try:
                data = codec.decompress(frame, size, data)
            except codec.CorruptBlob:
                return None
            if step % CACHE_EVERY == CACHE_EVERY - 1:
                self.cache.put(blob_id, data)  # a walk down the timeline starts from here
        # Damage anywhere on the chain shows in the last content's digest.
        if data is None or codec.digest(data) != chain[0][3]:
            return None
        self.cache.put(blob, data)
        return data
