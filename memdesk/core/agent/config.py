"""Find and read the agent's own OpenClaw setup: ``openclaw.json``, its agents and workspaces.

Two key layouts exist in the wild and both are read:

* **2026.4** (OpenClaw up to the spring 2026 releases): agents in ``agents.list[]``,
  memory search under ``agents.defaults.memorySearch`` and ``agents.list[].memorySearch``,
  the index in ``<state>/memory/<agent>.sqlite`` (``store.path`` may move it).
* **2026.9** (current): agents in ``agents.entries.<id>`` (``agents.list`` still read),
  memory search under ``memory.search`` and ``agents.entries.<id>.memory.search``, only
  ``query.maxResults``/``query.minScore`` left of the ranking keys, and the index inside
  each agent's database ``<state>/agents/<agent>/agent/openclaw-agent.sqlite``.

The path rules (``OPENCLAW_STATE_DIR``, ``OPENCLAW_CONFIG_PATH``, ``OPENCLAW_PROFILE``,
the legacy ``~/.clawdbot`` folder, ``$include``) follow OpenClaw 2026.9.6's
``src/config/paths.ts`` and ``src/agents/agent-scope.ts``; the merge rules follow its
``src/agents/memory-search.ts`` and, for 2026.4, ``resolve_memory_search_config``.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from memdesk.core import errors
from memdesk.core.agent import config_file
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.core.openclaw import config as oc4_config

Layout = Literal["2026.4", "2026.9"]
LAYOUTS: tuple[Layout, ...] = ("2026.4", "2026.9")
NEWEST: Layout = "2026.9"
DEFAULT_AGENT_ID = "main"
CONFIG_FILENAME = "openclaw.json"
LEGACY_CONFIG_FILENAMES = ("clawdbot.json",)
LEGACY_STATE_DIRNAMES = (".clawdbot",)
MAX_INCLUDE_DEPTH = 10
# Files read through $include in all: ten levels of lists of the same file would
# otherwise read it billions of times (no cycle, so the cycle check does not stop it).
MAX_INCLUDES = 100

# 2026.9 fixed these at 2026.4's defaults (decay and MMR on); the config no longer
# has keys for them.
FIXED_2026_9 = {
    "vector_weight": oc4_config.DEFAULT_VECTOR_WEIGHT,
    "text_weight": oc4_config.DEFAULT_TEXT_WEIGHT,
    "candidate_multiplier": oc4_config.DEFAULT_CANDIDATE_MULTIPLIER,
    "mmr": True,
    "mmr_lambda": oc4_config.DEFAULT_MMR_LAMBDA,
    "decay": True,
    "half_life_days": oc4_config.DEFAULT_HALF_LIFE_DAYS,
    "chunk_tokens": oc4_config.DEFAULT_CHUNK_TOKENS,
    "chunk_overlap": oc4_config.DEFAULT_CHUNK_OVERLAP,
}


OpenClawConfigError = config_file.OpenClawConfigError


@dataclass(frozen=True)
class ExtraPath:
    """One ``extraPaths`` entry: a file or folder, optionally narrowed by a glob (2026.9)."""

    path: str
    pattern: str | None = None

    def to_json(self) -> str | dict[str, str]:
        return self.path if self.pattern is None else {"path": self.path, "pattern": self.pattern}


@dataclass(frozen=True)
class AgentSearch:
    """The memory-search settings one agent runs with, after OpenClaw's merge and defaults."""

    enabled: bool
    provider: str
    model: str
    local_model_path: str | None
    fallback: str
    sources: tuple[str, ...]
    """Sources the index holds (2026.9 adds ``sessions`` for cross-conversation recall)."""
    search_sources: tuple[str, ...]
    """Sources an ordinary ``memory_search`` call returns."""
    remember_across_conversations: bool
    extra_paths: tuple[ExtraPath, ...]
    fts_tokenizer: str
    max_results: float
    min_score: float
    vector_weight: float
    text_weight: float
    candidate_multiplier: float
    mmr: bool
    mmr_lambda: float
    decay: bool
    half_life_days: float
    chunk_tokens: float
    chunk_overlap: float
    cache_enabled: bool
    multimodal: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "enabled": self.enabled,
            "provider": self.provider,
            "model": self.model,
            "localModelPath": self.local_model_path,
            "fallback": self.fallback,
            "sources": list(self.sources),
            "searchSources": list(self.search_sources),
            "rememberAcrossConversations": self.remember_across_conversations,
            "extraPaths": [e.to_json() for e in self.extra_paths],
            "ftsTokenizer": self.fts_tokenizer,
            "maxResults": self.max_results,
            "minScore": self.min_score,
            "vectorWeight": self.vector_weight,
            "textWeight": self.text_weight,
            "candidateMultiplier": self.candidate_multiplier,
            "mmr": self.mmr,
            "mmrLambda": self.mmr_lambda,
            "decay": self.decay,
            "halfLifeDays": self.half_life_days,
            "chunkTokens": self.chunk_tokens,
            "chunkOverlap": self.chunk_overlap,
        }


