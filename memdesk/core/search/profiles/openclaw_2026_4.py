"""The ``openclaw-2026.4`` profile: what OpenClaw v2026.4.12's memory search returns.

Its defaults are the release's (``core/openclaw/config.py``, where the port states
them), every one of them settable as the release's config allows; decay and MMR
start off, as there. It fetches from that release's own index of the workspace
(``runner_2026_4``) and ranks with the port's functions (``ranking.rank_openclaw_2026_4``).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memdesk.core.openclaw import config as oc_config
from memdesk.core.search import dates, pool, ranking

from . import runner_2026_4
from .base import FetchRequest, RankingProfile

if TYPE_CHECKING:
    from memdesk.core.search.hits import Candidate, CandidatePool, Hit
    from memdesk.core.search.settings import SearchSettings

# The release's memory-search defaults, under ``SearchSettings`` names; memdesk's
# additions off. The 2026.9 profile keeps these numbers.
DEFAULTS: dict[str, Any] = {
    "vector_weight": oc_config.DEFAULT_VECTOR_WEIGHT,
    "text_weight": oc_config.DEFAULT_TEXT_WEIGHT,
    "min_score": oc_config.DEFAULT_MIN_SCORE,
    "max_results": oc_config.DEFAULT_MAX_RESULTS,
    "candidate_multiplier": oc_config.DEFAULT_CANDIDATE_MULTIPLIER,
    "decay": False,
    "half_life_days": oc_config.DEFAULT_HALF_LIFE_DAYS,
    "mmr": False,
    "mmr_lambda": oc_config.DEFAULT_MMR_LAMBDA,
    "recency": False,
    "date_boost": 0.0,
    "same_note_penalty": 0.0,
}


class OpenClaw2026_4(RankingProfile):
    name = "openclaw-2026.4"
    defaults = DEFAULTS
    openclaw_layout = "2026.4"
    legacy_names = ("openclaw",)  # before profiles were versioned, "openclaw" was 2026.4

    def new_runner(self, workspace: Path, agent_settings: Any, cache: Any) -> runner_2026_4.Runner:
        return runner_2026_4.Runner(workspace, agent_settings, cache=cache)

    def fetch(self, request: FetchRequest) -> list[Candidate]:
        r = request
        return pool.openclaw_pool(
            self, r.legs, r.runner, r.embed_lock, r.query, r.limit, r.scope, r.mode, r.timings
        )

    def rank(self, pool: CandidatePool, settings: SearchSettings, clock: dt.datetime) -> list[Hit]:
        return ranking.rank_openclaw_2026_4(pool, settings, clock)

    def decay_date(self, rel: str, workspace: Path, source: str) -> dt.date | None:
        return dates.openclaw_2026_4_decay_date(rel, workspace, source)


PROFILE = OpenClaw2026_4()
