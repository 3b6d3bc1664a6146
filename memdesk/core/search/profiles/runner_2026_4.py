"""The app's ``openclaw-2026.4`` profile: OpenClaw 2026.4.12's own index of the open workspace.

memdesk's main index cannot stand in for the agent's: it shrinks chunks to 384/76 for
512-token models (OpenClaw keeps its 400/80, or the agent's ``chunking``), indexes
``USER.md`` (2026.4 does not) and embeds e5 with ``query: ``/``passage: `` prefixes
(2026.4 feeds node-llama-cpp the bare text). So, like the 2026.9 profile, this one
keeps an index of its own, built as ``MemoryIndexManager.indexFile`` does in
v2026.4.12: ``listMemoryFiles`` (``MEMORY.md``, ``memory.md``, ``memory/**``, plain
``extraPaths``), ``chunkMarkdown`` at the agent's chunking, blank chunks dropped, and
with an embedding provider every chunk over 2048 UTF-8 bytes split
(``enforceEmbeddingMaxInputTokens``: the local provider's limit, under the 8000-byte
batch cap). Its keyword leg is OpenClaw's SQL on OpenClaw's ``chunks_fts`` table (in
memory); its vector leg the cosine to every chunk of the provider's model, best
first (``searchVector``: ``ORDER BY dist`` over ``vec_distance_cosine``).

The index is rebuilt when a listed file changes (FTS inserts; vectors are memoised
per text hash, so an edit re-embeds only that note's chunks). ``ranking.rank`` then
applies 2026.4's merge, decay, MMR and selection to the candidates, as before.

When a chunk is longer than the model's context, node-llama-cpp throws and OpenClaw
2026.4 discards the whole reindex: the agent has no index and its memory search
returns nothing. The profile predicts that (no candidates, :attr:`Runner.failure`
says why) instead of showing results the agent would never see.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memdesk.core.base import sqlite
from memdesk.core.embed import openclaw_recipe as embed_recipe
from memdesk.core.openclaw import chunking
from memdesk.core.openclaw import keyword_search as oc_kw
from memdesk.core.openclaw.ids import FTS_ONLY_MODEL, StoredChunk, chunk_id_from_hash
from memdesk.core.openclaw.text import is_well_formed, to_well_formed

from . import runner_common as profile_common
from .runner_common import AgentSettings

log = logging.getLogger(__name__)

VERSION = "2026.4.12"
# enforceEmbeddingMaxInputTokens(provider, chunks, EMBEDDING_BATCH_MAX_TOKENS): the local
# provider declares no maxInputTokens, so DEFAULT_LOCAL_EMBEDDING_MAX_INPUT_TOKENS (2048)
# applies, under the 8000 hard cap.
LOCAL_MAX_INPUT_BYTES = 2048
EMBEDDING_BATCH_MAX_TOKENS = 8000


# 2026.4 stores the same chunk columns as 2026.9 (no recall metadata).
Chunk = StoredChunk


def file_chunks(content: str, settings: AgentSettings, *, embedding: bool) -> list[chunking.MemoryChunk]:
    """The chunks 2026.4 stores for one file's text (``indexFile``)."""
    chunks = chunking.filter_non_empty_chunks(
        chunking.chunk_markdown(content, settings.chunk_tokens, settings.chunk_overlap)
    )
    if embedding:
        chunks = chunking.enforce_max_input_bytes(
            chunks, min(LOCAL_MAX_INPUT_BYTES, EMBEDDING_BATCH_MAX_TOKENS)
        )
    # A chunk cut inside a surrogate pair (an emoji split by the chunker) is stored with
    # U+FFFD, as OpenClaw's UTF-8 encoder writes it (see core/index/indexer._well_formed).
    return [
        c if is_well_formed(c.text) else dataclasses.replace(c, text=to_well_formed(c.text)) for c in chunks
    ]


EmbedFn = Any  # Callable[[Sequence[str]], np.ndarray]


