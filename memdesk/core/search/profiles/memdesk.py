"""The ``memdesk`` profile: memdesk's own index and ranking.

Its values are ``SearchSettings``' own defaults (each with the measurement behind it,
``settings.py``); it fetches from memdesk's segmented keyword index and its vectors
(``pool.memdesk_pool``) and ranks with OpenClaw's arithmetic plus recency, the
date-match boost, the same-note penalty and MMR over the head (``ranking.py``).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

from memdesk.core.search import dates, pool, ranking

from .base import FetchRequest, RankingProfile

if TYPE_CHECKING:
    from memdesk.core.search.hits import Candidate, CandidatePool, Hit
    from memdesk.core.search.settings import SearchSettings


class Memdesk(RankingProfile):
    name = "memdesk"
    memdesk_additions = True

    def fetch(self, request: FetchRequest) -> list[Candidate]:
        r = request
        return pool.memdesk_pool(self, r.legs, r.query, r.limit, r.scope, r.mode, r.timings, r.options)

    def rank(self, pool: CandidatePool, settings: SearchSettings, clock: dt.datetime) -> list[Hit]:
        return ranking.rank_pipeline(pool, settings, clock, additions=True)

    def decay_date(self, rel: str, workspace: Path, source: str) -> dt.date | None:
        return dates.memdesk_decay_date(rel, workspace, source)


PROFILE = Memdesk()
