"""'Apply to OpenClaw…': write tuned settings into ``openclaw.json``, only where the target takes them.

OpenClaw 2026.9 kept ``query.maxResults``, ``query.minScore``, ``store.fts.tokenizer``,
``extraPaths``, ``sources`` and ``provider``/``model`` under ``memory.search``; weights,
candidate multiplier, MMR and decay are fixed (0.7/0.3, 4, λ 0.7, 30-day half-life) and
its config validation rejects the old keys. OpenClaw 2026.4 takes all of them under
``agents.defaults.memorySearch``. ``plan_export`` computes the new file and says which
tuned values the target cannot take; ``apply_export`` writes it atomically after a
backup, refusing if the file changed since the plan (the diff the user saw) was made.

The file is written where it really is: a symlinked ``openclaw.json`` (a dotfiles
repository's) is written through to its target and stays a link. The temp file holds
the whole config, secrets included, so it is created 0600 and only given the config's
own mode once it is the config; one left by a killed run is removed by the next
(``diskio.remove_stale_temps``, only names of memdesk's own pattern).
"""

from __future__ import annotations

import copy
import datetime as dt
import difflib
import json
import math
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from memdesk.core import diskio, errors
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg

from .config import FIXED_2026_9, ExtraPath, Layout, OpenClawSetup, get


class Tuned(Protocol):
    """What memdesk's ``SearchSettings`` carries (duck-typed so any profile fits); read-only
    properties, so a frozen dataclass satisfies it."""

    @property
    def max_results(self) -> int: ...
    @property
    def min_score(self) -> float: ...
    @property
    def candidate_multiplier(self) -> int: ...
    @property
    def decay(self) -> bool: ...
    @property
    def half_life_days(self) -> int: ...
    @property
    def mmr(self) -> bool: ...
    @property
    def mmr_lambda(self) -> float: ...

    @property
    def normalized_weights(self) -> tuple[float, float]: ...


@dataclass(frozen=True)
class Extras:
    """Values beyond the ranking sliders that a user may also want to hand to the agent."""

    fts_tokenizer: str | None = None
    extra_paths: Sequence[ExtraPath] | None = None
    sources: Sequence[str] | None = None
    provider: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class Rejected:
    setting: str
    value: Any
    reason: str


@dataclass
class ExportPlan:
    target: Layout
    config_path: Path
    scope: str
    """Dotted key of the block written (``memory.search`` or ``agents.entries.x.memory.search``)."""
    before_text: str
    after_text: str
    written: dict[str, Any] = field(default_factory=dict)
    rejected: list[Rejected] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.before_text != self.after_text

    def diff(self) -> str:
        name = self.config_path.name
        return "".join(
            difflib.unified_diff(
                self.before_text.splitlines(keepends=True),
                self.after_text.splitlines(keepends=True),
                fromfile=f"{name} (now)",
                tofile=f"{name} (after)",
            )
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "configPath": str(self.config_path),
            "scope": self.scope,
            "written": self.written,
            "changed": self.changed,
            "diff": self.diff(),
            "rejected": [{"setting": r.setting, "value": r.value, "reason": r.reason} for r in self.rejected],
            "notes": self.notes,
        }


def _round(value: float) -> float | int:
    rounded = round(float(value), 4)
    return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded


