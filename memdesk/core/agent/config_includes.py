"""Reading ``openclaw.json`` whole: its ``$include`` files resolved and merged by OpenClaw's
rules, then its key types checked (one file is read by ``config_file``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.agent import config_file
from memdesk.core.agent.config_file import OpenClawConfigError
from memdesk.core.agent.config_keys import check_types

MAX_INCLUDE_DEPTH = 10
# Files read through $include in all: ten levels of lists of the same file would
# otherwise read it billions of times (no cycle, so the cycle check does not stop it).
MAX_INCLUDES = 100


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
