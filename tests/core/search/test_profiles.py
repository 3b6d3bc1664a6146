"""The ranking profiles are objects in one registry, and each states its values once."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from memdesk.core.openclaw import config as oc_config
from memdesk.core.openclaw import v2026_9
from memdesk.core.search import profiles
from memdesk.core.search import settings as settings_mod
from memdesk.core.search.settings import FIELDS, SearchSettings

MEMDESK_PKG = Path(__file__).resolve().parents[3] / "memdesk"


def test_every_name_and_alias_finds_its_profile() -> None:
    assert [p.name for p in profiles.ALL] == list(settings_mod.CANONICAL_PROFILES)
    assert profiles.get("openclaw") is profiles.get(settings_mod.OPENCLAW_2026_9)
    assert settings_mod.canonical_profile("openclaw") == settings_mod.OPENCLAW_2026_9
    with pytest.raises(ValueError, match=r"unknown ranking profile 'openclaw-1999\.1'"):
        profiles.get("openclaw-1999.1")


def test_openclaw_defaults_are_the_ports() -> None:
    oc4 = SearchSettings.defaults(settings_mod.OPENCLAW_2026_4)
    assert (oc4.vector_weight, oc4.text_weight, oc4.min_score, oc4.max_results) == (
        oc_config.DEFAULT_VECTOR_WEIGHT,
        oc_config.DEFAULT_TEXT_WEIGHT,
        oc_config.DEFAULT_MIN_SCORE,
        oc_config.DEFAULT_MAX_RESULTS,
    )
    assert not (oc4.decay or oc4.mmr or oc4.recency) and oc4.date_boost == oc4.same_note_penalty == 0
    oc9 = SearchSettings.defaults(settings_mod.OPENCLAW_2026_9)
    assert oc9 == dataclasses.replace(oc4, profile=settings_mod.OPENCLAW_2026_9, decay=True, mmr=True)


def test_what_2026_9_fixes_is_what_its_port_ranks_with() -> None:
    fixed = profiles.get(settings_mod.OPENCLAW_2026_9).fixed
    assert fixed == {
        "vector_weight": v2026_9.VECTOR_WEIGHT,
        "text_weight": v2026_9.TEXT_WEIGHT,
        "candidate_multiplier": oc_config.DEFAULT_CANDIDATE_MULTIPLIER,
        "half_life_days": v2026_9.HALF_LIFE_DAYS,
        "mmr_lambda": v2026_9.MMR_LAMBDA,
    }
    # ... and its defaults show those values.
    oc9 = SearchSettings.defaults(settings_mod.OPENCLAW_2026_9)
    assert all(getattr(oc9, name) == value for name, value in fixed.items())


def test_a_profile_accepts_what_it_does_not_fix() -> None:
    oc9 = profiles.get(settings_mod.OPENCLAW_2026_9)
    assert not oc9.accepts("vector_weight") and not oc9.accepts("mmr") and oc9.accepts("max_results")
    assert not profiles.get(settings_mod.OPENCLAW_2026_4).accepts("recency")
    assert all(profiles.MEMDESK.accepts(name) for name in FIELDS)


def test_no_module_outside_the_registry_compares_a_profile_name() -> None:
    """What differs between profiles is asked of the profile object, never of its name."""
    branch = re.compile(
        r"""(==|!=)\s*(settings_mod\.)?(OPENCLAW_2026_\d|"openclaw(-\d{4}\.\d+)?")"""
        r"""|(OPENCLAW_2026_\d|"memdesk"|"openclaw-\d{4}\.\d+")\s*(==|!=)"""
        r"""|\.profile\s*(==|!=)\s*"memdesk"|startswith\("openclaw"""
    )
    found = [
        f"{path.relative_to(MEMDESK_PKG)}:{n}: {line.strip()}"
        for path in sorted(MEMDESK_PKG.rglob("*.py"))
        if "profiles" not in path.relative_to(MEMDESK_PKG).parts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if branch.search(line) and "client ==" not in line
    ]
    assert found == []
