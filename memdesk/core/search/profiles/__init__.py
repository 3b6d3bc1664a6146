"""Ranking profiles: memdesk's own and one per verified OpenClaw release.

Each profile is one object (``base.RankingProfile``) in a module of its own; this
registry is the one place that knows them by name. Adding a profile for a new
OpenClaw release: see docs/architecture.md ("Adding a ranking profile").
"""

from __future__ import annotations

from . import memdesk, openclaw_2026_4, openclaw_2026_9
from .base import FetchRequest, RankingProfile

__all__ = [
    "ALL",
    "BY_NAME",
    "CANONICAL",
    "DEFAULT",
    "MEMDESK",
    "NAMES",
    "FetchRequest",
    "RankingProfile",
    "fixed_fields",
    "for_layout",
    "get",
]

# In the order the CLI's --profile and the GUI's picker offer them.
ALL: tuple[RankingProfile, ...] = (memdesk.PROFILE, openclaw_2026_4.PROFILE, openclaw_2026_9.PROFILE)
MEMDESK = memdesk.PROFILE
DEFAULT = MEMDESK  # the profile a new workspace (and an unknown saved name) starts with
BY_NAME: dict[str, RankingProfile] = {
    **{p.name: p for p in ALL},
    **{alias: p for p in ALL for alias in p.aliases},
}
# The distinct profiles' names (no aliases): what per-profile state is kept for.
CANONICAL: tuple[str, ...] = tuple(p.name for p in ALL)
# Every name a user can give, aliases last.
NAMES: tuple[str, ...] = (*CANONICAL, *(alias for p in ALL for alias in p.aliases))


def get(name: str) -> RankingProfile:
    """The profile ``name`` (or an alias of it) names; ValueError for an unknown name."""
    try:
        return BY_NAME[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown ranking profile {name!r} ({', '.join(NAMES)})") from None


def for_layout(layout: str) -> RankingProfile:
    """The profile that predicts the OpenClaw release of config ``layout`` (else the newest)."""
    return next((p for p in ALL if p.openclaw_layout == layout), openclaw_2026_9.PROFILE)


def fixed_fields() -> tuple[str, ...]:
    """Every setting some profile fixes (the controls that change state between profiles)."""
    return tuple(dict.fromkeys(f for p in ALL for f in p.fixed))
