"""The importance and project multipliers (``importance.ts``, ``project-ranking.ts``)."""

from __future__ import annotations

import math


def importance_multiplier(importance: int | None) -> float:
    """``0.75 + 0.05 × importance`` (importance clamped to 1..10); 1 when unset."""
    if importance is None:
        return 1.0
    return 0.75 + max(1, min(10, math.floor(importance))) * 0.05


def project_multiplier(project_key: str | None, active: frozenset[str] | None) -> float:
    """1.15 when every key of the entry is an active project, 0.9 otherwise; 1 without either."""
    if not project_key or not active:
        return 1.0
    keys = [k.strip() for k in project_key.split(";") if k.strip()]
    return 1.15 if all(k in active for k in keys) else 0.9
