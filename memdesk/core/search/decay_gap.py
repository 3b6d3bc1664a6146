"""What an agent profile's decay hides: notes memdesk finds that the agent's own ranking buries.

OpenClaw (2026.9 always, 2026.4 when its config turns it on) multiplies each dated
note's score by ``2^(-age / half-life)`` (30 days) and then drops every hit under
``minScore`` (0.35). On memory a few months old that leaves almost nothing: a note
that matches a question well but is 90 days old keeps an eighth of its score. This
module counts, for one question, the notes that memdesk's own profile returns and
that the agent profile drops *only because of the decay*: the note's best chunk
clears the agent's ``minScore`` without the decay multiplier and falls under it with
it, and the agent shows no chunk of that note. A note the agent misses for any other
reason (a weaker match, its keyword rules) is not counted.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence

from memdesk.core.search import ranking
from memdesk.core.search.hits import CandidatePool, Hit
from memdesk.core.search.settings import SearchSettings

# Every candidate the agent ranks is looked at, not only those it would show.
_ALL = 100


@dataclasses.dataclass(frozen=True)
class DecayGap:
    """Notes (workspace-relative paths, memdesk's order) the agent's decay hides."""

    hidden: tuple[str, ...]
    half_life_days: float
    min_score: float
    agent_notes: int  # notes the agent profile shows for the question
    memdesk_notes: int  # notes memdesk's profile shows

    def to_json(self) -> dict[str, object]:
        return {
            "hidden": list(self.hidden),
            "count": len(self.hidden),
            "half_life_days": self.half_life_days,
            "min_score": self.min_score,
            "agent_notes": self.agent_notes,
            "memdesk_notes": self.memdesk_notes,
        }


def hidden_by_decay(
    memdesk_hits: Sequence[Hit],
    agent_pool: CandidatePool,
    agent_settings: SearchSettings,
    *,
    now: dt.date | dt.datetime | None,
) -> DecayGap | None:
    """The notes of ``memdesk_hits`` that ``agent_pool`` ranked under ``agent_settings``
    drops only because of its decay; None when the agent's ranking has no decay."""
    settings = agent_settings.clamped()
    if not settings.decay:
        return None
    shown = ranking.rank(agent_pool, settings, now=now)
    shown_notes = {h.path for h in shown}
    wide = ranking.rank(agent_pool, settings.replace(min_score=0.0, max_results=_ALL), now=now)
    buried: set[str] = set()
    for h in wide:
        if h.path in shown_notes or h.decay >= 1.0 or h.decay <= 0.0:
            continue
        if h.score < settings.min_score <= h.score / h.decay:
            buried.add(h.path)
    memdesk_notes = list(dict.fromkeys(h.path for h in memdesk_hits))
    hidden = tuple(p for p in memdesk_notes if p in buried)
    return DecayGap(hidden, settings.half_life_days, settings.min_score, len(shown_notes), len(memdesk_notes))
