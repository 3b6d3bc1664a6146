"""One agent at a glance: its sources and the state of its own index (read-only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memdesk.core import messages
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg

from .config import Agent, Layout
from .index import AgentIndex, AgentIndexError, Drift, IndexStatus
from .sources import Skipped, content_hash, list_agent_files


@dataclass
class AgentOverview:
    agent: Agent
    layout: Layout
    files: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    index: IndexStatus | None = None
    index_error: str | None = None
    drift: Drift | None = None

    @property
    def stale_message(self) -> str | None:
        """ "your agent's index is stale for 3 notes", or None when it is current."""
        if self.drift is None or not self.drift.stale:
            return None
        n = self.drift.stale
        if n == 1:
            return msg(QT_TRANSLATE_NOOP("core", "your agent's index is stale for {n} note"), n=n)
        return msg(QT_TRANSLATE_NOOP("core", "your agent's index is stale for {n} notes"), n=n)

    def to_json(self) -> dict[str, Any]:
        index: dict[str, Any]
        if self.index is None:
            index = {"available": False, "reason": self.index_error}
        else:
            index = {
                "available": True,
                **self.index.to_json(),
                "drift": self.drift.to_json() if self.drift else None,
            }
        return {
            "agent": self.agent.to_json(),
            "layout": self.layout,
            "files": self.files,
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
            "index": index,
        }


def agent_overview(agent: Agent, layout: Layout) -> AgentOverview:
    search = agent.search
    listing = list_agent_files(agent.workspace, search.extra_paths if search else (), layout)
    overview = AgentOverview(agent, layout, listing.rel_paths(), listing.skipped)
    try:
        index = AgentIndex.open(agent.index_path)
    except AgentIndexError as exc:
        overview.index_error = messages.of(exc)  # a Message: the UI shows it translated
        return overview
    with index:
        overview.index = index.status()
        hashes: dict[str, str] = {}
        for source in listing.files:
            try:
                hashes[source.rel_path] = content_hash(source.abs_path)
            except OSError:
                continue
        overview.drift = index.drift(hashes)
    return overview