def _set(tree: dict[str, Any], dotted: Sequence[str], value: Any) -> None:
    node = tree
    for key in dotted[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = {}
            node[key] = child
        node = child
    node[dotted[-1]] = value


def _block_keys(target: Layout, setup: OpenClawSetup, agent_id: str | None) -> list[str]:
    raw = setup.config
    if target == "2026.9":
        if agent_id is None:
            return ["memory", "search"]
        if isinstance(get(raw, "agents", "entries"), Mapping):
            return ["agents", "entries", agent_id, "memory", "search"]
        raise errors.MemdeskError(
            "per-agent settings need agents.entries in openclaw.json; apply them to all agents instead"
        )
    if agent_id is None:
        return ["agents", "defaults", "memorySearch"]
    raise errors.MemdeskError(
        "memdesk writes OpenClaw 2026.4 settings to agents.defaults only "
        "(agents.list entries are matched by position)"
    )


def _ranking_values(target: Layout, tuned: Tuned) -> tuple[dict[tuple[str, ...], Any], list[Rejected]]:
    values: dict[tuple[str, ...], Any] = {
        ("query", "maxResults"): int(tuned.max_results),
        ("query", "minScore"): _round(tuned.min_score),
    }
    vw, tw = tuned.normalized_weights
    tuned_fixed = {
        "vector_weight": (_round(vw), ("query", "hybrid", "vectorWeight")),
        "text_weight": (_round(tw), ("query", "hybrid", "textWeight")),
        "candidate_multiplier": (int(tuned.candidate_multiplier), ("query", "hybrid", "candidateMultiplier")),
        "mmr": (bool(tuned.mmr), ("query", "hybrid", "mmr", "enabled")),
        "mmr_lambda": (_round(tuned.mmr_lambda), ("query", "hybrid", "mmr", "lambda")),
        "decay": (bool(tuned.decay), ("query", "hybrid", "temporalDecay", "enabled")),
        "half_life_days": (int(tuned.half_life_days), ("query", "hybrid", "temporalDecay", "halfLifeDays")),
    }
    rejected: list[Rejected] = []
    if target == "2026.4":
        values[("query", "hybrid", "enabled")] = True
        for value, keys in tuned_fixed.values():
            values[keys] = value
        return values, rejected
    # Messages (English text that the UI translates), as the Apply dialog lists them.
    labels = {
        "vector_weight": msg(QT_TRANSLATE_NOOP("core", "vector weight")),
        "text_weight": msg(QT_TRANSLATE_NOOP("core", "text weight")),
        "candidate_multiplier": msg(QT_TRANSLATE_NOOP("core", "candidate multiplier")),
        "mmr": msg(QT_TRANSLATE_NOOP("core", "MMR")),
        "mmr_lambda": msg(QT_TRANSLATE_NOOP("core", "MMR lambda")),
        "decay": msg(QT_TRANSLATE_NOOP("core", "temporal decay")),
        "half_life_days": msg(QT_TRANSLATE_NOOP("core", "decay half-life (days)")),
    }
    on, off = msg(QT_TRANSLATE_NOOP("core", "on")), msg(QT_TRANSLATE_NOOP("core", "off"))
    for name, (value, _keys) in tuned_fixed.items():
        fixed = FIXED_2026_9[name]
        same = value == fixed if isinstance(value, bool) else math.isclose(float(value), float(fixed))
        if name == "mmr_lambda" and not tuned.mmr:
            same = True  # λ is meaningless with MMR off; the MMR line already says it
        if name == "half_life_days" and not tuned.decay:
            same = True
        if not same:
            shown_fixed = (on if fixed else off) if isinstance(fixed, bool) else fixed
            shown = (on if value else off) if isinstance(value, bool) else value
            rejected.append(
                Rejected(
                    labels[name],
                    shown,
                    msg(QT_TRANSLATE_NOOP("core", "OpenClaw 2026.9 fixes it at {value}"), value=shown_fixed),
                )
            )
    return values, rejected


def plan_export(
    setup: OpenClawSetup,
    tuned: Tuned | None,
    *,
    target: Layout | None = None,
    agent_id: str | None = None,
    extras: Extras | None = None,
) -> ExportPlan:
    """What ``openclaw.json`` would look like with these settings, without writing anything.

    ``tuned`` None writes only ``extras`` (a doctor's fix such as the trigram tokenizer).
    """
    target = target or setup.layout
    path = setup.config_path
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    block = _block_keys(target, setup, agent_id)
    plan = ExportPlan(target, path, ".".join(block), before, before)
    if setup.includes:
        raise errors.MemdeskError(
            f"{path} uses $include; memdesk does not rewrite split configs. Set these under "
            f"{plan.scope} by hand: " + json.dumps(_preview(target, tuned, extras), ensure_ascii=False)
        )
    values, plan.rejected = _ranking_values(target, tuned) if tuned is not None else ({}, [])
    extras = extras or Extras()
    if extras.fts_tokenizer is not None:
        if extras.fts_tokenizer not in ("unicode61", "trigram"):
            raise errors.MemdeskError(
                f"tokenizer {extras.fts_tokenizer!r}: OpenClaw takes unicode61 or trigram"
            )
        values[("store", "fts", "tokenizer")] = extras.fts_tokenizer
    if extras.extra_paths is not None:
        entries: list[Any] = []
        for entry in extras.extra_paths:
            if entry.pattern and target == "2026.4":
                plan.rejected.append(
                    Rejected(
                        "extraPaths",
                        entry.to_json(),
                        msg(
                            QT_TRANSLATE_NOOP(
                                "core", "OpenClaw 2026.4 takes plain paths only, no glob patterns"
                            )
                        ),
                    )
                )
                continue
            entries.append(entry.to_json())
        values[("extraPaths",)] = entries
    if extras.sources is not None:
        sources = [s for s in dict.fromkeys(extras.sources) if s in ("memory", "sessions")] or ["memory"]
        values[("sources",)] = sources
        if "sessions" in sources:
            values[("experimental", "sessionMemory")] = True
    if extras.provider is not None:
        values[("provider",)] = extras.provider
    if extras.model is not None:
        values[("model",)] = extras.model

    new_config = copy.deepcopy(_raw_for_write(setup))
    current_block = get(new_config, *block)
    effective = setup.agent(agent_id).search if setup.agents else None
    for keys, value in values.items():
        existing = get(current_block, *keys)
        if existing is None and _matches_effective(keys, value, effective, target):
            continue  # already what the agent runs with; keep the file minimal
        if existing == value:
            continue
        _set(new_config, [*block, *keys], value)
        plan.written[".".join([*block, *keys])] = value
    if plan.written:
        plan.after_text = json.dumps(new_config, indent=2, ensure_ascii=False) + "\n"
        if before and not _is_plain_json(before):
            plan.notes.append(
                msg(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "openclaw.json is JSON5 (comments or unquoted keys); it is rewritten as "
                        "plain JSON, as OpenClaw's own config writes do, so comments are lost",
                    )
                )
            )
    if target != setup.layout:
        plan.notes.append(
            msg(
                QT_TRANSLATE_NOOP(
                    "core", "the config is in the {layout} layout; these keys are for {target}"
                ),
                layout=setup.layout,
                target=target,
            )
        )
    return plan


