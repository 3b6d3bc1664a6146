"""The keys of ``openclaw.json`` memdesk reads: ``get`` walks a key path, ``check_types``
says which key has a value of the wrong JSON type, and where."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memdesk.core.agent.config_file import OpenClawConfigError


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