@dataclass(frozen=True)
class Agent:
    """One configured agent and where its files are."""

    id: str
    name: str | None
    default: bool
    workspace: Path
    index_path: Path
    sessions_dir: Path
    search: AgentSearch | None
    """None when memory search is disabled for this agent."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "default": self.default,
            "workspace": str(self.workspace),
            "indexPath": str(self.index_path),
            "sessionsDir": str(self.sessions_dir),
            "memorySearch": self.search.to_json() if self.search else None,
        }


@dataclass(frozen=True)
class OpenClawSetup:
    """Everything memdesk knows about the user's OpenClaw install."""

    state_dir: Path
    config_path: Path
    config_exists: bool
    config: Mapping[str, Any]
    layout: Layout
    layout_reason: str
    version_hint: str | None
    includes: tuple[Path, ...]
    agents: tuple[Agent, ...]
    warnings: tuple[str, ...] = field(default=())
    installed: bool = True
    """False when there is no sign of OpenClaw: no config, no state folder, no
    ``openclaw`` command on the PATH (then every path above is only where it would be)."""

    def agent(self, agent_id: str | None = None) -> Agent:
        """The agent named ``agent_id`` (normalized), or the default one."""
        if agent_id is None:
            for agent in self.agents:
                if agent.default:
                    return agent
            return self.agents[0]
        wanted = normalize_agent_id(agent_id)
        for agent in self.agents:
            if agent.id == wanted:
                return agent
        known = ", ".join(a.id for a in self.agents)
        raise errors.MemdeskError(f"no OpenClaw agent {agent_id!r} in {self.config_path} (agents: {known})")

    def to_json(self) -> dict[str, Any]:
        return {
            "stateDir": str(self.state_dir),
            "configPath": str(self.config_path),
            "configExists": self.config_exists,
            "layout": self.layout,
            "layoutReason": self.layout_reason,
            "versionHint": self.version_hint,
            "includes": [str(p) for p in self.includes],
            "agents": [a.to_json() for a in self.agents],
            "warnings": list(self.warnings),
            "installed": self.installed,
        }


# -- paths ------------------------------------------------------------------------------
def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    """``OPENCLAW_HOME``, else ``HOME`` (OpenClaw's ``resolveRequiredHomeDir``)."""
    e = _env(env)
    for key in ("OPENCLAW_HOME", "HOME"):
        value = (e.get(key) or "").strip()
        if value:
            return Path(value).expanduser()
    return Path.home()


def expand_home(value: str, env: Mapping[str, str] | None = None) -> Path:
    """``~`` and ``~/x`` against OpenClaw's home; anything else unchanged (may stay relative)."""
    value = value.strip()
    if value == "~":
        return home_dir(env)
    if value.startswith(("~/", "~\\")):
        return home_dir(env) / value[2:]
    return Path(value)


def resolve_user_path(value: str, env: Mapping[str, str] | None = None) -> Path:
    """``~`` and ``~/x`` against OpenClaw's home; other paths as given (absolute-ized)."""
    value = value.strip()
    home = home_dir(env)
    if value == "~":
        return home
    if value.startswith(("~/", "~\\")):
        return home / value[2:]
    return Path(os.path.abspath(value))


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """``OPENCLAW_STATE_DIR``, else ``~/.openclaw``, else an existing ``~/.clawdbot``."""
    override = (_env(env).get("OPENCLAW_STATE_DIR") or "").strip()
    if override:
        return resolve_user_path(override, env)
    home = home_dir(env)
    new = home / ".openclaw"
    if new.exists():
        return new
    for name in LEGACY_STATE_DIRNAMES:
        if (home / name).exists():
            return home / name
    return new


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """The active ``openclaw.json``: ``OPENCLAW_CONFIG_PATH``, else the first existing candidate."""
    e = _env(env)
    explicit = (e.get("OPENCLAW_CONFIG_PATH") or "").strip()
    if explicit:
        return resolve_user_path(explicit, env)
    candidates: list[Path] = []
    override = (e.get("OPENCLAW_STATE_DIR") or "").strip()
    if override:
        base = resolve_user_path(override, env)
        candidates += [base / CONFIG_FILENAME, *(base / n for n in LEGACY_CONFIG_FILENAMES)]
    home = home_dir(env)
    for folder in (home / ".openclaw", *(home / n for n in LEGACY_STATE_DIRNAMES)):
        candidates += [folder / CONFIG_FILENAME, *(folder / n for n in LEGACY_CONFIG_FILENAMES)]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    return state_dir(env) / CONFIG_FILENAME


