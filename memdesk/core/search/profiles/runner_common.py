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
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

import numpy as np

from memdesk.core import errors
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

    return utf8_names(sources.list_agent_files(Path(workspace), settings.extra_paths, layout).rel_paths())


def utf8_names(files: Sequence[str]) -> list[str]:
    """``files`` without the names that are not UTF-8 (Python's lone surrogates): SQLite
    cannot store them, and a profile's index raised UnicodeEncodeError building over a
    workspace holding one. memdesk's own index skips them too, saying why."""
    kept = []
    for rel in files:
        try:
            rel.encode("utf-8")
        except UnicodeEncodeError:
            log.info("profile index: %r skipped: its name is not UTF-8", rel)
            continue
        kept.append(rel)
    return kept


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


ProgressFn = Callable[[int, int], None]  # (texts with a vector, texts in the index)

# Texts embedded per hold of the engine's embed lock while a profile index is built: a
# search's query embedding waits for at most this many one-sequence encodes (~0.1 s
# each for a 200-token chunk on 2 cores), and cancelling stops after them.
EMBED_SLICE = 4
# Vectors written to disk every this many fresh ones, so a cancelled or interrupted
# build keeps its work.
SAVE_EVERY = 64


@dataclasses.dataclass
class Reuse:
    """Where the vectors of the texts a profile index needed came from (cumulative)."""

    cached: int = 0  # this recipe's own: memory or the vectors file
    other_recipe: int = 0  # another profile's vector for the same tokens and conditions
    main_index: int = 0  # memdesk's own index's vector for the same tokens (``SAME_VECTORS``)
    embedded: int = 0  # computed here

    def to_json(self) -> dict[str, int]:
        return dataclasses.asdict(self)


