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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core import errors
from memdesk.core.agent import config_file
from memdesk.core.agent.agent_search import (
    AgentSearch,
    ExtraPath,
    _search_2026_4,
    _search_2026_9,
    remember_across_conversations,
)
from memdesk.core.agent.config_includes import MAX_INCLUDE_DEPTH, MAX_INCLUDES, load_config, read_config
from memdesk.core.agent.config_keys import check_types, get
from memdesk.core.agent.config_paths import (
    CONFIG_FILENAME,
    DEFAULT_AGENT_ID,
    LEGACY_CONFIG_FILENAMES,
    LEGACY_STATE_DIRNAMES,
    _env,
    command_on_path,
    config_path,
    default_workspace_dir,
    expand_home,
    home_dir,
    normalize_agent_id,
    resolve_user_path,
    state_dir,
)
from memdesk.core.agent.layouts import (
    FIXED_2026_9,
    LAYOUTS,
    NEWEST,
    Layout,
    _raw_entries,
    detect_layout,
    has_current_keys,
    has_legacy_keys,
)
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg

# The names this module held before it was split: other code imports them from here.
__all__ = [
    "CONFIG_FILENAME",
    "DEFAULT_AGENT_ID",
    "FIXED_2026_9",
    "LAYOUTS",
    "LEGACY_CONFIG_FILENAMES",
    "LEGACY_STATE_DIRNAMES",
    "MAX_INCLUDES",
    "MAX_INCLUDE_DEPTH",
    "NEWEST",
    "Agent",
    "AgentSearch",
    "ExtraPath",
    "Layout",
    "OpenClawConfigError",
    "OpenClawSetup",
    "check_types",
    "command_on_path",
    "config_path",
    "default_workspace_dir",
    "detect_layout",
    "discover",
    "expand_home",
    "get",
    "has_current_keys",
    "has_legacy_keys",
    "home_dir",
    "load_config",
    "normalize_agent_id",
    "not_found_message",
    "read_config",
    "remember_across_conversations",
    "resolve_user_path",
    "state_dir",
]


OpenClawConfigError = config_file.OpenClawConfigError


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


def not_found_message(setup: OpenClawSetup) -> str:
    """What memdesk looked for, when ``setup.installed`` is False (a ``Message``)."""
    return msg(
        QT_TRANSLATE_NOOP(
            "core", "OpenClaw was not found: no {config}, no {state} and no openclaw command on the PATH"
        ),
        config=setup.config_path,
        state=setup.state_dir,
    )


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