class Index:
    """One workspace indexed the way OpenClaw 2026.4 indexes it, in memory."""

    def __init__(
        self,
        workspace: Path,
        *,
        files: Sequence[str],
        settings: AgentSettings,
        model: str = FTS_ONLY_MODEL,
        embed_documents: EmbedFn | None = None,
    ) -> None:
        self.workspace = Path(workspace)
        self.model = model
        self.tokenizer = settings.tokenizer
        self.conn = sqlite.memory()
        self.conn.execute(oc_kw.chunks_fts_ddl(settings.tokenizer))
        self.chunks: list[Chunk] = []
        embedding = embed_documents is not None
        with self.conn:
            for rel in files:
                try:
                    content = (self.workspace / rel).read_bytes().decode("utf-8", "replace")
                except OSError as exc:  # gone or unreadable since listing: OpenClaw skips it too
                    log.info("openclaw-2026.4 profile: %s not read (%s)", rel, exc)
                    continue
                for c in file_chunks(content, settings, embedding=embedding):
                    cid = chunk_id_from_hash("memory", rel, c.start_line, c.end_line, c.hash, model)
                    chunk = Chunk(len(self.chunks) + 1, cid, rel, "memory", c.start_line, c.end_line, c.text)
                    self.chunks.append(chunk)
                    self.conn.execute(
                        "INSERT INTO chunks_fts (rowid, text, id, path, source, model, start_line, end_line) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (chunk.rowid, c.text, cid, rel, "memory", model, c.start_line, c.end_line),
                    )
        self.by_id = {c.id: c for c in self.chunks}
        # chunk id -> its lower-cased word tokens, filled as FTS-only search first scores
        # the chunk: each is tokenized once per index, not once per hit and keyword.
        self._token_sets: dict[str, frozenset[str]] = {}
        self.vectors: np.ndarray | None = None
        if embed_documents is not None:
            self.vectors = np.asarray(embed_documents([c.text for c in self.chunks]), dtype=np.float32)

    def token_set(self, chunk_id: str, text: str) -> frozenset[str]:
        """``keyword_search.lower_token_set(text)`` of one of this index's chunks, kept."""
        words = self._token_sets.get(chunk_id)
        if words is None:
            words = self._token_sets[chunk_id] = oc_kw.lower_token_set(text)
        return words

    def vector_hits(self, query_vec: np.ndarray, limit: int, keep: Any = None) -> list[tuple[Chunk, float]]:
        """The ``limit`` chunks nearest ``query_vec`` by cosine, best first (ties in
        index order, as the scan); ``keep(path)`` filters before the cut."""
        if self.vectors is None or len(self.chunks) == 0 or limit <= 0 or not np.any(query_vec):
            return []
        q = np.asarray(query_vec, dtype=np.float32)
        norms = np.linalg.norm(self.vectors, axis=1) * float(np.linalg.norm(q))
        sims = (self.vectors @ q).astype(np.float64) / np.maximum(norms, 1e-30)
        if keep is not None:
            mask = np.fromiter((bool(keep(c.path)) for c in self.chunks), dtype=bool, count=len(self.chunks))
            sims = np.where(mask, sims, -np.inf)
        order = np.argsort(-sims, kind="stable")[:limit]
        return [(self.chunks[i], float(sims[i])) for i in order if np.isfinite(sims[i])]


class Runner(profile_common.ProfileRunner[Index]):
    """One workspace's 2026.4 index; thread-safe, rebuilt when a listed file changes."""

    def __init__(self, workspace: Path, settings: AgentSettings | None = None, *, cache: Any = None) -> None:
        super().__init__(workspace, settings, cache=cache, layout="2026.4", version=VERSION)

    def _files(self, settings: AgentSettings) -> list[str]:
        return profile_common.memory_files(self.workspace, settings, "2026.4")

    def _build(
        self,
        emb: Any,
        settings: AgentSettings,
        files: list[str],
        store: Any,
        embed_lock: Any,
        progress: profile_common.ProgressFn | None = None,
        cancelled: Any = None,
    ) -> tuple[Index, embed_recipe.OverContext | None]:
        if emb is None:
            return Index(self.workspace, files=files, settings=settings), None
        # The index first (FTS rows, the chunks an embedding provider gets), then its vectors.
        texts: list[str] = []

        def collect(batch: Sequence[str]) -> np.ndarray:
            texts.extend(batch)
            return np.zeros((len(batch), emb.dims), np.float32)

        index = Index(
            self.workspace, files=files, settings=settings, model=emb.identity.model, embed_documents=collect
        )
        try:
            vectors = self._vectors.documents(
                emb, store, embed_lock, texts, progress=progress, cancelled=cancelled
            )
        except embed_recipe.OverContext as exc:
            # node-llama-cpp throws, OpenClaw discards the reindex: no index at all.
            log.warning("openclaw-2026.4 profile: %s; the agent's reindex fails", exc)
            return Index(self.workspace, files=[], settings=settings, model=emb.identity.model), exc
        index.vectors = np.asarray(vectors, dtype=np.float32)
        return index, None

    def index(self, base_embedder: Any, store: Any, embed_lock: Any) -> Index:
        """The index for the files as they are now; ``base_embedder`` None: FTS-only (no provider)."""
        return self._current(base_embedder, store, embed_lock)