class RecipeVectors:
    """Vectors the way one OpenClaw release embeds, memoised per (recipe, text hash)
    in memory and, given a ``cache``, on disk (``core/index/recipe_cache.py``); texts
    new to this recipe are looked up by their exact vector key (model, token ids,
    computation: ``openclaw_recipe.vector_key``) among every recipe's vectors on disk
    and in memdesk's own index before any is embedded."""

    def __init__(self, version: str, cache: Any = None) -> None:
        self.recipe = embed_recipe.recipe_for(version)
        self.embedder: embed_recipe.RecipeEmbedder | None = None
        self.cache = cache  # memdesk.core.index.recipe_cache.RecipeCache
        self._vectors: dict[tuple[str, str], tuple[str, np.ndarray]] = {}
        self._memo_lock = threading.Lock()  # a background build fills while a search reads
        self.reuse = Reuse()

    @property
    def embedded(self) -> int:
        """Texts this process had to embed (the rest came from a cache or were reused)."""
        return self.reuse.embedded

    def embedder_for(self, base: Any) -> embed_recipe.RecipeEmbedder | None:
        """The recipe over ``base`` (a loaded GGUF embedder); None without one."""
        if base is None or not hasattr(base, "encode_reference"):
            return None
        if self.embedder is None or self.embedder.base is not base:
            self.embedder = embed_recipe.RecipeEmbedder(base, self.recipe)
        return self.embedder

    def documents(
        self,
        emb: embed_recipe.RecipeEmbedder,
        store: Any,
        embed_lock: Any,
        texts: Sequence[str],
        *,
        progress: ProgressFn | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> np.ndarray:
        """Vectors for ``texts``: this memo, this recipe's rows on disk, then by vector key
        another recipe's rows and memdesk's own index (read only: the main index has one
        writer, the sync), then the model, ``EMBED_SLICE`` texts per hold of
        ``embed_lock``. Raises ``embed_recipe.OverContext`` for a text over the model's
        context before embedding any, as the release fails; ``errors.Cancelled`` when
        ``cancelled()`` turns true (the vectors made so far are kept on disk)."""
        pkey = emb.identity.provider_key
        hashes = [hash_text(t) for t in texts]
        text_of = dict(zip(hashes, texts, strict=True))
        unique = list(text_of)
        with self._memo_lock:
            found = {h: v for h in unique if (v := self._vectors.get((pkey, h))) is not None}
        if self.cache is not None and len(found) < len(unique):
            from_disk = self.cache.get(pkey, [h for h in unique if h not in found])
            self.reuse.cached += len(from_disk)
            found.update(from_disk)
        fresh: dict[str, tuple[str, np.ndarray]] = {}  # not in this recipe's rows on disk yet
        tokens: dict[str, list[int]] = {}
        if len(found) < len(unique):
            fresh, tokens = self._reuse(emb, store, {h: text_of[h] for h in unique if h not in found})
            found.update(fresh)
        missing = [h for h in unique if h not in found]
        if progress is not None:
            progress(len(unique) - len(missing), len(unique))
        if missing:
            self._embed(emb, embed_lock, pkey, tokens, missing, found, fresh, progress, cancelled)
        if self.cache is not None and self.cache.replaced():
            # The file went with its index (a rebuild): write every vector into the new one.
            self.cache.put(pkey, {h: found[h] for h in unique}, keep=hashes)
        elif self.cache is not None:
            with self._memo_lock:
                memo_keys = {k for k in self._vectors if k[0] == pkey}
            if fresh or memo_keys != {(pkey, h) for h in unique}:
                self.cache.put(pkey, fresh, keep=hashes)  # ``keep`` prunes edited-away chunks
        # Keep only the texts the index holds now: edited-away chunks would pile up.
        with self._memo_lock:
            self._vectors = {
                **{k: v for k, v in self._vectors.items() if k[0] != pkey},
                **{(pkey, h): found[h] for h in unique},
            }
        if not hashes:
            return np.zeros((0, emb.dims), np.float32)
        return np.stack([found[h][1] for h in hashes])

    def _reuse(
        self, emb: embed_recipe.RecipeEmbedder, store: Any, texts: dict[str, str]
    ) -> tuple[dict[str, tuple[str, np.ndarray]], dict[str, list[int]]]:
        """Vectors for texts new to this recipe that need no model: the same tokens
        computed the same way by another recipe, or by memdesk's own index; the main
        index's rows under this recipe's own key (a parity run's engine) too. Returns them
        with every text's tokens."""
        ident = emb.identity
        tokens = {h: emb.document_tokens(t) for h, t in texts.items()}
        for seq in tokens.values():
            if len(seq) > emb.max_input_tokens:
                raise embed_recipe.OverContext(len(seq), emb.max_input_tokens)
        keys = {h: emb.vector_key(seq) for h, seq in tokens.items()}
        out: dict[str, tuple[str, np.ndarray]] = {}
        if store is not None:
            own = store.cached_embeddings(ident.provider, ident.model, ident.provider_key, list(texts))
            out.update((h, (keys[h], np.asarray(v, np.float32))) for h, v in own.items())
            self.reuse.cached += len(own)
        if self.cache is not None:
            wanted = {keys[h]: h for h in texts if h not in out}
            if wanted:
                for key, vec in self.cache.get_by_keys(list(wanted)).items():
                    out[wanted[key]] = (key, vec)
                    self.reuse.other_recipe += 1
        if store is not None and emb.index_vectors_match():
            # memdesk's own index embedded the same token ids, computed as this recipe does.
            same = [h for h in texts if h not in out and emb.index_tokens(texts[h]) == [tokens[h]]]
            if same:
                base = emb.base.identity
                got = store.cached_embeddings(base.provider, base.model, base.provider_key, same)
                for h, vec in got.items():
                    out[h] = (keys[h], np.asarray(vec, np.float32))
                self.reuse.main_index += len(got)
        return out, tokens

    def _embed(
        self,
        emb: embed_recipe.RecipeEmbedder,
        embed_lock: Any,
        pkey: str,
        tokens: dict[str, list[int]],
        missing: list[str],
        found: dict[str, tuple[str, np.ndarray]],
        fresh: dict[str, tuple[str, np.ndarray]],
        progress: ProgressFn | None,
        cancelled: Callable[[], bool] | None,
    ) -> None:
        total = len(found) + len(missing)
        done = len(found)
        unsaved: dict[str, tuple[str, np.ndarray]] = {}
        try:
            for start in range(0, len(missing), EMBED_SLICE):
                if cancelled is not None and cancelled():
                    raise errors.Cancelled("indexing for the OpenClaw profile cancelled")
                part = missing[start : start + EMBED_SLICE]
                with embed_lock:
                    matrix = emb.embed_token_sequences([tokens[h] for h in part])
                for i, h in enumerate(part):
                    row = (emb.vector_key(tokens[h]), np.asarray(matrix[i], dtype=np.float32))
                    found[h] = fresh[h] = unsaved[h] = row
                self.reuse.embedded += len(part)
                if self.cache is not None and len(unsaved) >= SAVE_EVERY:
                    self.cache.put(pkey, unsaved, keep=None)
                    unsaved = {}
                if progress is not None:
                    progress(done + start + len(part), total)
        except BaseException:
            if self.cache is not None and unsaved:
                self.cache.put(pkey, unsaved, keep=None)  # the next build embeds only the rest
            raise

    def query(self, query: str, embed_lock: Any) -> np.ndarray | None:
        """The query's vector under the recipe; None without a model or over its context."""
        if self.embedder is None:
            return None
        try:
            with embed_lock:
                return self.embedder.embed_query(query)
        except embed_recipe.OverContext:
            return None


Built = TypeVar("Built")


class ProfileRunner(Generic[Built]):
    """One workspace's index for one release's profile, thread-safe, rebuilt when a file
    it reads changes. A release's runner says what its index reads (:meth:`_files`,
    :meth:`_watched`) and how it is built (:meth:`_build`); building ahead of the
    first search, the cache check and the vectors' bookkeeping are the same for both."""

    layout: Layout

    def __init__(
        self, workspace: Path, settings: AgentSettings | None, *, cache: Any, layout: Layout, version: str
    ) -> None:
        """``settings`` fixed (tests, replays of recordings); default: the agent's own
        config for this workspace in ``layout``, re-read when ``openclaw.json`` changes.
        ``cache``: a ``recipe_cache.RecipeCache`` keeping the vectors on disk between runs."""
        self.workspace = Path(workspace)
        self.layout = layout
        self._settings = SettingsWatch(self.workspace, layout, settings)
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._built: Built | None = None  # the release's index (or searcher over it)
        self._vectors = RecipeVectors(version, cache)
        # Why the agent would find nothing (its reindex fails on a chunk over the context).
        self.failure: embed_recipe.OverContext | None = None
        # Set by the engine when its workspace cannot change (an evaluation): the index
        # is not checked against the files again on every search.
        self.frozen = False

    @property
    def settings(self) -> AgentSettings:
        """The agent settings in force (re-read when the OpenClaw config file changes)."""
        return self._settings.current()

    def _files(self, settings: AgentSettings) -> list[str]:
        """The workspace-relative files this release indexes for ``settings``."""
        raise NotImplementedError

    def _watched(self, settings: AgentSettings, files: list[str]) -> list[str | Path]:
        """The files whose change rebuilds the index: by default the indexed ones."""
        return list(files)

    def _build(
        self,
        emb: Any,
        settings: AgentSettings,
        files: list[str],
        store: Any,
        embed_lock: Any,
        progress: ProgressFn | None = None,
        cancelled: Any = None,
    ) -> tuple[Built, embed_recipe.OverContext | None]:
        """The release's index of ``files`` and, when its reindex would fail, why."""
        raise NotImplementedError

    def _state(self, base_embedder: Any) -> tuple[Any, AgentSettings, list[str], tuple[Any, ...]]:
        """(recipe embedder, settings, files, key): what the index is built from now."""
        emb = self._vectors.embedder_for(base_embedder)
        if self.frozen and self._built is not None and self._key is not None and self._key[-1] == id(emb):
            # The engine's workspace does not change (an evaluation): no listing per search.
            return emb, self._key[1], [], self._key
        settings = self.settings
        files = self._files(settings)
        return (
            emb,
            settings,
            files,
            (fingerprint(self.workspace, self._watched(settings, files)), settings, id(emb)),
        )

    def _current(self, base_embedder: Any, store: Any, embed_lock: Any) -> Built:
        """The index for the files as they are now, built under the lock if stale;
        ``base_embedder`` None: FTS-only (no provider)."""
        emb, settings, files, key = self._state(base_embedder)
        with self._lock:
            if self._built is not None and self._key == key:
                return self._built
            built, self.failure = self._build(emb, settings, files, store, embed_lock)
            self._built, self._key = built, key
            return built

    def prepare(
        self,
        base_embedder: Any,
        store: Any,
        embed_lock: Any,
        *,
        progress: ProgressFn | None = None,
        cancelled: Any = None,
    ) -> bool:
        """Build the index ahead of its first search (a background job), without holding
        the lock a search takes while the vectors are embedded; False if it was current.
        ``progress(done, total)`` counts texts with a vector."""
        emb, settings, files, key = self._state(base_embedder)
        with self._lock:
            if self._built is not None and self._key == key:
                return False
        built, failure = self._build(emb, settings, files, store, embed_lock, progress, cancelled)
        with self._lock:
            self._built, self._key, self.failure = built, key, failure
        return True

    @property
    def reuse(self) -> Reuse:
        """Where this index's vectors came from (cumulative for this runner)."""
        return self._vectors.reuse

    def query_vector(self, query: str, embed_lock: Any) -> np.ndarray | None:
        return self._vectors.query(query, embed_lock)
