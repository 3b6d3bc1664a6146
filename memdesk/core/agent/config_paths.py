"""Where OpenClaw keeps its config, state and workspaces, and how it names agents.

The rules (``OPENCLAW_HOME``, ``OPENCLAW_STATE_DIR``, ``OPENCLAW_CONFIG_PATH``,
``OPENCLAW_PROFILE``, the legacy ``~/.clawdbot`` folder) follow OpenClaw 2026.9.6's
``src/config/paths.ts`` and ``src/agents/agent-scope.ts``.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

DEFAULT_AGENT_ID = "main"
CONFIG_FILENAME = "openclaw.json"
LEGACY_CONFIG_FILENAMES = ("clawdbot.json",)
LEGACY_STATE_DIRNAMES = (".clawdbot",)


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
