"""What a ranking profile is: its values, what a user may change, how it fetches and ranks.

A profile is one object (``RankingProfile``); the registry (``profiles/__init__.py``)
names them. Everything that differs between profiles is an attribute or a method
here, so the engine, the ranking, the settings, the tuning panel, the CLI and the
MCP server ask the profile instead of comparing its name.
"""

from __future__ import annotations

import abc
import dataclasses
import datetime as dt
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memdesk.core.search.hits import Candidate, CandidatePool, Hit, Mode
    from memdesk.core.search.keyword import MemdeskOptions
    from memdesk.core.search.pool import Legs
    from memdesk.core.search.settings import SearchSettings
    from memdesk.core.search.vector import Scope, Timings


@dataclasses.dataclass
class FetchRequest:
    """One query's fetch, as the engine hands it to a profile."""

    legs: Legs
    query: str
    limit: int  # rows per leg (``SearchSettings.candidate_pool_size``)
    scope: Scope
    mode: Mode
    timings: Timings
    embed_lock: threading.RLock
    now: dt.date | dt.datetime | None  # the clock of a profile that ranks while fetching
    options: MemdeskOptions  # the memdesk profile's evaluation switches
    runner: Any = None  # what ``new_runner`` made for this engine (None: the memdesk profile)


class RankingProfile(abc.ABC):
    """One ranking profile. Subclasses state their values as class attributes."""

    name: str
    # Other names the profile answers to ("openclaw" = the newest OpenClaw profile).
    aliases: tuple[str, ...] = ()
    # ``SearchSettings`` values that differ from its own defaults (which are memdesk's).
    defaults: Mapping[str, Any] = {}
    # Values the release fixes (its config has no key for them): shown, never changed.
    fixed: Mapping[str, float] = {}
    # Switches the release always applies (its config cannot turn them off).
    always_on: frozenset[str] = frozenset()
    # memdesk's additions: recency, the date-match boost, the same-note penalty and
    # MMR over the head of the ranking only.
    memdesk_additions: bool = False
    # The OpenClaw release whose config layout and retrieval this profile predicts.
    openclaw_layout: str | None = None
    # Names its saved values were kept under by older memdesk versions.
    legacy_names: tuple[str, ...] = ()

    def accepts(self, field: str) -> bool:
        """Whether a user can change ``field`` (a ``SearchSettings`` name) in this profile."""
        if field in self.fixed or field in self.always_on:
            return False
        if field in ("recency", "recency_weight", "date_boost", "same_note_penalty"):
            return self.memdesk_additions
        return True

    def new_runner(self, workspace: Path, agent_settings: Any, cache: Any) -> Any:
        """The per-engine state this profile fetches with (its own index), or None.

        ``agent_settings`` fixed (replays of recordings, tests) or None (the agent's own
        config, re-read when it changes); ``cache``: the recipe vectors kept on disk."""
        return None

    @abc.abstractmethod
    def fetch(self, request: FetchRequest) -> list[Candidate]:
        """Run this profile's keyword and vector legs once."""

    @abc.abstractmethod
    def rank(self, pool: CandidatePool, settings: SearchSettings, clock: dt.datetime) -> list[Hit]:
        """Rank a fetched pool under (clamped) ``settings``."""

    @abc.abstractmethod
    def decay_date(self, rel: str, workspace: Path, source: str) -> dt.date | None:
        """The date decay counts from, or None for an evergreen note."""

    def __repr__(self) -> str:
        return f"<ranking profile {self.name}>"