def not_found_message(setup: OpenClawSetup) -> str:
    """What memdesk looked for, when ``setup.installed`` is False (a ``Message``)."""
    return msg(
        QT_TRANSLATE_NOOP(
            "core", "OpenClaw was not found: no {config}, no {state} and no openclaw command on the PATH"
        ),
        config=setup.config_path,
        state=setup.state_dir,
    )


def command_on_path(env: Mapping[str, str] | None = None) -> str | None:
    """Where the ``openclaw`` command is on the PATH, if anywhere."""
    return shutil.which("openclaw", path=_env(env).get("PATH"))


def default_workspace_dir(env: Mapping[str, str] | None = None) -> Path:
    """``~/.openclaw/workspace``, or ``workspace-<profile>`` for a named ``OPENCLAW_PROFILE``."""
    profile = (_env(env).get("OPENCLAW_PROFILE") or "").strip()
    home = home_dir(env)
    if profile and profile.lower() != "default":
        return home / ".openclaw" / f"workspace-{profile}"
    return home / ".openclaw" / "workspace"


_VALID_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$", re.IGNORECASE)


def normalize_agent_id(value: str | None) -> str:
    """OpenClaw's ``normalizeAgentId``: lower-case, invalid runs to ``-``, ``main`` if empty."""
    trimmed = (value or "").strip()
    lowered = trimmed.lower()
    if _VALID_ID.match(trimmed):
        return lowered
    cleaned = re.sub(r"[^a-z0-9_-]+", "-", lowered).lstrip("-").rstrip("-")[:64]
    return cleaned or DEFAULT_AGENT_ID


# -- reading the file -------------------------------------------------------------------
def _deep_merge(base: Any, extra: Any) -> Any:
    if isinstance(base, dict) and isinstance(extra, dict):
        merged = dict(base)
        for key, value in extra.items():
            merged[key] = _deep_merge(merged.get(key), value) if key in merged else value
        return merged
    return extra


def _resolve_includes(
    node: Any, base_dir: Path, chain: tuple[Path, ...], level: int, state: _IncludeState
) -> Any:
    """``node`` with every ``$include`` replaced by its file's content (OpenClaw's rules:
    one file replaces the object, several are deep-merged in order, sibling keys merged
    over them); ``chain`` is the files being included, outermost first, for the cycle
    and depth checks; ``level`` how deep objects nest so far across files."""
    if level > config_file.MAX_NESTING:
        raise OpenClawConfigError(
            f"{chain[-1]}: with its $include files, objects nest over {config_file.MAX_NESTING} "
            "levels deep; not read"
        )
    if isinstance(node, list):
        return [_resolve_includes(item, base_dir, chain, level + 1, state) for item in node]
    if not isinstance(node, dict):
        return node
    resolved: Any = {}
    if "$include" in node:
        here = chain[-1]
        targets = node["$include"]
        single = isinstance(targets, str)
        names = [targets] if single else targets
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise OpenClawConfigError(f"{here}: $include must be a path or a list of paths")
        included: Any = None if single else {}
        for name in names:
            target = (base_dir / Path(name).expanduser()).resolve()
            if target in chain:
                cycle = " -> ".join(str(p) for p in (*chain[chain.index(target) :], target))
                raise OpenClawConfigError(f"{here}: $include goes round in a circle ({cycle})")
            if len(chain) > MAX_INCLUDE_DEPTH:
                raise OpenClawConfigError(
                    f"{here}: $include {name!r} nests includes deeper than {MAX_INCLUDE_DEPTH} levels"
                )
            state.count += 1
            if state.count > MAX_INCLUDES:
                raise OpenClawConfigError(
                    f"{here}: $include {name!r} would read more than {MAX_INCLUDES} included files"
                )
            state.seen.append(target)
            value = config_file.read(target, state.warnings)
            value = _resolve_includes(value, target.parent, (*chain, target), level, state)
            # One file replaces the object; several are deep-merged in order (later wins).
            included = value if single else _deep_merge(included, value)
        resolved = included
    siblings = {k: v for k, v in node.items() if k != "$include"}
    if siblings and not isinstance(resolved, dict):
        raise OpenClawConfigError(f"{chain[-1]}: $include of a non-object cannot have sibling keys")
    for key, value in siblings.items():
        value = _resolve_includes(value, base_dir, chain, level + 1, state)
        resolved[key] = _deep_merge(resolved[key], value) if key in resolved else value
    return resolved


