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
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from . import embed_recipe, v2026_9
from .ids import FTS_ONLY_MODEL
from .text import hash_text

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class AgentSettings:
    """What of the agent's own ``memory.search`` config changes what 2026.9 indexes and finds."""

    tokenizer: v2026_9.Tokenizer = "unicode61"
    extra_paths: tuple[Any, ...] = ()  # memdesk.core.agent.config.ExtraPath
    source: str = "OpenClaw's defaults"


def discover_agent_settings(workspace: Path) -> AgentSettings:
    """The settings of the user's OpenClaw 2026.9 agent whose workspace this is, if any.

    A 2026.4 config, no config, or an unreadable one give the defaults: the profile
    then shows what a default 2026.9 agent would retrieve here.
    """
    from memdesk.core import errors
    from memdesk.core.agent import config as agent_config

    try:
        setup = agent_config.discover()
    except (errors.MemdeskError, OSError) as exc:
        log.info("openclaw-2026.9 profile: OpenClaw config not read (%s); defaults", exc)
        return AgentSettings()
    if setup.layout != "2026.9":
        return AgentSettings()
    target = Path(workspace).resolve()
    for agent in setup.agents:
        try:
            same = agent.workspace.resolve() == target
        except OSError:
            same = False
        if same and agent.search is not None:
            tokenizer: v2026_9.Tokenizer = (
                "trigram" if agent.search.fts_tokenizer == "trigram" else "unicode61"
            )
            return AgentSettings(tokenizer, tuple(agent.search.extra_paths), f"agent {agent.id}")
    return AgentSettings()


def memory_files(workspace: Path, settings: AgentSettings) -> list[str]:
    """The files 2026.9 indexes for this agent: its memory files, then ``extraPaths``."""
    if not settings.extra_paths:
        return v2026_9.list_memory_files(workspace)
    from memdesk.core.agent import sources

    return sources.list_agent_files(Path(workspace), settings.extra_paths, "2026.9").rel_paths()


def _fingerprint(workspace: Path, files: Sequence[str]) -> tuple[tuple[str, int, int], ...]:
    out = []
    for rel in files:
        try:
            st = (workspace / rel).stat()
        except OSError:
            continue
        out.append((rel, st.st_mtime_ns, st.st_size))
    return tuple(out)


class Runner:
    """One workspace's 2026.9 index and searcher; thread-safe, rebuilt on change."""

    def __init__(self, workspace: Path, settings: AgentSettings | None = None) -> None:
        """``settings`` fixed (tests, replays of recordings); default: the agent's own
        config for this workspace, re-read when ``openclaw.json`` changes."""
        self.workspace = Path(workspace)
        self._fixed_settings = settings
        self._settings_key: tuple[Any, ...] | None = None
        self._settings = settings or AgentSettings()
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._searcher: v2026_9.Searcher | None = None
        self._embedder: embed_recipe.RecipeEmbedder | None = None
        self.failure: str | None = None  # why the vector leg is off (e.g. a chunk over the context)
        # Vectors by (recipe provider key, text hash): a note edit re-embeds only its chunks.
        self._vectors: dict[tuple[str, str], np.ndarray] = {}

    def _recipe_embedder(self, base: Any) -> embed_recipe.RecipeEmbedder | None:
        if base is None or not hasattr(base, "encode_reference"):
            return None
        if self._embedder is None or self._embedder.base is not base:
            self._embedder = embed_recipe.RecipeEmbedder(base, embed_recipe.recipe_for("2026.9"))
        return self._embedder

    @property
    def settings(self) -> AgentSettings:
        """The agent settings in force (re-read when the OpenClaw config file changes)."""
        if self._fixed_settings is not None:
            return self._fixed_settings
        from memdesk.core.agent import config as agent_config

        path = agent_config.config_path()
        try:
            st = path.stat()
            key: tuple[Any, ...] = (str(path), st.st_mtime_ns, st.st_size)
        except OSError:
            key = (str(path), None)
        if key != self._settings_key:
            self._settings = discover_agent_settings(self.workspace)
            self._settings_key = key
        return self._settings

    def searcher(self, base_embedder: Any, store: Any, embed_lock: Any) -> v2026_9.Searcher:
        emb = self._recipe_embedder(base_embedder)
        settings = self.settings
        files = memory_files(self.workspace, settings)
        key = (_fingerprint(self.workspace, files), settings, id(emb))
        with self._lock:
            if self._searcher is not None and self._key == key:
                return self._searcher
            self.failure = None
            embed = None
            model = FTS_ONLY_MODEL
            if emb is not None:
                model = emb.identity.model

                def embed(texts: Sequence[str]) -> np.ndarray:
                    return self._cached_vectors(emb, store, embed_lock, texts)

            try:
                index = v2026_9.Index(
                    self.workspace,
                    model=model,
                    embed_documents=embed,
                    tokenizer=settings.tokenizer,
                    files=files,
                )
            except embed_recipe.OverContext as exc:
                # OpenClaw's embedding request fails on such a chunk; keep keyword search.
                self.failure = f"a chunk is too long for the model: {exc}"
                log.warning("openclaw-2026.9 profile: %s; vector search off", self.failure)
                index = v2026_9.Index(self.workspace, model=model, tokenizer=settings.tokenizer, files=files)
            self._searcher = v2026_9.Searcher(index)
            self._key = key
            return self._searcher

    def _cached_vectors(
        self, emb: embed_recipe.RecipeEmbedder, store: Any, embed_lock: Any, texts: Sequence[str]
    ) -> np.ndarray:
        """Vectors for ``texts``: this runner's memory, then the index's embedding cache
        (read only: the main index has one writer, the sync), then the model."""
        ident = emb.identity
        hashes = [hash_text(t) for t in texts]
        found = {h: v for h in hashes if (v := self._vectors.get((ident.provider_key, h))) is not None}
        rest = [h for h in hashes if h not in found]
        if rest and store is not None:
            found.update(store.cached_embeddings(ident.provider, ident.model, ident.provider_key, rest))
        missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
        if missing:
            with embed_lock:
                fresh = emb.embed_documents(list(missing.values()))
            found.update({h: np.asarray(fresh[i], dtype=np.float32) for i, h in enumerate(missing)})
        for h in hashes:
            self._vectors[(ident.provider_key, h)] = found[h]
        if not hashes:
            return np.zeros((0, emb.dims), np.float32)
        return np.stack([found[h] for h in hashes])

    def query_vector(self, query: str, embed_lock: Any) -> np.ndarray | None:
        if self._embedder is None:
            return None
        try:
            with embed_lock:
                return self._embedder.embed_query(query)
        except embed_recipe.OverContext:
            return None
