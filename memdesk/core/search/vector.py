"""The vector leg: the query's embedding, the nearest chunks to it, cosines of given chunks.

sqlite-vec's exact scan costs ~1-2 µs per 384-dim vector on this machine's cores;
from ``IN_MEMORY_VECTORS_FROM`` chunks on (or when sqlite-vec cannot load) the leg
scans an in-memory copy of the vectors with numpy instead (BLAS, ~10x faster; 1.5 KB
of RAM per chunk), read again after the index changes (~3 ms per 1,000 vectors,
``Store.vec_table_vectors``). sqlite-vec stays the store either way. The two scans
compute the same cosines to within float32 rounding (~1e-7), so they rank alike.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Literal

import numpy as np

from memdesk.core.embed.embedder import Embedder, EmbedderIdentity
from memdesk.core.index.store import Store

log = logging.getLogger(__name__)

# Below this the sqlite-vec scan takes a few ms and the copy is not worth its RAM.
IN_MEMORY_VECTORS_FROM = 2_000

Scope = Literal["all", "shared"]  # "shared" = a group chat: no MEMORY.md / memory.md
Timings = dict[str, float]
Vectors = tuple[np.ndarray, np.ndarray, np.ndarray]  # (rids, shared flags, matrix)


def embed_query(embedder: Embedder, q: str, timings: Timings) -> np.ndarray | None:
    """The query's vector, or None when the vector leg has nothing to search with.

    Raises ``EmbedderUnavailable`` when the model's lazy load fails (the engine then
    degrades to keyword-only). No embed lock: queries have their own llama.cpp
    context, so a search never waits for the indexer's batch.
    """
    t0 = time.perf_counter()
    vec = np.asarray(embedder.embed_query(q), dtype=np.float32)
    timings["embed_ms"] = (time.perf_counter() - t0) * 1000
    if not np.any(vec):
        return None  # OpenClaw skips the vector leg for an all-zero query vector
    if not np.all(np.isfinite(vec)):
        log.warning("the embedding model returned a non-finite query vector; keyword results only")
        return None
    return vec


class VectorLeg:
    """Vector search over one index, with the in-memory copy for the numpy scan.

    The copy is keyed by ``(generation, data_version)``: the engine bumps the
    generation when another database file is swapped in, SQLite's data version
    changes whenever another connection commits.
    """

    def __init__(self) -> None:
        self._cache: tuple[tuple[int, int], Vectors] | None = None
        self._order: tuple[np.ndarray, np.ndarray] | None = None  # (rids, their argsort)

    def invalidate(self) -> None:
        self._cache = None
        self._order = None

    def search(
        self,
        store: Store,
        identity: EmbedderIdentity,
        qvec: np.ndarray,
        limit: int,
        scope: Scope,
        generation: int,
        timings: Timings,
    ) -> list[tuple[int, float]]:
        """(rid, cosine) of the ``limit`` nearest chunks, best first."""
        t0 = time.perf_counter()
        if store.vec_available and store.chunk_count_bound() < IN_MEMORY_VECTORS_FROM:
            out = store.vector_search(qvec, limit, shared_only=scope == "shared")
        else:
            out = self._numpy_search(store, identity, qvec, limit, scope, generation)
        timings["vector_ms"] = (time.perf_counter() - t0) * 1000
        return out

    def vectors(self, store: Store, identity: EmbedderIdentity, generation: int) -> Vectors:
        """Every chunk's vector in memory (read once per index state)."""
        key = (generation, store.data_version())
        if self._cache is None or self._cache[0] != key:
            vectors = (
                store.vec_table_vectors()
                if store.vec_available
                else store.all_vectors(identity.provider, identity.model, identity.provider_key)
            )
            self._cache = (key, vectors)
        return self._cache[1]

    def _numpy_search(
        self,
        store: Store,
        identity: EmbedderIdentity,
        qvec: np.ndarray,
        limit: int,
        scope: Scope,
        generation: int,
    ) -> list[tuple[int, float]]:
        """Exact cosine scan in numpy when sqlite-vec cannot load or is slower: same ranking."""
        rids, shared, matrix = self.vectors(store, identity, generation)
        return numpy_top(rids, shared, matrix, qvec, limit, scope)

    def cosines(
        self,
        store: Store,
        identity: EmbedderIdentity,
        qvec: np.ndarray,
        rids: Sequence[int],
        generation: int,
    ) -> dict[int, float]:
        """rid -> cosine to ``qvec`` for chunks the vector leg did not return."""
        if not rids:
            return {}
        out: dict[int, float] = {}
        in_memory = self._cache is not None and self._cache[0] == (generation, store.data_version())
        if not in_memory:
            # The embedding cache is a plain B-tree keyed by content hash: one join
            # fetches every vector (vec0 would need a look-up per rowid).
            found = store.cached_vectors_for(rids, identity.provider, identity.model, identity.provider_key)
            out.update((rid, float(vec @ qvec)) for rid, vec in found.items())
            rest = [rid for rid in rids if rid not in out]
            if rest and store.vec_available and store.has_vec_table():
                for rid in rest:
                    vec = store.vec_embedding(rid)
                    if vec is not None:
                        out[int(rid)] = float(vec @ qvec)
            return out
        all_rids, _, matrix = self.vectors(store, identity, generation)
        if self._order is None or self._order[0] is not all_rids:
            self._order = (all_rids, np.argsort(all_rids))  # once per copy, not per query
        return cosines_in(all_rids, matrix, qvec, rids, order=self._order[1])


def numpy_top(
    rids: np.ndarray, shared: np.ndarray, matrix: np.ndarray, qvec: np.ndarray, limit: int, scope: Scope
) -> list[tuple[int, float]]:
    """(rid, cosine) of the ``limit`` rows of ``matrix`` nearest ``qvec``, best first
    (equal cosines in row order; sqlite-vec orders exact ties its own way)."""
    if matrix.size == 0:
        return []
    # numpy's own single-threaded loop, not BLAS: OpenBLAS's thread pool stalls when
    # llama.cpp or other work holds the cores (16 ms instead of 2 at 10k chunks).
    sims = np.einsum("ij,j->i", matrix, qvec)
    if scope == "shared":
        sims = np.where(shared, sims, -np.inf)
    k = min(limit, len(sims))
    top = np.argpartition(-sims, k - 1)[:k]
    top = top[np.argsort(-sims[top], kind="stable")]
    return [(int(rids[i]), float(sims[i])) for i in top if np.isfinite(sims[i])]


def cosines_in(
    all_rids: np.ndarray,
    matrix: np.ndarray,
    qvec: np.ndarray,
    rids: Sequence[int],
    *,
    order: np.ndarray | None = None,
) -> dict[int, float]:
    """rid -> cosine for the wanted ``rids`` found among ``all_rids`` (the matrix's rows);
    ``order`` is ``np.argsort(all_rids)`` when the caller keeps it."""
    out: dict[int, float] = {}
    if len(all_rids) == 0:
        return out
    wanted = np.asarray(rids, dtype=np.int64)
    # chunks_vec rowids are chunk rids: find each wanted rid's row by binary search.
    if order is None:
        order = np.argsort(all_rids)
    pos = np.searchsorted(all_rids, wanted, sorter=order)
    pos = np.clip(pos, 0, len(all_rids) - 1)
    rows = order[pos]
    found = all_rids[rows] == wanted
    sims = matrix[rows[found]] @ qvec
    for rid, sim in zip(wanted[found].tolist(), sims.tolist(), strict=True):
        out[int(rid)] = float(sim)
    return out