@dataclass
class _IncludeState:
    seen: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    count: int = 0


def read_config(path: Path) -> tuple[dict[str, Any], tuple[Path, ...], tuple[str, ...]]:
    """The parsed config (``$include`` resolved), the files it included and what was odd
    about reading them (bytes that are not UTF-8); ({}, (), ()) if there is no config.

    Every failure is one ``OpenClawConfigError`` line naming the file (see ``config_file``).
    """
    if not path.exists():
        return {}, (), ()
    state = _IncludeState()
    data = config_file.read(path, state.warnings)
    if not isinstance(data, dict):
        raise OpenClawConfigError(f"{path}: the top level must be an object")
    try:
        resolved = _resolve_includes(data, path.parent, (path.resolve(),), 0, state)
    except OpenClawConfigError as exc:
        if str(path) in str(exc):
            raise
        raise OpenClawConfigError(f"{exc} (included from {path})") from None
    if not isinstance(resolved, dict):
        raise OpenClawConfigError(f"{path}: the top level must be an object")
    check_types(resolved, path)
    return resolved, tuple(state.seen), tuple(state.warnings)


def load_config(path: Path) -> tuple[dict[str, Any], tuple[Path, ...]]:
    """The parsed config (``$include`` resolved) and the files it included; {} if absent."""
    cfg, includes, _ = read_config(path)
    return cfg, includes


def get(tree: Any, *keys: str) -> Any:
    """``tree?.a?.b`` for nested dicts."""
    node = tree
    for key in keys:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node


# The JSON type OpenClaw's schema gives each memory-search key memdesk reads, relative to
# a memory-search block (``memory.search``, ``agents.defaults.memorySearch``, per agent).
# OpenClaw refuses a config with a value of another type; memdesk says which and where
# instead of failing on it later (``float("high")``). null is "unset" everywhere.
_SEARCH_TYPES: dict[tuple[str, ...], str] = {
    ("enabled",): "boolean",
    ("provider",): "string",
    ("model",): "string",
    ("fallback",): "string",
    ("sources",): "list",
    ("extraPaths",): "list",
    ("rememberAcrossConversations",): "boolean",
    ("local",): "object",
    ("local", "modelPath"): "string",
    ("experimental",): "object",
    ("experimental", "sessionMemory"): "boolean",
    ("store",): "object",
    ("store", "path"): "string",
    ("store", "fts"): "object",
    ("store", "fts", "tokenizer"): "string",
    ("chunking",): "object",
    ("chunking", "tokens"): "number",
    ("chunking", "overlap"): "number",
    ("query",): "object",
    ("query", "maxResults"): "number",
    ("query", "minScore"): "number",
    ("query", "hybrid"): "object",
    ("query", "hybrid", "enabled"): "boolean",
    ("query", "hybrid", "vectorWeight"): "number",
    ("query", "hybrid", "textWeight"): "number",
    ("query", "hybrid", "candidateMultiplier"): "number",
    ("query", "hybrid", "mmr"): "object",
    ("query", "hybrid", "mmr", "enabled"): "boolean",
    ("query", "hybrid", "mmr", "lambda"): "number",
    ("query", "hybrid", "temporalDecay"): "object",
    ("query", "hybrid", "temporalDecay", "enabled"): "boolean",
    ("query", "hybrid", "temporalDecay", "halfLifeDays"): "number",
    ("cache",): "object",
    ("cache", "enabled"): "boolean",
    ("cache", "maxEntries"): "number",
    ("sync",): "object",
    ("sync", "watch"): "boolean",
    ("sync", "watchDebounceMs"): "number",
    ("multimodal",): "object",
}
_AGENT_TYPES: dict[tuple[str, ...], str] = {
    ("id",): "string",
    ("name",): "string",
    ("default",): "boolean",
    ("workspace",): "string",
    ("memorySearch",): "object",
    ("memory",): "object",
    ("memory", "search"): "object",
}
_TOP_TYPES: dict[tuple[str, ...], str] = {
    ("agents",): "object",
    ("agents", "list"): "list",
    ("agents", "entries"): "object",
    ("agents", "defaults"): "object",
    ("agents", "defaults", "workspace"): "string",
    ("agents", "defaults", "memorySearch"): "object",
    ("memorySearch",): "object",
    ("memory",): "object",
    ("memory", "search"): "object",
    ("session",): "object",
    ("session", "store"): "string",
}
_EXPECTED = {
    "boolean": "true or false",
    "string": "a string",
    "number": "a number",
    "list": "a list",
    "object": "an object",
}


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "list" if isinstance(value, list) else "object" if isinstance(value, dict) else "other"


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _tree(types: Mapping[tuple[str, ...], str]) -> dict[str, Any]:
    """The flat key-path table as nested ``{key: (type, {child: ...})}``, walked by what a
    block holds (a config with thousands of agents is checked in milliseconds)."""
    root: dict[str, Any] = {}
    for keys, wanted in types.items():
        level = root
        for key in keys[:-1]:
            level = level.setdefault(key, ["object", {}])[1]
        level.setdefault(keys[-1], [wanted, {}])[0] = wanted
    return root


