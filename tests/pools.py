"""Hand-built search candidates for unit tests of ranking and its explanations.

The candidates carry the scores a fetch would have given (no index, no embedder),
which is all ``ranking.rank`` and the explanation read.
"""

from __future__ import annotations

import datetime as dt

from memdesk.core.search.hits import Candidate


def candidate(
    name: str,
    vector: float | None,
    text: float | None,
    *,
    date: dt.date | None = None,
    keyword_only: bool = False,
) -> Candidate:
    """One chunk (lines 1-3) of ``memory/<name>.md`` with the given leg scores."""
    return Candidate(
        chunk_id=name,
        path=f"memory/{name}.md",
        source="memory",
        start_line=1,
        end_line=3,
        text=f"{name} text",
        snippet=f"{name} text",
        vector_score=vector,
        text_score=text,
        date=date,
        keyword_only=keyword_only,
    )
