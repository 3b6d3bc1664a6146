"""Focused checks of spec rules that the vectors only sample."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from memdesk.core.openclaw.config import resolve_memory_search_config
from memdesk.core.openclaw.decay import dated_path_date, is_evergreen_memory_path
from memdesk.core.openclaw.hybrid import bm25_rank_to_score, candidate_pool_size
from memdesk.core.openclaw.keywords import extract_keywords
from memdesk.core.openclaw.text import from_utf16_units, to_utf16_units, truncate_utf16_safe, utf16_len


def test_dated_paths_are_strict() -> None:
    assert dated_path_date("memory/2026-01-11.md") == dt.date(2026, 1, 11)
    assert dated_path_date("notes/memory/2026-01-11.md") == dt.date(2026, 1, 11)
    assert dated_path_date(".\\memory\\2026-01-11.md") == dt.date(2026, 1, 11)
    assert dated_path_date("memory/2026-01/2026-01-11.md") is None
    assert dated_path_date("memory/2026-01-11-vendor-pitch.md") is None
    assert dated_path_date("memory/2026-02-30.md") is None
    assert dated_path_date("memory/0050-01-01.md") is None  # Date.UTC maps 0-99 to 19xx
    assert is_evergreen_memory_path("memory/2026-01-11-vendor-pitch.md", "memory")
    assert not is_evergreen_memory_path("memory/2026-01-11.md", "memory")
    assert not is_evergreen_memory_path("MEMORY.md", "sessions")


@given(st.text(alphabet=st.sampled_from(["a", "😀", "你"]), max_size=50), st.integers(0, 60))
def test_truncate_never_splits_a_pair(text: str, limit: int) -> None:
    out = truncate_utf16_safe(text, limit)
    assert text.startswith(out)
    assert utf16_len(out) <= limit
    assert utf16_len(out) >= min(limit, utf16_len(text)) - 1
    units = to_utf16_units(text)[:limit]  # the definition, unit by unit
    if units and 0xD800 <= units[-1] <= 0xDBFF:
        units = units[:-1]
    assert out == from_utf16_units(units)


@given(st.floats(allow_nan=False, allow_infinity=True))
def test_bm25_score_in_unit_interval(rank: float) -> None:
    score = bm25_rank_to_score(rank)
    assert 0.0 <= score <= 1.0
    assert bm25_rank_to_score(rank, legacy=True) <= 1.0


def test_candidate_pool_bounds() -> None:
    assert candidate_pool_size(6, 4) == 24
    assert candidate_pool_size(100, 20) == 200
    assert candidate_pool_size(0, 4) == 1


def test_config_precedence_and_normalisation() -> None:
    cfg = resolve_memory_search_config(
        {"query": {"hybrid": {"vectorWeight": 3, "textWeight": 1}}, "extraPaths": [" a ", "b"]},
        {
            "query": {"hybrid": {"textWeight": 0.25}},
            "extraPaths": ["a", "c"],
            "chunking": {"tokens": 10, "overlap": 99},
        },
    )
    assert cfg.vector_weight == 1 / 1.25 and cfg.text_weight == 0.25 / 1.25
    assert cfg.extra_paths == ("a", "b", "c")
    assert cfg.chunk_overlap == 9
    assert cfg.sources == ("memory",)


def test_keyword_quirks() -> None:
    assert extract_keywords("API를 배포") == ["api를", "api", "배포"]
    assert extract_keywords("讨论API的bug", "trigram") == ["讨论的"]