def _check_block(block: Any, where: str, tree: Mapping[str, Any], path: Path) -> None:
    if not isinstance(block, Mapping):
        return
    for key, value in block.items():
        spec = tree.get(key)
        if spec is None or value is None:
            continue
        wanted, children = spec
        name = f"{where}.{key}" if where else str(key)
        if _json_type(value) != wanted:
            raise OpenClawConfigError(
                f"{path}: {name} is {_shown(value)} ({_EXPECTED.get(_json_type(value), 'another type')}), "
                f"but OpenClaw expects {_EXPECTED[wanted]}"
            )
        if children:
            _check_block(value, name, children, path)


_SEARCH_TREE = _tree(_SEARCH_TYPES)
_AGENT_TREE = _tree(_AGENT_TYPES)
_ENTRY_TREE = _tree({k: v for k, v in _AGENT_TYPES.items() if k != ("id",)})
_TOP_TREE = _tree(_TOP_TYPES)


def check_types(cfg: Mapping[str, Any], path: Path) -> None:
    """``OpenClawConfigError`` naming the first key memdesk reads that has the wrong type."""
    _check_block(cfg, "", _TOP_TREE, path)
    for keys in (("memory", "search"), ("memorySearch",), ("agents", "defaults", "memorySearch")):
        _check_block(get(cfg, *keys), ".".join(keys), _SEARCH_TREE, path)
    listed = get(cfg, "agents", "list")
    entries = get(cfg, "agents", "entries")
    agents = [*(((f"agents.list[{i}]", e) for i, e in enumerate(listed)) if isinstance(listed, list) else ())]
    agents += [
        (f"agents.entries.{k}", e) for k, e in (entries.items() if isinstance(entries, Mapping) else ())
    ]
    for where, entry in agents:
        if entry is None:
            continue
        if not isinstance(entry, Mapping):
            raise OpenClawConfigError(
                f"{path}: {where} is {_shown(entry)} ({_EXPECTED.get(_json_type(entry), 'another type')}), "
                "but OpenClaw expects an object"
            )
        _check_block(entry, where, _ENTRY_TREE if where.startswith("agents.entries") else _AGENT_TREE, path)
        _check_block(get(entry, "memory", "search"), f"{where}.memory.search", _SEARCH_TREE, path)
        _check_block(get(entry, "memorySearch"), f"{where}.memorySearch", _SEARCH_TREE, path)


def has_legacy_keys(cfg: Mapping[str, Any]) -> bool:
    """Any 2026.4-only memory-search key (``memorySearch`` at any level)."""
    if get(cfg, "memorySearch") is not None or get(cfg, "agents", "defaults", "memorySearch") is not None:
        return True
    return any(isinstance(e, Mapping) and e.get("memorySearch") is not None for e in _raw_entries(cfg))


def has_current_keys(cfg: Mapping[str, Any]) -> bool:
    """Any 2026.9-only key: ``memory.search``, ``agents.entries`` or a per-agent ``memory``."""
    if get(cfg, "memory", "search") is not None or isinstance(get(cfg, "agents", "entries"), Mapping):
        return True
    return any(isinstance(e, Mapping) and e.get("memory") is not None for e in _raw_entries(cfg))


