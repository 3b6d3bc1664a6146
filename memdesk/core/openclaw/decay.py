"""Temporal decay (``temporal-decay.ts``): exponential half-life on dated notes.

Only a file named exactly ``memory/YYYY-MM-DD.md`` (valid calendar date, any
parent directory above ``memory/``) takes its date from the path. Other files
under ``memory/`` plus ``MEMORY.md``/``memory.md`` are *evergreen* and never
decay. Everything else decays by file mtime, when it can be stat'ed.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol, TypeVar

from .config import DEFAULT_HALF_LIFE_DAYS

DAY_MS = 86_400_000

_DATED_PATH_RE = re.compile(r"(?:^|/)memory/(\d{4})-(\d{2})-(\d{2})\.md$")
_EPOCH = _dt.date(1970, 1, 1)


def to_decay_lambda(half_life_days: float) -> float:
    """``ln 2 / halfLife``; 0 (no decay) for non-finite or non-positive half-lives."""
    if not math.isfinite(half_life_days) or half_life_days <= 0:
        return 0.0
    return math.log(2) / half_life_days


def calculate_decay_multiplier(age_days: float, half_life_days: float) -> float:
    """``calculateTemporalDecayMultiplier``: ``exp(-lambda*max(0, age))``.

    Future timestamps (negative age) clamp to age 0, i.e. multiplier 1.
    """
    lam = to_decay_lambda(half_life_days)
    clamped_age = max(0.0, age_days) if not math.isnan(age_days) else age_days
    if lam <= 0 or not math.isfinite(clamped_age):
        return 1.0
    return math.exp(-lam * clamped_age)


def apply_decay_to_score(score: float, age_days: float, half_life_days: float) -> float:
    """``applyTemporalDecayToScore``: ``score * multiplier``."""
    return score * calculate_decay_multiplier(age_days, half_life_days)


def normalize_decay_path(path: str) -> str:
    """Backslashes to ``/`` and drop one leading ``./`` (as OpenClaw does before matching)."""
    normalized = path.replace("\\", "/")
    return normalized[2:] if normalized.startswith("./") else normalized


def calendar_date(year: int, month: int, day: int) -> _dt.date | None:
    """The date a dated path names, else None (both releases validate it this way).

    Mirrors JS ``Date.UTC`` validation: the date must round-trip, so Feb 30 is
    rejected, and years 0000-0099 are rejected too because ``Date.UTC`` maps
    them onto 1900-1999.
    """
    if year < 100:
        return None
    try:
        return _dt.date(year, month, day)
    except ValueError:
        return None


def dated_path_date(path: str) -> _dt.date | None:
    """The date of a strict ``memory/YYYY-MM-DD.md`` path, else None (see :func:`calendar_date`)."""
    match = _DATED_PATH_RE.search(normalize_decay_path(path))
    if not match:
        return None
    year, month, day = (int(g) for g in match.groups())
    return calendar_date(year, month, day)


def dated_path_timestamp_ms(path: str) -> int | None:
    """UTC-midnight epoch milliseconds of a dated path, else None."""
    date = dated_path_date(path)
    if date is None:
        return None
    return (date - _EPOCH).days * DAY_MS


def is_evergreen_memory_path(path: str, source: str = "memory") -> bool:
    """True for memory-source files that never decay.

    ``MEMORY.md``, ``memory.md`` and any ``memory/...`` file that is not a
    strict dated note (so ``memory/2026-01-11-slug.md`` and date subfolders
    are evergreen). Non-memory sources are never evergreen.
    """
    if source != "memory":
        return False
    normalized = normalize_decay_path(path)
    if normalized in ("MEMORY.md", "memory.md"):
        return True
    return normalized.startswith("memory/") and dated_path_date(normalized) is None


def resolve_timestamp_ms(path: str, source: str, workspace_dir: str | None) -> float | None:
    """Timestamp a result decays from: path date, else None if evergreen, else mtime.

    Without ``workspace_dir`` a relative path has no mtime fallback (OpenClaw
    gives up), and stat failures also mean "no decay".
    """
    from_path = dated_path_timestamp_ms(path)
    if from_path is not None:
        return float(from_path)
    if is_evergreen_memory_path(path, source):
        return None
    if not workspace_dir:
        return None
    absolute = path if os.path.isabs(path) else os.path.join(workspace_dir, path)
    try:
        mtime_ms = os.stat(absolute).st_mtime_ns / 1_000_000
    except OSError:
        return None
    return mtime_ms if math.isfinite(mtime_ms) else None


class _Decayable(Protocol):
    """A (frozen) dataclass result carrying what decay needs."""

    @property
    def path(self) -> str: ...

    @property
    def source(self) -> str: ...

    @property
    def score(self) -> float: ...


T = TypeVar("T", bound=_Decayable)


def decay_multipliers(
    results: Sequence[_Decayable],
    *,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
    now_ms: float,
    workspace_dir: str | None = None,
    timestamp_resolver: Callable[[str, str, str | None], float | None] | None = None,
) -> list[float | None]:
    """Each result's decay multiplier, None for one that does not decay (no timestamp).

    Timestamps are cached per ``(source, path)`` as in OpenClaw.
    """
    resolver = timestamp_resolver or resolve_timestamp_ms
    cache: dict[str, float | None] = {}
    out: list[float | None] = []
    for result in results:
        key = f"{result.source}:{result.path}"
        if key not in cache:
            cache[key] = resolver(result.path, result.source, workspace_dir)
        ts = cache[key]
        if ts is None:
            out.append(None)
            continue
        age_days = max(0.0, now_ms - ts) / DAY_MS
        out.append(calculate_decay_multiplier(age_days, half_life_days))
    return out


def apply_temporal_decay(
    results: Sequence[T],
    *,
    enabled: bool,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
    now_ms: float,
    workspace_dir: str | None = None,
    timestamp_resolver: Callable[[str, str, str | None], float | None] | None = None,
) -> list[T]:
    """``applyTemporalDecayToHybridResults``: multiply each score by its decay.

    Results must be dataclass instances with ``path``/``source``/``score``;
    order is preserved (callers sort afterwards).
    """
    if not enabled:
        return list(results)
    multipliers = decay_multipliers(
        results,
        half_life_days=half_life_days,
        now_ms=now_ms,
        workspace_dir=workspace_dir,
        timestamp_resolver=timestamp_resolver,
    )
    return [
        result if m is None else replace(result, score=result.score * m)  # type: ignore[type-var]  # T is a dataclass
        for result, m in zip(results, multipliers, strict=True)
    ]
