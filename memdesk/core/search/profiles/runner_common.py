"""What the app's ``openclaw-2026.4`` and ``openclaw-2026.9`` profiles share.

Each profile keeps its own index of the open workspace, built the way that release
builds it, because neither release chunks, lists or embeds like memdesk's main
index. Both need the same two things around that index:

* the user's agent settings for this workspace (which files, chunking, tokenizer),
  from their ``openclaw.json`` when it is in that release's layout, re-read when the
  file changes (:class:`SettingsWatch`);
* vectors computed with the release's embedding recipe (bare text, its special
  tokens, one sequence per call), kept per text hash in memory so a note edit
  re-embeds only that note's chunks (:class:`RecipeVectors`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from memdesk.core.embed import openclaw_recipe as embed_recipe
from memdesk.core.openclaw.config import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_TOKENS
from memdesk.core.openclaw.text import hash_text

log = logging.getLogger(__name__)

Tokenizer = Literal["unicode61", "trigram"]
Layout = Literal["2026.4", "2026.9"]


@dataclasses.dataclass(frozen=True)
class AgentSettings:
    """What of the agent's own memory-search config changes what its release indexes and finds.

    ``chunk_tokens``/``chunk_overlap`` only count for 2026.4 (2026.9 dropped the keys).
    """

    tokenizer: Tokenizer = "unicode61"
    extra_paths: tuple[Any, ...] = ()  # memdesk.core.agent.config.ExtraPath
    source: str = "OpenClaw's defaults"
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS
    chunk_overlap: int = DEFAULT_CHUNK_OVERLAP
    # 2026.9 with "sessions" among the searched sources: the agent's id, database and
    # sessions folder, whose transcripts the index holds too (``sessions_2026_9``).
    sessions: tuple[str, Path, Path] | None = None  # (agent id, agent database, sessions folder)


def discover_agent_settings(workspace: Path, layout: Layout) -> AgentSettings:
    """The settings of the user's OpenClaw agent (config in ``layout``) whose workspace this is.

    A config in the other release's layout, no config, or an unreadable one give the
    defaults: the profile then shows what a default agent of that release would
    retrieve here.
    """
    from memdesk.core import errors
    from memdesk.core.agent import config as agent_config

    try:
        setup = agent_config.discover()
    except (errors.MemdeskError, OSError) as exc:
        log.info("openclaw-%s profile: OpenClaw config not read (%s); defaults", layout, exc)
        return AgentSettings()
    if setup.layout != layout:
        return AgentSettings()
    target = Path(workspace).resolve()
    for agent in setup.agents:
        try:
            same = agent.workspace.resolve() == target
        except OSError:
            same = False
        if same and agent.search is not None:
            s = agent.search
            tokenizer: Tokenizer = "trigram" if s.fts_tokenizer == "trigram" else "unicode61"
            sessions = (
                (agent.id, agent.index_path, agent.sessions_dir)
                if layout == "2026.9" and "sessions" in s.search_sources
                else None
            )
            return AgentSettings(
                tokenizer,
                tuple(s.extra_paths),
                f"agent {agent.id}",
                chunk_tokens=int(s.chunk_tokens),
                chunk_overlap=int(s.chunk_overlap),
                sessions=sessions,
            )
    return AgentSettings()


def memory_files(workspace: Path, settings: AgentSettings, layout: Layout) -> list[str]:
    """The workspace-relative files that release indexes for this agent, in its order."""
    from memdesk.core.agent import sources

    return sources.list_agent_files(Path(workspace), settings.extra_paths, layout).rel_paths()


def fingerprint(workspace: Path, files: Sequence[str | Path]) -> tuple[tuple[str, int, int, int, int], ...]:
    """(path, mtime, size, ctime, inode) of each file: a profile index is rebuilt when this
    changes. The status-change time and inode are there because a user cannot set them
    back: a same-size rewrite with its mtime restored (cp -p, rsync -t, touch -r, a
    restore) changes them, where (mtime, size) alone would keep the stale index."""
    out = []
    for rel in files:
        try:
            st = (workspace / rel).stat()
        except OSError:
            continue
        out.append((str(rel), st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino))
    return tuple(out)


def session_sources(settings: AgentSettings) -> list[Path]:
    """The files whose change changes the agent's session corpus: its database (and WAL)
    and every file of its sessions folder."""
    if settings.sessions is None:
        return []
    _, db, folder = settings.sessions
    out = [db, db.with_name(db.name + "-wal")]
    with contextlib.suppress(OSError):
        out += sorted(p for p in Path(folder).iterdir() if p.is_file())
    return out


class SettingsWatch:
    """The agent settings in force for one workspace and release, re-read when
    ``openclaw.json`` changes (or fixed, for tests and replays of recordings)."""

    def __init__(self, workspace: Path, layout: Layout, fixed: AgentSettings | None = None) -> None:
        self.workspace = Path(workspace)
        self.layout: Layout = layout
        self._fixed = fixed
        self._key: tuple[Any, ...] | None = None
        self._settings = fixed or AgentSettings()

    def current(self) -> AgentSettings:
        if self._fixed is not None:
            return self._fixed
        from memdesk.core.agent import config as agent_config

        path = agent_config.config_path()
        try:
            st = path.stat()
            key: tuple[Any, ...] = (str(path), st.st_mtime_ns, st.st_size)
        except OSError:
            key = (str(path), None)
        if key != self._key:
            self._settings = discover_agent_settings(self.workspace, self.layout)
            self._key = key
        return self._settings


class RecipeVectors:
    """Vectors the way one OpenClaw release embeds, memoised per (recipe, text hash)
    in memory and, given a ``cache``, on disk (``core/index/recipe_cache.py``)."""

    def __init__(self, version: str, cache: Any = None) -> None:
        self.recipe = embed_recipe.recipe_for(version)
        self.embedder: embed_recipe.RecipeEmbedder | None = None
        self.cache = cache  # memdesk.core.index.recipe_cache.RecipeCache
        self._vectors: dict[tuple[str, str], np.ndarray] = {}
        self.embedded = 0  # texts this process had to embed (the rest came from a cache)

    def embedder_for(self, base: Any) -> embed_recipe.RecipeEmbedder | None:
        """The recipe over ``base`` (a loaded GGUF embedder); None without one."""
        if base is None or not hasattr(base, "encode_reference"):
            return None
        if self.embedder is None or self.embedder.base is not base:
            self.embedder = embed_recipe.RecipeEmbedder(base, self.recipe)
        return self.embedder

    def documents(
        self, emb: embed_recipe.RecipeEmbedder, store: Any, embed_lock: Any, texts: Sequence[str]
    ) -> np.ndarray:
        """Vectors for ``texts``: this memo, the on-disk cache, the main index's embedding
        cache (read only: the main index has one writer, the sync), then the model. Raises
        ``embed_recipe.OverContext`` for a text over the model's context, as the release fails."""
        ident = emb.identity
        pkey = ident.provider_key
        hashes = [hash_text(t) for t in texts]
        found = {h: v for h in hashes if (v := self._vectors.get((pkey, h))) is not None}
        if self.cache is not None and len(found) < len(set(hashes)):
            found.update(self.cache.get(pkey, [h for h in dict.fromkeys(hashes) if h not in found]))
        rest = [h for h in dict.fromkeys(hashes) if h not in found]
        if rest and store is not None:
            found.update(store.cached_embeddings(ident.provider, ident.model, pkey, rest))
        missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
        fresh_vectors: dict[str, np.ndarray] = {}
        if missing:
            with embed_lock:
                fresh = emb.embed_documents(list(missing.values()))
            fresh_vectors = {h: np.asarray(fresh[i], dtype=np.float32) for i, h in enumerate(missing)}
            found.update(fresh_vectors)
            self.embedded += len(missing)
        if self.cache is not None and self.cache.replaced():
            # The file went with its index (a rebuild): write every vector into the new one.
            self.cache.put(pkey, {h: found[h] for h in dict.fromkeys(hashes)}, keep=hashes)
        elif self.cache is not None and (
            fresh_vectors or self._vectors.keys() != {(pkey, h) for h in hashes}
        ):
            self.cache.put(pkey, fresh_vectors, keep=hashes)
        # Keep only the texts the index holds now: edited-away chunks would pile up.
        self._vectors = {(pkey, h): found[h] for h in hashes}
        if not hashes:
            return np.zeros((0, emb.dims), np.float32)
        return np.stack([found[h] for h in hashes])

    def query(self, query: str, embed_lock: Any) -> np.ndarray | None:
        """The query's vector under the recipe; None without a model or over its context."""
        if self.embedder is None:
            return None
        try:
            with embed_lock:
                return self.embedder.embed_query(query)
        except embed_recipe.OverContext:
            return None
