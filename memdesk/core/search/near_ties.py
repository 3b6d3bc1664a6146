"""Hits an OpenClaw agent may put in either order: closer than the agent's own jitter.

OpenClaw's scores are not repeatable with themselves: two reindexes of the same
workspace by 2026.9.6 gave vectors that moved its own scores by up to 1.1e-4, and the
embedding kernels a CPU picks move them by about as much again. The fixture comparator
allows for that with ``EMBEDDING_SCORE_TOLERANCE``; two neighbouring hits of an agent
profile whose scores are closer than it may come in either order when the agent runs
the same search. Keyword-only scores (bm25, no embedding) are the same digits
everywhere, so a pair of them is never a near-tie.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from memdesk.core.openclaw.fixture_parity import EMBEDDING_SCORE_TOLERANCE

from .hits import Hit
from .settings import is_openclaw

AGENT_JITTER = EMBEDDING_SCORE_TOLERANCE


def near_ties(
    hits: Sequence[Hit], profile: str, tolerance: float = AGENT_JITTER
) -> dict[str, tuple[int, ...]]:
    """``chunk_id`` -> the ranks of its neighbours (in ``hits``' order) it may swap with.

    Empty for memdesk's own profile: memdesk is repeatable, only the agent's order is in doubt.
    """
    if not is_openclaw(profile):
        return {}
    found: dict[str, list[int]] = {}
    for above, below in itertools.pairwise(hits):
        if above.vector_score is None and below.vector_score is None:
            continue
        if abs(above.score - below.score) < tolerance:
            found.setdefault(above.chunk_id, []).append(below.rank)
            found.setdefault(below.chunk_id, []).append(above.rank)
    return {chunk: tuple(ranks) for chunk, ranks in found.items()}
