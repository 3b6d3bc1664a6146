"""The same query against the agent's own index, to show beside memdesk's result.

Keyword hits come from the agent's FTS table with its query and score. When the
agent's embedding model is on this machine and feeds text without prefixes (as
OpenClaw does), its stored vectors are searched too and the two legs are merged
with the agent's weights; otherwise the result says it is keyword-only and why.
Decay and MMR are not applied here: this is the agent's candidate ranking as
stored in its index, which is what goes stale or breaks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from memdesk.core import errors
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg

from .config import Agent
from .index import AgentHit, AgentIndex


class QueryEmbedder(Protocol):
    @property
    def dims(self) -> int: ...

    def embed_query(self, text: str) -> np.ndarray: ...


def open_query_embedder(agent: Agent, models_dir: Path | None) -> tuple[Any, str | None]:
    """memdesk's embedder for the agent's own model, or None and why the vectors are skipped.

    Only a local GGUF model found on this machine qualifies, and only one that memdesk
    feeds without a query prefix: OpenClaw embeds the bare query, so a prefixed vector
    would not be the agent's.
    """
    from memdesk.core.embed.gguf_embedder import GgufEmbedder

    from .doctor import find_local_model

    search = agent.search
    if search is None or search.provider == "none":
        return None, "the agent has no embedding provider: keyword search only"
    if search.provider != "local":
        return (
            None,
            f"the agent embeds with {search.provider}, not on this machine; only its keyword leg is compared",
        )
    path, why = find_local_model(search, models_dir)
    if path is None:
        return None, f"{why}; only its keyword leg is compared"
    try:
        embedder = GgufEmbedder(path)
    except errors.MemdeskError as exc:
        return None, f"{exc}; only its keyword leg is compared"
    if embedder.query_prefix:
        embedder.close()
        return None, (
            f"memdesk prefixes {path.name} queries but OpenClaw does not; only its keyword leg is compared"
        )
    return embedder, None


@dataclass
class AgentResults:
    mode: str
    """``keyword`` or ``hybrid``."""
    hits: list[AgentHit] = field(default_factory=list)
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "note": self.note, "results": [h.to_json() for h in self.hits]}


def agent_results(
    agent: Agent,
    index: AgentIndex,
    query: str,
    *,
    embedder: QueryEmbedder | None = None,
    embedder_note: str | None = None,
) -> AgentResults:
    search = agent.search
    max_results = int(search.max_results) if search else 6
    min_score = float(search.min_score) if search else 0.35
    multiplier = int(search.candidate_multiplier) if search else 4
    pool = min(200, max(1, max_results * multiplier))
    keyword = index.keyword_search(query, limit=pool, sources=("memory",))
    vector: list[AgentHit] = []
    note = embedder_note
    if embedder is not None:
        try:
            vector = index.vector_search(embedder.embed_query(query), limit=pool)
        except Exception as exc:
            note = msg(
                QT_TRANSLATE_NOOP("core", "vector search of the agent's index failed: {error}"),
                error=str(exc),
            )
            vector = []
    if not vector:
        hits = [h for h in keyword if h.score >= min_score][:max_results] or keyword[:max_results]
        return AgentResults(
            "keyword", hits, note or msg(QT_TRANSLATE_NOOP("core", "keyword leg only (no vectors searched)"))
        )
    vw = float(search.vector_weight) if search else 0.7
    tw = float(search.text_weight) if search else 0.3
    merged: dict[tuple[str, int, int], dict[str, Any]] = {}
    for hit in vector:
        merged[(hit.path, hit.start_line, hit.end_line)] = {"hit": hit, "vec": hit.vector_score, "txt": None}
    for hit in keyword:
        entry = merged.setdefault(
            (hit.path, hit.start_line, hit.end_line), {"hit": hit, "vec": None, "txt": None}
        )
        entry["txt"] = hit.text_score
    out: list[AgentHit] = []
    for entry in merged.values():
        base: AgentHit = entry["hit"]
        score = vw * (entry["vec"] or 0.0) + tw * (entry["txt"] or 0.0)
        out.append(
            AgentHit(
                base.path,
                base.source,
                base.start_line,
                base.end_line,
                score,
                entry["txt"],
                entry["vec"],
                base.snippet,
                base.importance,
                base.project,
                base.triggers,
            )
        )
    out.sort(key=lambda h: -h.score)
    return AgentResults("hybrid", [h for h in out if h.score >= min_score][:max_results], note)