def _preview(target: Layout, tuned: Tuned | None, extras: Extras | None) -> dict[str, Any]:
    values, _ = _ranking_values(target, tuned) if tuned is not None else ({}, [])
    out: dict[str, Any] = {}
    for keys, value in values.items():
        _set(out, list(keys), value)
    return out


def _raw_for_write(setup: OpenClawSetup) -> dict[str, Any]:
    # The parsed file itself (no $include to resolve, checked above).
    return dict(setup.config)


def _is_plain_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


_EFFECTIVE = {
    ("query", "maxResults"): "max_results",
    ("query", "minScore"): "min_score",
    ("query", "hybrid", "vectorWeight"): "vector_weight",
    ("query", "hybrid", "textWeight"): "text_weight",
    ("query", "hybrid", "candidateMultiplier"): "candidate_multiplier",
    ("query", "hybrid", "mmr", "enabled"): "mmr",
    ("query", "hybrid", "mmr", "lambda"): "mmr_lambda",
    ("query", "hybrid", "temporalDecay", "enabled"): "decay",
    ("query", "hybrid", "temporalDecay", "halfLifeDays"): "half_life_days",
    ("store", "fts", "tokenizer"): "fts_tokenizer",
}


def _matches_effective(keys: tuple[str, ...], value: Any, effective: Any, target: Layout) -> bool:
    if keys == ("query", "hybrid", "enabled"):
        return True  # hybrid is on by default in both releases
    name = _EFFECTIVE.get(keys)
    if name is None or effective is None:
        return False
    current = getattr(effective, name)
    if isinstance(value, bool) or isinstance(current, bool):
        return bool(value) == bool(current)
    if isinstance(value, (int, float)) and isinstance(current, (int, float)):
        return math.isclose(float(value), float(current), abs_tol=1e-9)
    return bool(value == current)


def apply_export(plan: ExportPlan, *, now: dt.datetime | None = None) -> Path | None:
    """Write the planned file atomically; returns the backup path (None for a new file)."""
    if not plan.changed:
        return None
    path = plan.config_path
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    if current != plan.before_text:
        raise errors.MemdeskError(
            f"{path} changed since the diff was shown; nothing was written "
            "(review the new diff and apply again)"
        )
    backup: Path | None = None
    if path.exists():
        stamp = (now or dt.datetime.now()).strftime("%Y%m%d-%H%M%S")
        backup = path.with_name(f"{path.name}.memdesk-{stamp}.bak")
        counter = 1
        while backup.exists():
            backup = path.with_name(f"{path.name}.memdesk-{stamp}-{counter}.bak")
            counter += 1
        try:
            shutil.copy2(path, backup)
        except OSError as exc:
            raise errors.MemdeskError(
                f"cannot back up {path} ({exc.strerror}); nothing was written"
            ) from None
    try:
        # A symlinked config (a dotfiles repository's) is written through to its target
        # and stays a link; the temp copy holds the secrets, so it stays owner-only.
        diskio.write_atomic(
            path,
            plan.after_text.encode("utf-8"),
            through_symlink=True,
            private_until_renamed=True,
            remove_stale=True,
            folder_mode=0o700,
        )
    except OSError as exc:
        raise errors.MemdeskError(
            f"cannot write {path} ({exc.strerror}); the old file is unchanged"
        ) from None
    return backup
