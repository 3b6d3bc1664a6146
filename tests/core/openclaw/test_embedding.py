"""Embedding helpers used by the vector leg."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from memdesk.core.openclaw.chunking import MemoryChunk
from memdesk.core.openclaw.embedding import (
    build_embedding_batches,
    cosine_similarity,
    sanitize_and_normalize_embedding,
)
from memdesk.core.openclaw.text import hash_text, utf8_byte_length

finite = st.floats(-1e6, 1e6, allow_nan=False)


@given(st.lists(st.one_of(finite, st.just(math.nan), st.just(math.inf)), max_size=16))
def test_normalized_vectors_are_unit_or_untouched(vec: list[float]) -> None:
    out = sanitize_and_normalize_embedding(vec)
    assert len(out) == len(vec)
    assert all(math.isfinite(v) for v in out)
    norm = math.sqrt(sum(v * v for v in out))
    assert norm < 1e-10 or abs(norm - 1) < 1e-9


# The port computes as OpenClaw does: where a square underflows to a subnormal number
# (|x| < ~1e-154) its norm loses precision and the quotient can pass 1 there too
# (a=[1.0], b=[3e-161] gives 1.0013), so the bound is stated where squares are normal.
normal = st.one_of(st.just(0.0), st.floats(1e-100, 1e6), st.floats(-1e6, -1e-100))


@given(st.lists(normal, min_size=1, max_size=8), st.lists(normal, min_size=1, max_size=8))
def test_cosine_is_bounded_and_symmetric(a: list[float], b: list[float]) -> None:
    sim = cosine_similarity(a, b)
    assert -1 - 1e-9 <= sim <= 1 + 1e-9
    assert sim == cosine_similarity(b, a) or abs(sim - cosine_similarity(b, a)) < 1e-12


@given(st.lists(st.integers(0, 9000), max_size=12), st.integers(10, 8000))
def test_batches_respect_budget(sizes: list[int], budget: int) -> None:
    chunks = [MemoryChunk(1, 1, "x" * n, hash_text("x" * n)) for n in sizes]
    batches = build_embedding_batches(chunks, budget)
    assert [c for b in batches for c in b] == chunks
    for batch in batches:
        assert len(batch) == 1 or sum(utf8_byte_length(c.text) for c in batch) <= budget
