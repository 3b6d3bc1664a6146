"""The agent's own memory index, opened read-only, in either OpenClaw database layout.

* 2026.4: ``<state>/memory/<agent>.sqlite`` with ``meta``, ``files``, ``chunks``
  (embedding as a JSON array) and ``chunks_fts``.
* 2026.9: the agent database ``openclaw-agent.sqlite`` with ``memory_index_meta``,
  ``memory_index_sources``, ``memory_index_chunks`` (embedding as little-endian
  float64 BLOB), ``memory_index_chunks_fts`` and ``memory_index_chunk_recall_metadata``.
  The same file holds the agent's sessions and credentials, so nothing but the memory
  tables is ever read.

The connection is on ``sqlite.snapshot``, a private in-memory copy: memdesk never
creates, changes or deletes a file in the agent's state (not even SQLite's ``-wal``/
``-shm``), reads a read-only mount, and sees the agent's committed transactions
while it writes. Keyword search
uses OpenClaw's own query plan (quoted tokens joined with AND, LIKE for short CJK terms
with the trigram tokenizer) and score (``bm25RankToScore``) on its own FTS table, so the hits are the agent's keyword leg.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from memdesk.core import errors
from memdesk.core.base import sqlite
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.core.openclaw.fts_query import escape_like_pattern, plan_keyword_search
from memdesk.core.openclaw.hybrid import bm25_rank_to_score

IndexLayout = Literal["2026.4", "2026.9"]
META_KEY = "memory_index_meta_v1"

_TABLES: dict[IndexLayout, dict[str, str]] = {
    "2026.4": {"meta": "meta", "files": "files", "chunks": "chunks", "fts": "chunks_fts"},
    "2026.9": {
        "meta": "memory_index_meta",
        "files": "memory_index_sources",
        "chunks": "memory_index_chunks",
        "fts": "memory_index_chunks_fts",
    },
}


class AgentIndexError(errors.MemdeskError):
    """The agent's index is missing, unreadable, or not an OpenClaw memory index."""


@dataclass(frozen=True)
class IndexedFile:
    path: str
    source: str
    hash: str
    mtime_ms: float
    size: int


@dataclass(frozen=True)
class AgentHit:
    """One chunk of the agent's index that matched, with the agent's own score."""

    path: str
    source: str
    start_line: int
    end_line: int
    score: float
    text_score: float | None
    vector_score: float | None
    snippet: str
    importance: int | None = None
    project: str | None = None
    triggers: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "source": self.source,
            "startLine": self.start_line,
            "endLine": self.end_line,
            "score": self.score,
            "textScore": self.text_score,
            "vectorScore": self.vector_score,
            "snippet": self.snippet,
            "importance": self.importance,
            "project": self.project,
            "triggers": self.triggers,
        }


@dataclass(frozen=True)
class IndexStatus:
    layout: IndexLayout
    path: Path
    meta: Mapping[str, Any]
    chunks: int
    chunks_by_source: Mapping[str, int]
    files: int
    last_update: dt.datetime | None
    fts_rows: int
    has_vectors: bool

    @property
    def provider(self) -> str:
        return str(self.meta.get("provider", "")) if self.meta else ""

    @property
    def model(self) -> str:
        return str(self.meta.get("model", "")) if self.meta else ""

    def to_json(self) -> dict[str, Any]:
        return {
            "layout": self.layout,
            "path": str(self.path),
            "meta": dict(self.meta),
            "provider": self.provider,
            "model": self.model,
            "chunks": self.chunks,
            "chunksBySource": dict(self.chunks_by_source),
            "files": self.files,
            "lastUpdate": self.last_update.isoformat() if self.last_update else None,
            "ftsRows": self.fts_rows,
            "hasVectors": self.has_vectors,
        }


@dataclass
class Drift:
    """How the files on disk differ from what the agent indexed."""

    changed: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def stale(self) -> int:
        return len(self.changed) + len(self.new) + len(self.removed)

    def to_json(self) -> dict[str, Any]:
        return {"changed": self.changed, "new": self.new, "removed": self.removed, "stale": self.stale}


def detect_layout(conn: sqlite.Connection) -> IndexLayout | None:
    names = {row[0] for row in sqlite.rows(conn, "SELECT name FROM sqlite_schema WHERE type='table'")}
    if {"memory_index_meta", "memory_index_chunks"} <= names:
        return "2026.9"
    if {"meta", "chunks", "files"} <= names:
        return "2026.4"
    return None


def _unreadable(path: Path, exc: errors.StoreError) -> AgentIndexError:
    """The agent's database could not be snapshotted or read (one line, translated)."""
    return AgentIndexError(
        msg(
            QT_TRANSLATE_NOOP("core", "{path}: cannot open the agent's index read-only ({error})"),
            path=path,
            error=str(exc),
        )
    )


