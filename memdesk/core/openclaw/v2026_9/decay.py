"""Temporal decay in 2026.9 (``temporal-decay.ts``): always on, dated files at any depth
(``-slug`` names too), session transcripts by their indexed mtime."""

from __future__ import annotations

import datetime as dt
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path

from ..decay import calculate_decay_multiplier, calendar_date, normalize_decay_path
from .constants import DAY_MS, HALF_LIFE_DAYS

_EPOCH = dt.date(1970, 1, 1)
_DATED_RE = re.compile(r"(?:^|/)memory/(?:[^/]+/)*(\d{4})-(\d{2})-(\d{2})(?:-[^/]+)?\.md$")


def dated_path_ms(path: str) -> float | None:
    """UTC midnight of a dated memory path at any depth (``-slug`` names too)."""
    m = _DATED_RE.search(normalize_decay_path(path))
    if not m:
        return None
    y, mo, d = (int(g) for g in m.groups())
    date = calendar_date(y, mo, d)
    return None if date is None else float((date - _EPOCH).days * DAY_MS)


def is_evergreen(path: str) -> bool:
    p = normalize_decay_path(path)
    if p in ("MEMORY.md", "USER.md"):
        return True
    return p.startswith("memory/") and _DATED_RE.search(p) is None


def decay_multiplier(
    path: str,
    now_ms: float,
    workspace: Path | None = None,
    half_life_days: float = HALF_LIFE_DAYS,
    *,
    source: str = "memory",
    session_mtimes: Mapping[str, float] | None = None,
) -> float:
    """``extractTimestamp`` + the decay: a session transcript by its indexed mtime, a
    dated memory path by its date, an evergreen one not at all, the rest by file mtime."""
    if source == "sessions":
        ms = (session_mtimes or {}).get(path)
        if ms is None or not math.isfinite(ms):
            return 1.0
        return calculate_decay_multiplier((now_ms - ms) / DAY_MS, half_life_days)
    ts = dated_path_ms(path)
    if ts is None:
        if is_evergreen(path) or workspace is None:
            return 1.0
        try:
            ts = os.stat(workspace / path).st_mtime_ns / 1e6
        except OSError:
            return 1.0
    return calculate_decay_multiplier((now_ms - ts) / DAY_MS, half_life_days)
