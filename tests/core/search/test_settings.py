"""SearchSettings: per-profile defaults, clamping to the field bounds, overrides, weights."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdesk.core.openclaw import config as oc_config
from memdesk.core.openclaw.config import resolve_memory_search_config
from memdesk.core.search.settings import FIELDS, OPENCLAW_2026_4, OPENCLAW_2026_9, SearchSettings


def test_openclaw_defaults_are_openclaws_config_defaults() -> None:
    s = SearchSettings.defaults(OPENCLAW_2026_4)
    resolved = resolve_memory_search_config({})
    assert (s.vector_weight, s.text_weight) == (
        oc_config.DEFAULT_VECTOR_WEIGHT,
        oc_config.DEFAULT_TEXT_WEIGHT,
    )
    assert s.min_score == oc_config.DEFAULT_MIN_SCORE == resolved.min_score
    assert s.max_results == resolved.max_results
    assert (s.mmr, s.decay, s.recency, s.date_boost) == (False, False, False, 0.0)
    # 2026.9: the same numbers, decay and MMR always on; "openclaw" names the newest release.
    s9 = SearchSettings.defaults(OPENCLAW_2026_9)
    assert s9.replace(profile=OPENCLAW_2026_4, decay=False, mmr=False) == s
    assert (s9.decay, s9.mmr) == (True, True)
    assert SearchSettings.defaults("openclaw") == s9
    with pytest.raises(ValueError, match="unknown ranking profile"):
        SearchSettings.defaults("bm25")  # type: ignore[arg-type]  # the point: not a Profile


@given(st.dictionaries(st.sampled_from(sorted(FIELDS)), st.floats(allow_nan=True, allow_infinity=True)))
def test_clamped_obeys_every_field_bound(values: dict[str, float]) -> None:
    s = SearchSettings.defaults("memdesk").replace(**values)
    for name, field in FIELDS.items():
        value = getattr(s, name)
        assert math.isfinite(value) and field.minimum <= value <= field.maximum
        if field.integer:
            assert value == int(value)


def test_from_overrides_ignores_what_it_cannot_use() -> None:
    s = SearchSettings.from_overrides(
        {"profile": OPENCLAW_2026_4, "max_results": 12, "nonsense": 1, "mmr": None}
    )
    assert (s.profile, s.max_results, s.mmr) == (OPENCLAW_2026_4, 12, False)
    assert SearchSettings.from_overrides({"profile": "nope"}) == SearchSettings.defaults("memdesk")
    assert SearchSettings.from_overrides({}) == SearchSettings.defaults("memdesk")
    assert SearchSettings.from_overrides({"min_score": "high"}) == SearchSettings.defaults("memdesk")
    assert SearchSettings.from_overrides({"min_score": 7}).min_score == FIELDS["min_score"].maximum
    assert SearchSettings.from_overrides({"profile": "openclaw"}).profile == OPENCLAW_2026_9


def test_overrides_round_trip() -> None:
    s = SearchSettings.defaults(OPENCLAW_2026_4).replace(mmr=True, mmr_lambda=0.5)
    assert s.overrides() == {"profile": OPENCLAW_2026_4, "mmr": True, "mmr_lambda": 0.5}
    assert SearchSettings.from_overrides(s.overrides()) == s
    memdesk = SearchSettings.defaults("memdesk").replace(recency=False, half_life_days=90)
    assert SearchSettings.from_overrides(memdesk.overrides()) == memdesk


def test_normalized_weights() -> None:
    # Each weight is clamped to [0, 1] first: 3 and 1 become 1 and 1.
    clamped = SearchSettings.defaults("memdesk").replace(vector_weight=3, text_weight=1)
    assert clamped.normalized_weights == (0.5, 0.5)
    s = SearchSettings.defaults("memdesk").replace(vector_weight=0.3, text_weight=0.1)
    vw, tw = s.normalized_weights
    assert math.isclose(vw, 0.75) and math.isclose(tw, 0.25)
    zero = SearchSettings.defaults(OPENCLAW_2026_4).replace(vector_weight=0, text_weight=0)
    assert zero.normalized_weights == (0.7, 0.3)


def test_candidate_pool_size_is_openclaws_rule() -> None:
    # min(200, max(1, floor(maxResults x candidateMultiplier)))
    assert SearchSettings.defaults(OPENCLAW_2026_4).candidate_pool_size == 24
    assert (
        SearchSettings.defaults("memdesk")
        .replace(max_results=50, candidate_multiplier=20)
        .candidate_pool_size
        == 200
    )
