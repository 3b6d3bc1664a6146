"""The 2026.9 index: the release's tables in an SQLite connection, filled from the
memory files (and session transcripts) the way ``prepareMemoryIndexChunks`` fills them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from memdesk.core.base import sqlite

from ..ids import FTS_ONLY_MODEL, StoredChunk
from ..text import hash_text, js_trim
from .annotations import RecallMetadata, extract_recall_metadata, strip_annotation_carriers
from .chunking import Chunk, chunk_markdown
from .files import list_memory_files

SCHEMA = (
    """CREATE TABLE memory_index_sources (id INTEGER PRIMARY KEY, path TEXT NOT NULL,
       source TEXT NOT NULL DEFAULT 'memory', hash TEXT NOT NULL, UNIQUE (path, source))""",
    """CREATE TABLE memory_index_chunks (chunk_rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
       path TEXT NOT NULL, source TEXT NOT NULL DEFAULT 'memory', start_line INTEGER NOT NULL,
       end_line INTEGER NOT NULL, hash TEXT NOT NULL, model TEXT NOT NULL, text TEXT NOT NULL,
       importance INTEGER, triggers TEXT, project_key TEXT)""",
    """CREATE VIRTUAL TABLE memory_index_chunks_fts USING fts5(text, id UNINDEXED, path UNINDEXED,
       source UNINDEXED, model UNINDEXED, start_line UNINDEXED, end_line UNINDEXED{tokenize})""",
    "CREATE VIRTUAL TABLE memory_index_paths_fts USING fts5(path, source UNINDEXED{tokenize})",
)
Tokenizer = Literal["unicode61", "trigram"]
# ``memory.search.store.fts.tokenizer``: both FTS tables get the same clause (memory-schema.ts).
_TOKENIZE_CLAUSE = {"unicode61": "", "trigram": ", tokenize='trigram case_sensitive 0'"}


@dataclasses.dataclass(frozen=True)
class IndexedChunk(StoredChunk):
    meta: RecallMetadata


def prepare_file_chunks(rel: str, content: str) -> list[tuple[Chunk, RecallMetadata]]:
    """``prepareMemoryIndexChunks`` for one memory file (no provider splitting)."""
    per_entry = rel in ("MEMORY.md", "USER.md")
    curated_root = rel in ("MEMORY.md", "memory.md", "USER.md")
    indexing = strip_annotation_carriers(content)
    source_lines = content.replace("\r\n", "\n").split("\n")
    chunks = [c for c in chunk_markdown(indexing, per_entry=per_entry) if js_trim(c.text)]
    cache: dict[tuple[int, int], RecallMetadata] = {}
    out = []
    for c in chunks:
        start = c.entry_start if c.entry_start is not None else c.start_line
        end = c.entry_end if c.entry_end is not None else c.end_line
        meta = cache.get((start, end))
        if meta is None:
            meta = extract_recall_metadata(
                source_lines[start - 1 : end],
                curated_root=curated_root,
                project_scope_eligible=rel.upper() != "USER.MD",
            )
            cache[(start, end)] = meta
        out.append((c, meta))
    return out


EmbedFn = Callable[[Sequence[str]], np.ndarray]


class Index:
    """One workspace indexed the way OpenClaw 2026.9 indexes it (in memory by default)."""

    def __init__(
        self,
        workspace: Path,
        *,
        model: str = FTS_ONLY_MODEL,
        embed_documents: EmbedFn | None = None,
        db_path: str = ":memory:",
        tokenizer: Tokenizer = "unicode61",
        files: Sequence[str] | None = None,
        sessions: Sequence[Any] = (),
    ) -> None:
        """``sessions``: ``sessions_2026_9.SessionEntry`` transcripts indexed after the
        memory files as source ``sessions`` (what ``sources: ["memory", "sessions"]`` adds)."""
        self.workspace = Path(workspace).resolve()
        self.sessions = list(sessions)
        self.session_mtimes: dict[str, float] = {e.path: float(e.mtime_ms) for e in self.sessions}
        self.model = model
        self.tokenizer: Tokenizer = tokenizer
        # Workspace-relative paths to index (``extraPaths`` included, in OpenClaw's order);
        # default: the workspace's own memory files.
        self.files = list(files) if files is not None else list_memory_files(self.workspace)
        self.conn = sqlite.connect(db_path)
        for ddl in SCHEMA:
            self.conn.execute(ddl.replace("{tokenize}", _TOKENIZE_CLAUSE[tokenizer]))
        self.chunks: list[IndexedChunk] = []
        self.vectors: np.ndarray | None = None
        self._build(embed_documents)

    def _build(self, embed_documents: EmbedFn | None) -> None:
        rowid = 0
        with self.conn:
            for source_id, rel in enumerate(self.files, 1):
                content = (self.workspace / rel).read_bytes().decode("utf-8", "replace")
                self.conn.execute(
                    "INSERT INTO memory_index_sources (id, path, source, hash) VALUES (?, ?, 'memory', ?)",
                    (source_id, rel, hash_text(content)),
                )
                self.conn.execute(
                    "INSERT INTO memory_index_paths_fts (rowid, path, source) VALUES (?, ?, 'memory')",
                    (source_id, rel),
                )
                for chunk, meta in prepare_file_chunks(rel, content):
                    rowid += 1
                    cid = hash_text(
                        f"memory:{rel}:{chunk.start_line}:{chunk.end_line}:{chunk.hash}:{self.model}"
                    )
                    self.conn.execute(
                        "INSERT INTO memory_index_chunks VALUES (?, ?, ?, 'memory', ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            rowid,
                            cid,
                            rel,
                            chunk.start_line,
                            chunk.end_line,
                            chunk.hash,
                            self.model,
                            chunk.text,
                            meta.importance,
                            meta.triggers,
                            meta.project_key,
                        ),
                    )
                    self.conn.execute(
                        "INSERT INTO memory_index_chunks_fts (rowid, text, id, path, source, model, start_line, "
                        "end_line) VALUES (?, ?, ?, ?, 'memory', ?, ?, ?)",
                        (rowid, chunk.text, cid, rel, self.model, chunk.start_line, chunk.end_line),
                    )
                    self.chunks.append(
                        IndexedChunk(
                            rowid, cid, rel, "memory", chunk.start_line, chunk.end_line, chunk.text, meta
                        )
                    )
            for source_id, entry in enumerate(self.sessions, len(self.files) + 1):
                rowid = self._add_session(source_id, rowid, entry)
        if embed_documents is not None and self.chunks:
            self.vectors = np.asarray(embed_documents([c.text for c in self.chunks]), dtype=np.float64)
        self.by_id = {c.id: c for c in self.chunks}

    def _add_session(self, source_id: int, rowid: int, entry: Any) -> int:
        """One transcript: its flattened text chunked like a memory file (no entries, no
        annotations), each chunk's lines mapped back to JSONL lines (``remapChunkLines``)."""
        self.conn.execute(
            "INSERT INTO memory_index_sources (id, path, source, hash) VALUES (?, ?, 'sessions', ?)",
            (source_id, entry.path, hash_text(entry.content)),
        )
        self.conn.execute(
            "INSERT INTO memory_index_paths_fts (rowid, path, source) VALUES (?, ?, 'sessions')",
            (source_id, entry.path),
        )
        line_map = entry.line_map
        for chunk in chunk_markdown(entry.content):
            if not js_trim(chunk.text):
                continue
            start = (
                line_map[chunk.start_line - 1] if 0 < chunk.start_line <= len(line_map) else chunk.start_line
            )
            end = line_map[chunk.end_line - 1] if 0 < chunk.end_line <= len(line_map) else chunk.end_line
            rowid += 1
            cid = hash_text(f"sessions:{entry.path}:{start}:{end}:{chunk.hash}:{self.model}")
            self.conn.execute(
                "INSERT INTO memory_index_chunks VALUES (?, ?, ?, 'sessions', ?, ?, ?, ?, ?, NULL, NULL, NULL)",
                (rowid, cid, entry.path, start, end, chunk.hash, self.model, chunk.text),
            )
            self.conn.execute(
                "INSERT INTO memory_index_chunks_fts (rowid, text, id, path, source, model, start_line, "
                "end_line) VALUES (?, ?, ?, ?, 'sessions', ?, ?, ?)",
                (rowid, chunk.text, cid, entry.path, self.model, start, end),
            )
            self.chunks.append(
                IndexedChunk(rowid, cid, entry.path, "sessions", start, end, chunk.text, RecallMetadata())
            )
        return rowid
