"""Which versions the store keeps as they age: the policy the user sees and sets.

The default keeps every version for 30 days, then the last version of each day
(days in UTC). The newest version of a note is never pruned, whatever its age.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from memdesk.core.history.version import from_micros


@dataclass(frozen=True)
class Retention:
    keep_all_days: int = 30  # every version younger than this is kept
    # After that, the last version of each day is kept for this many more days;
    # None: for ever; 0: older versions are dropped (but never a note's newest).
    daily_days: int | None = None

    def __post_init__(self) -> None:
        if self.keep_all_days < 0 or (self.daily_days is not None and self.daily_days < 0):
            raise ValueError("retention days cannot be negative")

    def describe(self) -> str:
        """The policy in one line, as the CLI shows it."""
        first = f"every version for {self.keep_all_days} days"
        if self.daily_days is None:
            return f"{first}, then one a day"
        if self.daily_days == 0:
            return f"{first}, then only each note's newest"
        return f"{first}, then one a day for {self.daily_days} more days, then only each note's newest"

    def dumps(self) -> str:
        return json.dumps({"keep_all_days": self.keep_all_days, "daily_days": self.daily_days})

    @classmethod
    def loads(cls, text: str | None) -> Retention:
        if not text:
            return cls()
        try:
            raw = json.loads(text)
            daily = raw.get("daily_days")
            return cls(int(raw["keep_all_days"]), None if daily is None else int(daily))
        except (ValueError, KeyError, TypeError, AttributeError):
            return cls()


def to_prune(versions: Iterable[tuple[int, int, int]], policy: Retention, now: datetime) -> list[int]:
    """The ids of the versions ``policy`` drops at ``now``, from ``(id, note, at)`` rows
    (``at`` in microseconds, UTC) of every captured version."""
    by_note: dict[int, list[tuple[int, int]]] = {}
    for version_id, note, at in versions:
        by_note.setdefault(note, []).append((at, version_id))
    keep_all_after = now - timedelta(days=policy.keep_all_days)
    daily_after = None if policy.daily_days is None else keep_all_after - timedelta(days=policy.daily_days)
    dropped: list[int] = []
    for rows in by_note.values():
        rows.sort()
        newest = rows[-1][1]
        last_of_day: dict[object, int] = {}
        for at, version_id in rows:
            last_of_day[from_micros(at).date()] = version_id
        for at, version_id in rows:
            when = from_micros(at)
            if version_id == newest or when >= keep_all_after:
                continue
            if (daily_after is None or when >= daily_after) and last_of_day[when.date()] == version_id:
                continue
            dropped.append(version_id)
    return dropped
