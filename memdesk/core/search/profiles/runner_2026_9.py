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
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memdesk.core.embed import openclaw_recipe as embed_recipe
from memdesk.core.openclaw import v2026_9
from memdesk.core.openclaw.ids import FTS_ONLY_MODEL

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
        return v2026_9.list_memory_files(workspace)
    return profile_common.memory_files(workspace, settings, "2026.9")


def session_entries(settings: AgentSettings) -> list[Any]:
    """The agent's transcripts as 2026.9 indexes them, when its search includes sessions:
    active sessions from its database, then retained archives (``sessions_2026_9``)."""
    if settings.sessions is None:
        return []
    from memdesk.core.openclaw import sessions_2026_9

    agent_id, db, folder = settings.sessions
    return [*sessions_2026_9.active_entries(db, agent_id), *sessions_2026_9.archive_entries(folder, agent_id)]


class Runner:
    """One workspace's 2026.9 index and searcher; thread-safe, rebuilt on change."""

    def __init__(self, workspace: Path, settings: AgentSettings | None = None, *, cache: Any = None) -> None:
        """``settings`` fixed (tests, replays of recordings); default: the agent's own
        config for this workspace, re-read when ``openclaw.json`` changes. ``cache``: a
        ``recipe_cache.RecipeCache`` keeping the vectors on disk between runs."""
        self.workspace = Path(workspace)
        self._settings = profile_common.SettingsWatch(self.workspace, "2026.9", settings)
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._searcher: v2026_9.Searcher | None = None
        self._vectors = profile_common.RecipeVectors("2026.9", cache)
        # Why the agent would find nothing (its reindex fails on a chunk over the context).
        self.failure: embed_recipe.OverContext | None = None

    @property
    def settings(self) -> AgentSettings:
        """The agent settings in force (re-read when the OpenClaw config file changes)."""
        return self._settings.current()

    def searcher(self, base_embedder: Any, store: Any, embed_lock: Any) -> v2026_9.Searcher:
        emb = self._vectors.embedder_for(base_embedder)
        settings = self.settings
        files = memory_files(self.workspace, settings)
        key = (
            profile_common.fingerprint(self.workspace, [*files, *profile_common.session_sources(settings)]),
            settings,
            id(emb),
        )
        with self._lock:
            if self._searcher is not None and self._key == key:
                return self._searcher
            self.failure = None
            embed = None
            model = FTS_ONLY_MODEL
            if emb is not None:
                model = emb.identity.model
                recipe = emb

                def embed(texts: Sequence[str]) -> np.ndarray:
                    return self._vectors.documents(recipe, store, embed_lock, texts)

            sessions = session_entries(settings)
            try:
                index = v2026_9.Index(
                    self.workspace,
                    model=model,
                    embed_documents=embed,
                    tokenizer=settings.tokenizer,
                    files=files,
                    sessions=sessions,
                )
            except embed_recipe.OverContext as exc:
                # The embedding request fails on such a chunk and OpenClaw discards the
                # whole sync, memory files and transcripts alike: an empty index.
                self.failure = exc
                log.warning("openclaw-2026.9 profile: %s; the agent's reindex fails", exc)
                index = v2026_9.Index(self.workspace, model=model, tokenizer=settings.tokenizer, files=[])
            self._searcher = v2026_9.Searcher(index)
            self._key = key
            return self._searcher

    def query_vector(self, query: str, embed_lock: Any) -> np.ndarray | None:
        return self._vectors.query(query, embed_lock)
