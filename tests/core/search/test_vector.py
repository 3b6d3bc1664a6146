"""The vector leg: the numpy scan ranks like sqlite-vec's exact scan, the in-memory copy
follows the index, and cosines of chunks the leg did not return are the real ones."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memdesk.core.base import lexical
from memdesk.core.embed.embedder import EmbedderIdentity
from memdesk.core.index.store import Store
from memdesk.core.search import vector

DIMS = 24
IDENT = EmbedderIdentity(provider="fake", model="test", dims=DIMS)


def _fill(store: Store, n: int, start: int = 0) -> None:
    rng = np.random.default_rng(start)
    with store.transaction():
        for k in range(start, start + n):
            v = rng.standard_normal(DIMS).astype(np.float32)
            v /= np.linalg.norm(v)
            path = "MEMORY.md" if k % 5 == 0 else f"memory/n{k}.md"
            store.insert_chunk(
                chunk_id=f"c{k}",
                path=path,
                source="memory",
                start_line=1,
                end_line=2,
                hash=f"h{k}",
                model="test",
                text=f"note {k}",
                segmented=lexical.segment_for_index(f"note {k}"),
                embedding=v,
                shared=path != "MEMORY.md",
            )
            store.put_embeddings("fake", "test", "", {f"h{k}": v})


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "index.sqlite")
    _fill(s, 60)
    return s


@pytest.mark.parametrize("scope", ["all", "shared"])
def test_numpy_scan_ranks_like_sqlite_vec(store: Store, scope: vector.Scope) -> None:
    if not store.vec_available:
        pytest.skip(f"sqlite-vec unavailable: {store.vec_error}")
    leg = vector.VectorLeg()
    for seed in range(5):
        q = np.random.default_rng(100 + seed).standard_normal(DIMS).astype(np.float32)
        q /= np.linalg.norm(q)
        exact = store.vector_search(q, 10, shared_only=scope == "shared")
        rids, shared, matrix = leg.vectors(store, IDENT, generation=0)
        scanned = vector.numpy_top(rids, shared, matrix, q, 10, scope)
        assert [r for r, _ in scanned] == [r for r, _ in exact]
        assert [s for _, s in scanned] == pytest.approx([s for _, s in exact], abs=1e-5)


def test_in_memory_copy_reloads_when_the_index_changes(store: Store, tmp_path: Path) -> None:
    leg = vector.VectorLeg()
    first = leg.vectors(store, IDENT, generation=0)
    assert leg.vectors(store, IDENT, generation=0) is first  # cached
    other = Store(tmp_path / "index.sqlite")  # another connection commits
    _fill(other, 5, start=60)
    other.close()
    assert len(leg.vectors(store, IDENT, generation=0)[0]) == 65
    assert leg.vectors(store, IDENT, generation=1) is not first  # another file swapped in


def test_cosines_are_the_dot_products_of_the_stored_vectors(store: Store) -> None:
    q = np.random.default_rng(7).standard_normal(DIMS).astype(np.float32)
    q /= np.linalg.norm(q)
    wanted = [3, 17, 42, 999]  # 999 is no chunk
    cached = store.cached_vectors_for(wanted, "fake", "test", "")
    expected = {rid: float(vec @ q) for rid, vec in cached.items()}
    leg = vector.VectorLeg()
    # From the embedding cache (no in-memory copy yet) ...
    assert leg.cosines(store, IDENT, q, wanted, generation=0) == pytest.approx(expected)
    # ... and from the in-memory copy once the numpy scan has loaded it.
    leg.vectors(store, IDENT, generation=0)
    assert leg.cosines(store, IDENT, q, wanted, generation=0) == pytest.approx(expected, abs=1e-6)
    assert vector.cosines_in(np.zeros(0, np.int64), np.zeros((0, DIMS), np.float32), q, wanted) == {}


class _Constant:
    """An embedder whose query vector is fixed: the checks on it are the point."""

    def __init__(self, vec: list[float]) -> None:
        self._vec = vec

    def embed_query(self, text: str) -> list[float]:
        return self._vec


def test_a_zero_or_non_finite_query_vector_skips_the_leg() -> None:
    timings: dict[str, float] = {}
    assert vector.embed_query(_Constant([0.0, 0.0]), "q", timings) is None  # type: ignore[arg-type]  # a stand-in
    assert vector.embed_query(_Constant([float("nan"), 1.0]), "q", timings) is None  # type: ignore[arg-type]
    got = vector.embed_query(_Constant([0.6, 0.8]), "q", timings)  # type: ignore[arg-type]
    assert got is not None and got.dtype == np.float32 and "embed_ms" in timings
