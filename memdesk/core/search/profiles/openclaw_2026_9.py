"""The ``openclaw-2026.9`` profile: what OpenClaw v2026.9.6's memory search returns.

2026.9 keeps 2026.4's numbers, turns decay and MMR on for good and lets a config set
only ``maxResults`` and ``minScore``: the rest are the release's constants
(``agent.config.FIXED_2026_9``, from the port's values), shown and never changed. It
fetches and ranks in one go with the port's own pipeline over that release's index
of the workspace (``runner_2026_9``); ``rank`` only applies its result selection.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memdesk.core.agent.config import FIXED_2026_9
from memdesk.core.search import dates, pool, ranking

from . import openclaw_2026_4, runner_2026_9
from .base import FetchRequest, RankingProfile

if TYPE_CHECKING:
    from memdesk.core.search.hits import Candidate, CandidatePool, Hit
    from memdesk.core.search.settings import SearchSettings

# 2026.4's numbers, with decay and MMR on for good.
DEFAULTS: dict[str, Any] = {**openclaw_2026_4.DEFAULTS, "decay": True, "mmr": True}
# The ranking settings the release fixed (the agent's config has no key for them).
FIXED = {
    name: FIXED_2026_9[name]
    for name in ("vector_weight", "text_weight", "candidate_multiplier", "half_life_days", "mmr_lambda")
}


class OpenClaw2026_9(RankingProfile):
    name = "openclaw-2026.9"
    aliases = ("openclaw",)  # the newest verified OpenClaw release
    defaults = DEFAULTS
    fixed = FIXED
    always_on = frozenset({"decay", "mmr"})
    openclaw_layout = "2026.9"

    def new_runner(self, workspace: Path, agent_settings: Any, cache: Any) -> runner_2026_9.Runner:
        return runner_2026_9.Runner(workspace, agent_settings, cache=cache)

    def fetch(self, request: FetchRequest) -> list[Candidate]:
        r = request
        return pool.openclaw_2026_9_pool(
            self, r.legs, r.runner, r.embed_lock, r.query, r.scope, r.mode, r.timings, r.now
        )

    def rank(self, pool: CandidatePool, settings: SearchSettings, clock: dt.datetime) -> list[Hit]:
        return ranking.select_self_ranked(pool, settings)

    def decay_date(self, rel: str, workspace: Path, source: str) -> dt.date | None:
        return dates.openclaw_2026_9_decay_date(rel, workspace, source)


PROFILE = OpenClaw2026_9()
