"""The app's ``openclaw-2026.9`` profile: the 2026.9 port run over the open workspace.

OpenClaw 2026.9 chunks differently from memdesk (chunker v5, one chunk per entry in
``MEMORY.md``/``USER.md``, annotation comments removed) and keeps a path index, so it
cannot share memdesk's chunk table. :class:`Runner` keeps that version's own index
(in memory, rebuilt when a note changes: building it is FTS inserts plus cached
vectors) and returns the merged, ranked candidates; ``ranking.rank`` then only applies
2026.9's result selection for the current ``minScore``/``maxResults``. Vectors are
computed with OpenClaw's text recipe (bare text, model's own special tokens), kept
per text hash in memory (a note edit re-embeds only that note's chunks) and read
from the main index's embedding cache under that recipe's provider key when there.

When a chunk is longer than the model's context, the embedding request fails and
OpenClaw 2026.9.6 keeps nothing (recorded: ``tests/fixtures/openclaw/2026.9.6/
example-minilm.json`` and ``example-e5.json``: retries of the rejected batch, then
"Memory index failed", ``memory status`` with 0 files and 0 chunks). As the 2026.4
profile does, this one then returns no candidates and :attr:`Runner.failure` says why.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memdesk.core.embed import openclaw_recipe as embed_recipe
from memdesk.core.openclaw import v2026_9

from . import runner_common as profile_common
from .runner_common import AgentSettings

log = logging.getLogger(__name__)

__all__ = ["AgentSettings", "Runner", "discover_agent_settings", "memory_files", "session_entries"]


def discover_agent_settings(workspace: Path) -> AgentSettings:
    """The settings of the user's OpenClaw 2026.9 agent whose workspace this is, if any.

    A 2026.4 config, no config, or an unreadable one give the defaults: the profile
    then shows what a default 2026.9 agent would retrieve here.
    """
    return profile_common.discover_agent_settings(workspace, "2026.9")


def memory_files(workspace: Path, settings: AgentSettings) -> list[str]:
    """The files 2026.9 indexes for this agent: its memory files, then ``extraPaths``."""
    if not settings.extra_paths:
        return profile_common.utf8_names(v2026_9.list_memory_files(workspace))
    return profile_common.memory_files(workspace, settings, "2026.9")


def session_entries(settings: AgentSettings) -> list[Any]:
    """The agent's transcripts as 2026.9 indexes them, when its search includes sessions:
    active sessions from its database, then retained archives (``sessions_2026_9``)."""
    if settings.sessions is None:
        return []
    from memdesk.core.openclaw import sessions_2026_9

    agent_id, db, folder = settings.sessions
    return [*sessions_2026_9.active_entries(db, agent_id), *sessions_2026_9.archive_entries(folder, agent_id)]


class Runner(profile_common.ProfileRunner[v2026_9.Searcher]):
    """One workspace's 2026.9 index and searcher; thread-safe, rebuilt on change."""

    def __init__(self, workspace: Path, settings: AgentSettings | None = None, *, cache: Any = None) -> None:
        super().__init__(workspace, settings, cache=cache, layout="2026.9", version="2026.9")

    def _files(self, settings: AgentSettings) -> list[str]:
        return memory_files(self.workspace, settings)

    def _watched(self, settings: AgentSettings, files: list[str]) -> list[str | Path]:
        # The agent's transcripts are in its index too when its search includes sessions.
        return [*files, *profile_common.session_sources(settings)]

    def _build(
        self,
        emb: Any,
        settings: AgentSettings,
        files: list[str],
        store: Any,
        embed_lock: Any,
        progress: profile_common.ProgressFn | None = None,
        cancelled: Any = None,
    ) -> tuple[v2026_9.Searcher, embed_recipe.OverContext | None]:
        sessions = session_entries(settings)
        if emb is None:
            index = v2026_9.Index(
                self.workspace, tokenizer=settings.tokenizer, files=files, sessions=sessions
            )
            return v2026_9.Searcher(index), None
        model = emb.identity.model
        # The index first (FTS rows, the chunks it embeds), then its vectors.
        texts: list[str] = []

        def collect(batch: Sequence[str]) -> np.ndarray:
            texts.extend(batch)
            return np.zeros((len(batch), emb.dims), np.float64)

        index = v2026_9.Index(
            self.workspace,
            model=model,
            embed_documents=collect,
            tokenizer=settings.tokenizer,
            files=files,
            sessions=sessions,
        )
        try:
            vectors = self._vectors.documents(
                emb, store, embed_lock, texts, progress=progress, cancelled=cancelled
            )
        except embed_recipe.OverContext as exc:
            # The embedding request fails on such a chunk and OpenClaw discards the
            # whole sync, memory files and transcripts alike: an empty index.
            log.warning("openclaw-2026.9 profile: %s; the agent's reindex fails", exc)
            empty = v2026_9.Index(self.workspace, model=model, tokenizer=settings.tokenizer, files=[])
            return v2026_9.Searcher(empty), exc
        if texts:
            index.vectors = np.asarray(vectors, dtype=np.float64)
        return v2026_9.Searcher(index), None

    def searcher(self, base_embedder: Any, store: Any, embed_lock: Any) -> v2026_9.Searcher:
        return self._current(base_embedder, store, embed_lock)