class AgentIndex:
    """Read-only view of the agent's memory tables."""

    def __init__(self, path: Path, conn: sqlite.Connection, layout: IndexLayout) -> None:
        self.path = path
        self._conn = conn
        self.layout: IndexLayout = layout
        self._t = _TABLES[layout]

    @classmethod
    def open(cls, path: Path) -> AgentIndex:
        path = Path(path)
        if not path.is_file():
            raise AgentIndexError(
                msg(
                    QT_TRANSLATE_NOOP(
                        "core", "{path}: the agent has no index there yet (run `openclaw memory index`)"
                    ),
                    path=path,
                )
            )
        try:
            conn = sqlite.snapshot(path)
        except errors.StoreError as exc:
            raise _unreadable(path, exc) from None
        try:
            layout = detect_layout(conn)
        except errors.StoreError as exc:
            conn.close()
            raise _unreadable(path, exc) from None
        if layout is None:
            conn.close()
            raise AgentIndexError(
                msg(
                    QT_TRANSLATE_NOOP("core", "{path}: no OpenClaw memory tables in this database"), path=path
                )
            )
        return cls(path, conn, layout)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> AgentIndex:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _has_table(self, name: str) -> bool:
        return bool(
            sqlite.rows(self._conn, "SELECT 1 FROM sqlite_schema WHERE name = ?", (name,), where=self.path)
        )

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return sqlite.rows(self._conn, sql, tuple(params), where=self.path)
        except errors.StoreError as exc:
            raise AgentIndexError(f"{self.path}: reading the agent's index failed ({exc})") from None

    # -- what it holds ------------------------------------------------------------------
    def meta(self) -> dict[str, Any]:
        rows = self._query(f"SELECT value FROM {self._t['meta']} WHERE key = ?", (META_KEY,))
        if not rows:
            return {}
        try:
            value = json.loads(rows[0][0])
        except (TypeError, ValueError):
            return {}
        return value if isinstance(value, dict) else {}

    def fts_tokenizer(self) -> str:
        """The tokenizer the FTS table was created with (its ``CREATE`` statement)."""
        rows = self._query("SELECT sql FROM sqlite_schema WHERE name = ?", (self._t["fts"],))
        sql = rows[0][0] if rows and rows[0][0] else ""
        return "trigram" if "trigram" in sql.lower() else "unicode61"

    def status(self) -> IndexStatus:
        chunks_t = self._t["chunks"]
        by_source = dict(self._query(f"SELECT source, COUNT(*) FROM {chunks_t} GROUP BY source"))
        files = self._query(f"SELECT COUNT(*) FROM {self._t['files']}")[0][0]
        latest = self._query(f"SELECT MAX(updated_at) FROM {chunks_t}")[0][0]
        fts_rows = (
            self._query(f"SELECT COUNT(*) FROM {self._t['fts']}")[0][0]
            if self._has_table(self._t["fts"])
            else 0
        )
        vectors = self._query(f"SELECT 1 FROM {chunks_t} WHERE model != 'fts-only' LIMIT 1")
        last = dt.datetime.fromtimestamp(latest / 1000, tz=dt.UTC) if latest else None
        return IndexStatus(
            layout=self.layout,
            path=self.path,
            meta=self.meta(),
            chunks=sum(by_source.values()),
            chunks_by_source=by_source,
            files=int(files),
            last_update=last,
            fts_rows=int(fts_rows),
            has_vectors=bool(vectors),
        )

    def files(self, source: str = "memory") -> list[IndexedFile]:
        rows = self._query(
            f"SELECT path, source, hash, mtime, size FROM {self._t['files']} WHERE source = ? ORDER BY path",
            (source,),
        )
        return [IndexedFile(str(p), str(s), str(h), float(m or 0), int(z or 0)) for p, s, h, m, z in rows]

    def drift(self, current: Mapping[str, str], source: str = "memory") -> Drift:
        """Compare ``{rel path: content hash}`` of the files on disk with the indexed ones."""
        indexed = {f.path: f.hash for f in self.files(source)}
        drift = Drift()
        for rel, digest in current.items():
            if rel not in indexed:
                drift.new.append(rel)
            elif indexed[rel] != digest:
                drift.changed.append(rel)
        drift.removed = sorted(set(indexed) - set(current))
        return drift

    def chunk_ranges(self, source: str = "memory") -> list[tuple[str, int, int]]:
        return [
            (str(p), int(s), int(e))
            for p, s, e in self._query(
                f"SELECT path, start_line, end_line FROM {self._t['chunks']} WHERE source = ? "
                "ORDER BY path, start_line, end_line",
                (source,),
            )
        ]

    def _recall_metadata(self, ids: list[str]) -> dict[str, tuple[int | None, str | None, str | None]]:
        if self.layout != "2026.9" or not ids or not self._has_table("memory_index_chunk_recall_metadata"):
            return {}
        marks = ",".join("?" for _ in ids)
        rows = self._query(
            "SELECT chunk_id, importance, project_key, triggers FROM "
            f"memory_index_chunk_recall_metadata WHERE chunk_id IN ({marks})",
            ids,
        )
        return {str(cid): (imp, proj, trig) for cid, imp, proj, trig in rows}

    # -- searching it -------------------------------------------------------------------
    def keyword_search(
        self, query: str, *, limit: int = 24, sources: Iterable[str] = ("memory",)
    ) -> list[AgentHit]:
        """The agent's keyword leg: its FTS table, its query, its BM25 score."""
        if not self._has_table(self._t["fts"]):
            return []
        plan = plan_keyword_search(query, self.fts_tokenizer())
        if plan.match_query is None and not plan.substring_terms:
            return []
        fts = self._t["fts"]
        clauses: list[str] = []
        params: list[Any] = []
        rank_expr = "0"
        if plan.match_query is not None:
            rank_expr = f"bm25({fts})"
            clauses.append(f"{fts} MATCH ?")
            params.append(plan.match_query)
        for term in plan.substring_terms:
            clauses.append("text LIKE ? ESCAPE '\\'")
            params.append(f"%{escape_like_pattern(term)}%")
        wanted = list(sources)
        clauses.append(f"source IN ({','.join('?' for _ in wanted)})")
        params += [*wanted, int(limit)]
        try:
            rows = sqlite.rows(
                self._conn,
                f"SELECT id, path, source, start_line, end_line, text, {rank_expr} AS rank "
                f"FROM {fts} WHERE {' AND '.join(clauses)} ORDER BY rank ASC LIMIT ?",
                params,
                where=self.path,
            )
        except errors.QueryRejected:
            return []  # a query FTS5 cannot parse finds nothing, as in OpenClaw
        meta = self._recall_metadata([str(r[0]) for r in rows])
        hits = []
        for cid, path, source, start, end, text, rank in rows:
            score = 1.0 if plan.match_query is None else bm25_rank_to_score(float(rank))
            importance, project, triggers = meta.get(str(cid), (None, None, None))
            hits.append(
                AgentHit(
                    str(path),
                    str(source),
                    int(start),
                    int(end),
                    score,
                    score,
                    None,
                    str(text),
                    importance,
                    project,
                    triggers,
                )
            )
        return hits

    def embeddings(self, source: str = "memory") -> tuple[list[tuple[str, str, int, int, str]], np.ndarray]:
        """Every chunk with a stored embedding: rows and a (n, dims) float32 matrix."""
        rows = self._query(
            f"SELECT id, path, start_line, end_line, text, embedding FROM "
            f"{self._t['chunks']} WHERE source = ? AND model != 'fts-only'",
            (source,),
        )
        keep: list[tuple[str, str, int, int, str]] = []
        vectors: list[np.ndarray] = []
        for cid, path, start, end, text, blob in rows:
            vec = decode_embedding(blob)
            if vec is None or vec.size == 0:
                continue
            keep.append((str(cid), str(path), int(start), int(end), str(text)))
            vectors.append(vec)
        if not vectors:
            return [], np.zeros((0, 0), dtype=np.float32)
        dims = {v.size for v in vectors}
        if len(dims) != 1:
            raise AgentIndexError(f"{self.path}: the agent's vectors have mixed sizes {sorted(dims)}")
        return keep, np.vstack(vectors).astype(np.float32)

    def vector_search(self, query_vector: np.ndarray, *, limit: int = 24) -> list[AgentHit]:
        """Cosine of a query vector (from the agent's own model) against its stored chunks."""
        rows, matrix = self.embeddings()
        if not rows:
            return []
        q = np.asarray(query_vector, dtype=np.float32).ravel()
        if q.size != matrix.shape[1]:
            raise AgentIndexError(f"query vector has {q.size} dims, the agent's index {matrix.shape[1]}")
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(q) or 1.0)
        cosines = (matrix @ q) / np.where(norms == 0, 1.0, norms)
        order = np.argsort(-cosines, kind="stable")[:limit]
        meta = self._recall_metadata([rows[i][0] for i in order])
        hits = []
        for i in order:
            cid, path, start, end, text = rows[i]
            importance, project, triggers = meta.get(cid, (None, None, None))
            hits.append(
                AgentHit(
                    path,
                    "memory",
                    start,
                    end,
                    float(cosines[i]),
                    None,
                    float(cosines[i]),
                    text,
                    importance,
                    project,
                    triggers,
                )
            )
        return hits


def decode_embedding(value: Any) -> np.ndarray | None:
    """A stored vector: JSON text (2026.4) or little-endian float64 BLOB (2026.9)."""
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        if len(raw) % 8:
            return None
        return np.frombuffer(raw, dtype="<f8")
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return None
        if isinstance(parsed, list):
            return np.asarray(parsed, dtype=np.float64)
    return None