def _version_tuple(text: str | None) -> tuple[int, int] | None:
    match = re.match(r"^\s*v?(\d{4})\.(\d{1,2})", text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def detect_layout(cfg: Mapping[str, Any], state: Path) -> tuple[Layout, str]:
    """Which OpenClaw release wrote this setup, and how that was decided (a ``Message``)."""
    current, legacy = has_current_keys(cfg), has_legacy_keys(cfg)
    if current and not legacy:
        return "2026.9", msg(QT_TRANSLATE_NOOP("core", "the config uses memory.search / agents.entries"))
    if legacy and not current:
        return "2026.4", msg(QT_TRANSLATE_NOOP("core", "the config uses agents.defaults.memorySearch"))
    version = get(cfg, "meta", "lastTouchedVersion")
    parsed = _version_tuple(version if isinstance(version, str) else None)
    if parsed is not None:
        layout: Layout = "2026.9" if parsed >= (2026, 9) else "2026.4" if parsed <= (2026, 4) else NEWEST
        return layout, msg(
            QT_TRANSLATE_NOOP("core", "the config was last written by OpenClaw {version}"), version=version
        )
    if any((state / "agents").glob("*/agent/openclaw-agent.sqlite")):
        return "2026.9", msg(QT_TRANSLATE_NOOP("core", "an agent database exists under agents/<id>/agent/"))
    if any((state / "memory").glob("*.sqlite")):
        return "2026.4", msg(QT_TRANSLATE_NOOP("core", "an index exists under memory/<agent>.sqlite"))
    return NEWEST, msg(QT_TRANSLATE_NOOP("core", "nothing says otherwise; assuming the newest release"))


# -- agents -----------------------------------------------------------------------------
def _raw_entries(cfg: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    entries = get(cfg, "agents", "entries")
    if isinstance(entries, Mapping):
        return [
            {**(e if isinstance(e, Mapping) else {}), "id": k} for k, e in entries.items() if e is not None
        ]
    listed = get(cfg, "agents", "list")
    if isinstance(listed, list):
        return [e for e in listed if isinstance(e, Mapping)]
    return []


def _default_agent_id(entries: Sequence[Mapping[str, Any]]) -> str:
    if not entries:
        return DEFAULT_AGENT_ID
    chosen = next((e for e in entries if e.get("default")), entries[0])
    raw = chosen.get("id")
    return normalize_agent_id(raw if isinstance(raw, str) else None)


def _workspace_for(
    cfg: Mapping[str, Any],
    entry: Mapping[str, Any] | None,
    agent_id: str,
    default_id: str,
    env: Mapping[str, str] | None,
    state: Path,
) -> Path:
    configured = entry.get("workspace") if entry else None
    if isinstance(configured, str) and configured.strip():
        return resolve_user_path(configured, env)
    fallback = get(cfg, "agents", "defaults", "workspace")
    fallback = fallback.strip() if isinstance(fallback, str) else ""
    if agent_id == default_id:
        return resolve_user_path(fallback, env) if fallback else default_workspace_dir(env)
    if fallback:
        return resolve_user_path(fallback, env) / agent_id
    return state / f"workspace-{agent_id}"


def _extra_paths(raw: Any, layout: Layout, warnings: list[str]) -> list[ExtraPath]:
    out: dict[tuple[str, str], ExtraPath] = {}
    for entry in raw if isinstance(raw, list) else []:
        if isinstance(entry, str):
            path, pattern = entry.strip(), ""
        elif isinstance(entry, Mapping) and isinstance(entry.get("path"), str):
            if layout == "2026.4":
                warnings.append(
                    f"extraPaths entry {dict(entry)!r}: OpenClaw 2026.4 takes only "
                    "plain paths, not {path, pattern}"
                )
                continue
            path = str(entry["path"]).strip()
            pat = entry.get("pattern")
            pattern = pat.strip() if isinstance(pat, str) else ""
        else:
            warnings.append(f"extraPaths entry {entry!r} is neither a path nor {{path, pattern}}; ignored")
            continue
        if path:
            out[(path, pattern)] = ExtraPath(path, pattern or None)
    return list(out.values())


def remember_across_conversations(cfg: Mapping[str, Any], overrides: Mapping[str, Any] | None) -> bool:
    """2026.9's default: on unless DM isolation (``session.dmScope``) is configured anywhere."""
    explicit = get(overrides, "rememberAcrossConversations")
    if explicit is None:
        explicit = get(cfg, "memory", "search", "rememberAcrossConversations")
    if explicit is not None:
        return bool(explicit)
    dm_scope = get(cfg, "session", "dmScope")
    bindings = get(cfg, "bindings")
    bound_scope = isinstance(bindings, list) and any(
        isinstance(b, Mapping)
        and isinstance(b.get("session"), Mapping)
        and b["session"].get("dmScope") is not None
        for b in bindings
    )
    return (dm_scope is None or dm_scope == "main") and not bound_scope


def _normalize_sources(sources: Any, session_memory: bool) -> tuple[str, ...]:
    ordered: dict[str, None] = {}
    for source in sources if isinstance(sources, list) and sources else ["memory"]:
        if source == "memory":
            ordered["memory"] = None
        if source == "sessions" and session_memory:
            ordered["sessions"] = None
    return tuple(ordered) or ("memory",)


def _search_2026_9(
    cfg: Mapping[str, Any], overrides: Mapping[str, Any] | None, warnings: list[str]
) -> AgentSearch | None:
    defaults = get(cfg, "memory", "search")

    def pick(fallback: Any, *keys: str) -> Any:
        value = get(overrides, *keys)
        if value is None:
            value = get(defaults, *keys)
        return fallback if value is None else value

    if not bool(pick(True, "enabled")):
        return None
    remember = remember_across_conversations(cfg, overrides)
    configured_session_memory = bool(pick(False, "experimental", "sessionMemory"))
    configured_sources = pick(None, "sources")
    search_sources = _normalize_sources(
        configured_sources,
        configured_session_memory
        or (remember and isinstance(configured_sources, list) and "sessions" in configured_sources),
    )
    sources = _normalize_sources(
        [*search_sources, "sessions"] if remember else configured_sources,
        remember or configured_session_memory,
    )
    raw_provider = pick(None, "provider")
    provider = raw_provider.strip() if isinstance(raw_provider, str) else ""
    provider = "openai" if provider in ("", "auto") else provider
    raw_min = float(pick(oc4_config.DEFAULT_MIN_SCORE, "query", "minScore"))
    extra = [*(get(defaults, "extraPaths") or []), *(get(overrides, "extraPaths") or [])]
    return AgentSearch(
        enabled=True,
        provider=provider,
        model=str(pick("", "model")),
        local_model_path=_opt_str(pick(None, "local", "modelPath")),
        fallback=str(pick("none", "fallback")),
        sources=sources,
        search_sources=search_sources,
        remember_across_conversations=remember,
        extra_paths=tuple(_extra_paths(extra, "2026.9", warnings)),
        fts_tokenizer="trigram"
        if pick("unicode61", "store", "fts", "tokenizer") == "trigram"
        else "unicode61",
        max_results=float(pick(oc4_config.DEFAULT_MAX_RESULTS, "query", "maxResults")),
        min_score=oc4_config.clamp_number(raw_min, 0, 1),
        cache_enabled=bool(pick(True, "cache", "enabled")),
        multimodal=_multimodal(pick(None, "multimodal")),
        **FIXED_2026_9,  # type: ignore[arg-type]
    )


def _multimodal(raw: Any) -> dict[str, Any]:
    """``normalizeMemoryMultimodalSettings`` (what the scope hash covers)."""
    enabled = isinstance(raw, Mapping) and raw.get("enabled") is True
    max_bytes = raw.get("maxFileBytes") if isinstance(raw, Mapping) else None
    if isinstance(max_bytes, (int, float)) and not isinstance(max_bytes, bool) and math.isfinite(max_bytes):
        max_file_bytes = max(1, math.floor(max_bytes))
    else:
        max_file_bytes = 10 * 1024 * 1024
    modalities: list[str] = []
    if enabled and isinstance(raw, Mapping):
        wanted = raw.get("modalities")
        for m in wanted if isinstance(wanted, list) else []:
            if m == "all":
                modalities = ["image", "audio"]
                break
            if m in ("image", "audio") and m not in modalities:
                modalities.append(m)
    return {"enabled": enabled, "modalities": modalities, "maxFileBytes": max_file_bytes}


def _opt_str(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _search_2026_4(
    cfg: Mapping[str, Any], overrides: Mapping[str, Any] | None, warnings: list[str]
) -> AgentSearch | None:
    defaults = get(cfg, "agents", "defaults", "memorySearch")
    if get(cfg, "memorySearch") is not None and defaults is None:
        defaults = get(cfg, "memorySearch")
    try:
        resolved = oc4_config.resolve_memory_search_config(
            defaults if isinstance(defaults, Mapping) else None,
            overrides if isinstance(overrides, Mapping) else None,
        )
    except (TypeError, ValueError) as exc:
        raise OpenClawConfigError(f"memorySearch: a value has the wrong type ({exc})") from None
    if not resolved.enabled:
        return None
    extra = [*(get(defaults, "extraPaths") or []), *(get(overrides, "extraPaths") or [])]

    def pick(*keys: str) -> Any:
        value = get(overrides, *keys)
        return get(defaults, *keys) if value is None else value

    return AgentSearch(
        enabled=True,
        provider=resolved.provider,
        model=resolved.model,
        local_model_path=_opt_str(pick("local", "modelPath")),
        fallback=resolved.fallback,
        sources=resolved.sources,
        search_sources=resolved.sources,
        remember_across_conversations=False,
        extra_paths=tuple(_extra_paths(extra, "2026.4", warnings)),
        fts_tokenizer=resolved.fts_tokenizer,
        max_results=resolved.max_results,
        min_score=resolved.min_score,
        vector_weight=resolved.vector_weight,
        text_weight=resolved.text_weight,
        candidate_multiplier=resolved.candidate_multiplier,
        mmr=resolved.mmr_enabled,
        mmr_lambda=resolved.mmr_lambda,
        decay=resolved.temporal_decay_enabled,
        half_life_days=resolved.half_life_days,
        chunk_tokens=resolved.chunk_tokens,
        chunk_overlap=resolved.chunk_overlap,
        cache_enabled=resolved.cache_enabled,
        multimodal=_multimodal(pick("multimodal")),
    )


def _index_path(
    layout: Layout,
    state: Path,
    agent_id: str,
    overrides: Mapping[str, Any] | None,
    cfg: Mapping[str, Any],
    env: Mapping[str, str] | None,
) -> Path:
    if layout == "2026.9":
        return state / "agents" / agent_id / "agent" / "openclaw-agent.sqlite"
    raw = get(overrides, "store", "path") or get(cfg, "agents", "defaults", "memorySearch", "store", "path")
    if isinstance(raw, str) and raw.strip():
        return resolve_user_path(raw.replace("{agentId}", agent_id), env)
    return state / "memory" / f"{agent_id}.sqlite"


def _sessions_dir(cfg: Mapping[str, Any], state: Path, agent_id: str, env: Mapping[str, str] | None) -> Path:
    store = get(cfg, "session", "store")
    if isinstance(store, str) and store.strip():
        return resolve_user_path(store.replace("{agentId}", agent_id), env).parent
    return state / "agents" / agent_id / "sessions"


def discover(
    env: Mapping[str, str] | None = None, *, config_file: Path | None = None, layout: Layout | None = None
) -> OpenClawSetup:
    """Read the user's OpenClaw setup; ``layout`` forces a release's key layout."""
    state = state_dir(env)
    path = Path(config_file) if config_file is not None else config_path(env)
    if config_file is not None and (env is None or not (_env(env).get("OPENCLAW_STATE_DIR") or "").strip()):
        state = path.parent
    cfg, includes, read_warnings = read_config(path)
    detected, reason = detect_layout(cfg, state)
    if layout is not None:
        if layout not in LAYOUTS:
            raise errors.MemdeskError(f"unknown OpenClaw layout {layout!r} (2026.4 or 2026.9)")
        reason = msg(
            QT_TRANSLATE_NOOP("core", "chosen explicitly (detected {detected}: {reason})"),
            detected=detected,
            reason=reason,
        )
        detected = layout
    warnings: list[str] = list(read_warnings)
    if detected == "2026.9" and has_legacy_keys(cfg):
        warnings.append(
            msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    "the config still has 2026.4 memorySearch keys; OpenClaw 2026.9 moves them "
                    "to memory.search on start-up (openclaw doctor --fix)",
                )
            )
        )
    if detected == "2026.4" and has_current_keys(cfg):
        warnings.append(
            msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    "the config has 2026.9 keys (memory.search / agents.entries) that OpenClaw 2026.4 does not read",
                )
            )
        )
    version = get(cfg, "meta", "lastTouchedVersion")
    entries: list[Mapping[str, Any]] = _raw_entries(cfg)
    if detected == "2026.4" and isinstance(get(cfg, "agents", "entries"), Mapping):
        entries = [e for e in get(cfg, "agents", "list") or [] if isinstance(e, Mapping)]
    default_id = _default_agent_id(entries)
    by_id: dict[str, Mapping[str, Any] | None] = {}
    for entry in entries:
        raw_id = entry.get("id")
        by_id.setdefault(normalize_agent_id(raw_id if isinstance(raw_id, str) else None), entry)
    if not by_id:
        by_id[DEFAULT_AGENT_ID] = None
    agents: list[Agent] = []
    for agent_id, agent_entry in by_id.items():
        if detected == "2026.9":
            overrides = get(agent_entry, "memory", "search")
            search = _search_2026_9(cfg, overrides, warnings)
        else:
            overrides = get(agent_entry, "memorySearch")
            search = _search_2026_4(cfg, overrides, warnings)
        name = agent_entry.get("name") if agent_entry else None
        agents.append(
            Agent(
                id=agent_id,
                name=name if isinstance(name, str) else None,
                default=agent_id == default_id,
                workspace=_workspace_for(cfg, agent_entry, agent_id, default_id, env, state),
                index_path=_index_path(
                    detected, state, agent_id, overrides if isinstance(overrides, Mapping) else None, cfg, env
                ),
                sessions_dir=_sessions_dir(cfg, state, agent_id, env),
                search=search,
            )
        )
    return OpenClawSetup(
        state_dir=state,
        config_path=path,
        config_exists=path.exists(),
        config=cfg,
        layout=detected,
        layout_reason=reason,
        version_hint=version if isinstance(version, str) else None,
        includes=includes,
        agents=tuple(agents),
        warnings=tuple(dict.fromkeys(warnings)),
        installed=path.exists() or state.exists() or command_on_path(env) is not None,
    )
