"""The two OpenClaw key layouts (2026.4, 2026.9), the values 2026.9 fixes, and which
layout a config was written in (see ``config``'s docstring for what each holds)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from memdesk.core.agent.config_keys import get
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.core.openclaw import config as oc4_config

Layout = Literal["2026.4", "2026.9"]
LAYOUTS: tuple[Layout, ...] = ("2026.4", "2026.9")
NEWEST: Layout = "2026.9"

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
