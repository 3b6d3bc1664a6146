"""The app's ``openclaw-2026.9`` profile: the 2026.9 port run over the open workspace.

OpenClaw 2026.9 chunks differently from memdesk (chunker v5, one chunk per entry in
``MEMORY.md``/``USER.md``, annotation comments removed) and keeps a path index, so it
cannot share memdesk's chunk table. :class:`Runner` keeps that version's own index
(in memory, rebuilt when a note changes: building it is FTS inserts plus cached
vectors) and returns the merged, ranked candidates; ``ranking.rank`` then only applies
2026.9's result selection for the current ``minScore``/``maxResults``. Vectors are
computed with OpenClaw's text recipe (bare text, model's own special tokens), kept
per text hash in memory (a note edit re-embeds only that note's chunks) and read
from the main index's embedding cache under that recipe's provider key when there.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from . import embed_recipe, v2026_9
from .text import hash_text

log = logging.getLogger(__name__)


def _fingerprint(workspace: Path) -> tuple[tuple[str, int, int], ...]:
    out = []
    for rel in v2026_9.list_memory_files(workspace):
        try:
            st = (workspace / rel).stat()
        except OSError:
            continue
        out.append((rel, st.st_mtime_ns, st.st_size))
    return tuple(out)


class Runner:
    """One workspace's 2026.9 index and searcher; thread-safe, rebuilt on change."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace)
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._searcher: v2026_9.Searcher | None = None
        self._embedder: embed_recipe.RecipeEmbedder | None = None
        self.failure: str | None = None  # why the vector leg is off (e.g. a chunk over the context)
        # Vectors by (recipe provider key, text hash): a note edit re-embeds only its chunks.
        self._vectors: dict[tuple[str, str], np.ndarray] = {}

    def _recipe_embedder(self, base: Any) -> embed_recipe.RecipeEmbedder | None:
        if base is None or not hasattr(base, "encode_reference"):
            return None
        if self._embedder is None or self._embedder.base is not base:
            self._embedder = embed_recipe.RecipeEmbedder(base, embed_recipe.recipe_for("2026.9"))
        return self._embedder

    def searcher(self, base_embedder: Any, store: Any, embed_lock: Any) -> v2026_9.Searcher:
        emb = self._recipe_embedder(base_embedder)
        key = (_fingerprint(self.workspace), id(emb))
        with self._lock:
            if self._searcher is not None and self._key == key:
                return self._searcher
            self.failure = None
            embed = None
            model = v2026_9.FTS_ONLY_MODEL
            if emb is not None:
                model = emb.identity.model

                def embed(texts: Sequence[str]) -> np.ndarray:
                    return self._cached_vectors(emb, store, embed_lock, texts)

            try:
                index = v2026_9.Index(self.workspace, model=model, embed_documents=embed)
            except embed_recipe.OverContext as exc:
                # OpenClaw's embedding request fails on such a chunk; keep keyword search.
                self.failure = f"a chunk is too long for the model: {exc}"
                log.warning("openclaw-2026.9 profile: %s; vector search off", self.failure)
                index = v2026_9.Index(self.workspace, model=model)
            self._searcher = v2026_9.Searcher(index)
            self._key = key
            return self._searcher

    def _cached_vectors(
        self, emb: embed_recipe.RecipeEmbedder, store: Any, embed_lock: Any, texts: Sequence[str]
    ) -> np.ndarray:
        """Vectors for ``texts``: this runner's memory, then the index's embedding cache
        (read only: the main index has one writer, the sync), then the model."""
        ident = emb.identity
        hashes = [hash_text(t) for t in texts]
        found = {h: v for h in hashes if (v := self._vectors.get((ident.provider_key, h))) is not None}
        rest = [h for h in hashes if h not in found]
        if rest and store is not None:
            found.update(store.cached_embeddings(ident.provider, ident.model, ident.provider_key, rest))
        missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
        if missing:
            with embed_lock:
                fresh = emb.embed_documents(list(missing.values()))
            found.update({h: np.asarray(fresh[i], dtype=np.float32) for i, h in enumerate(missing)})
        for h in hashes:
            self._vectors[(ident.provider_key, h)] = found[h]
        if not hashes:
            return np.zeros((0, emb.dims), np.float32)
        return np.stack([found[h] for h in hashes])

    def query_vector(self, query: str, embed_lock: Any) -> np.ndarray | None:
        if self._embedder is None:
            return None
        try:
            with embed_lock:
                return self._embedder.embed_query(query)
        except embed_recipe.OverContext:
            return None
