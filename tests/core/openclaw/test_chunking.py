"""Structural properties of ``chunk_markdown`` that must hold for any input."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.core.openclaw.chunking import (
    MemoryChunk,
    chunk_markdown,
    enforce_max_input_bytes,
    split_text_to_utf8_byte_limit,
)
from memdesk.core.openclaw.text import hash_text, to_utf16_units, utf8_byte_length

line_text = st.text(
    alphabet=st.sampled_from([*list("ab xyz#-"), "你", "好", "한", "😀", "𠀀", "\r"]),
    max_size=120,
)
content_st = st.lists(line_text, max_size=30).map("\n".join)


@settings(max_examples=200, deadline=None)
@given(content=content_st, tokens=st.integers(1, 60), overlap=st.integers(0, 20))
def test_line_ranges_cover_the_file(content: str, tokens: int, overlap: int) -> None:
    overlap = min(overlap, tokens - 1)
    chunks = chunk_markdown(content, tokens, overlap)
    n_lines = len(content.split("\n"))
    covered: set[int] = set()
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= n_lines
        assert chunk.hash == hash_text(chunk.text)
        covered.update(range(chunk.start_line, chunk.end_line + 1))
    assert covered == set(range(1, n_lines + 1))
    starts = [c.start_line for c in chunks]
    assert starts == sorted(starts)


@settings(max_examples=200, deadline=None)
@given(content=content_st, tokens=st.integers(1, 60))
def test_without_overlap_the_text_is_partitioned(content: str, tokens: int) -> None:
    chunks = chunk_markdown(content, tokens, 0)
    # Segments are re-joined with "\n", so compare with newlines removed; the UTF-16
    # units must match exactly (coarse slicing may split surrogate pairs, as in JS).
    joined = [u for c in chunks for u in to_utf16_units(c.text) if u != 0x0A]
    assert joined == [u for u in to_utf16_units(content) if u != 0x0A]
    for prev, cur in itertools.pairwise(chunks):
        assert cur.start_line >= prev.end_line


def test_small_examples() -> None:
    assert chunk_markdown("") == [MemoryChunk(1, 1, "", hash_text(""))]
    chunks = chunk_markdown("a\nb\n", 400, 0)
    assert [(c.start_line, c.end_line, c.text) for c in chunks] == [(1, 3, "a\nb\n")]


@settings(max_examples=100, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from([*list("ab"), "é", "你", "😀"]), max_size=200),
    limit=st.integers(4, 40),
)
def test_utf8_split_respects_limit_and_pairs(text: str, limit: int) -> None:
    parts = split_text_to_utf8_byte_limit(text, limit)
    assert "".join(parts) == text
    for part in parts:
        assert utf8_byte_length(part) <= limit
    chunk = MemoryChunk(3, 4, text, hash_text(text))
    for piece in enforce_max_input_bytes([chunk], limit):
        assert (piece.start_line, piece.end_line) == (3, 4)
        assert piece.hash == hash_text(piece.text)
