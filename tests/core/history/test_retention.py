"""Retention: the policy kept in the store, and pruning that keeps every other version readable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memdesk.core.base import sqlite
from memdesk.core.history import Retention, open_history

NOW = datetime(2026, 6, 30, 12, 0, tzinfo=UTC)


def _text(i: int) -> bytes:
    return (
        "".join(f"line {n}: {'changed ' * (n == i % 40)}fact {n}\n" for n in range(200)).encode()
        + b"v%d\n" % i
    )


def test_the_default_policy_is_thirty_days_then_one_a_day(tmp_path: Path) -> None:
    with open_history(tmp_path) as history:
        assert history.retention == Retention(keep_all_days=30, daily_days=None)
        assert history.retention.describe() == "every version for 30 days, then one a day"


def test_a_policy_set_is_kept_in_the_store(tmp_path: Path) -> None:
    with open_history(tmp_path) as history:
        history.set_retention(Retention(keep_all_days=7, daily_days=90))
    with open_history(tmp_path) as again:
        assert again.retention == Retention(7, 90)
        assert "90 more days" in again.retention.describe()
    with pytest.raises(ValueError):
        Retention(keep_all_days=-1)


def test_prune_keeps_recent_versions_and_the_last_of_each_older_day(tmp_path: Path) -> None:
    with open_history(tmp_path) as history:
        texts: dict[str, bytes] = {}
        # 60 days, three versions a day, oldest first.
        for day in range(60):
            for hour in (13, 15, 17):
                i = day * 3 + hour
                at = NOW - timedelta(days=60 - day) + timedelta(hours=hour - 12)
                version = history.capture("MEMORY.md", _text(i), source="disk", at=at)
                assert version is not None
                texts[version.id] = _text(i)
        blobs_before = sqlite.rows(history._conn, "SELECT count(*) FROM blobs")[0][0]
        dropped = history.prune(NOW)
        kept = history.timeline("MEMORY.md", git=False)
        cutoff = NOW - timedelta(days=30)
        recent = [v for v in kept if v.at >= cutoff]
        older = [v for v in kept if v.at < cutoff]
        assert len(recent) == 30 * 3
        assert len({v.at.date() for v in older}) == len(older)  # one a day
        assert all(v.at.hour == 17 for v in older)  # the day's last
        assert dropped == 180 - len(kept)
        assert sqlite.rows(history._conn, "SELECT count(*) FROM blobs")[0][0] < blobs_before
        # Versions built on dropped ones as deltas still read back exactly.
        history._blobs.cache.clear()
        assert {v.id: history.content(v) for v in kept} == {v.id: texts[v.id] for v in kept}


def test_the_newest_version_of_a_note_is_never_pruned(tmp_path: Path) -> None:
    with open_history(tmp_path) as history:
        history.set_retention(Retention(keep_all_days=1, daily_days=0))
        history.capture("memory/old.md", b"a\n", source="disk", at=NOW - timedelta(days=400))
        history.capture("memory/old.md", b"b\n", source="disk", at=NOW - timedelta(days=300))
        history.capture("memory/gone.md", b"c\n", source="disk", at=NOW - timedelta(days=300))
        history.capture("memory/gone.md", None, source="deleted", at=NOW - timedelta(days=200))
        assert history.prune(NOW) == 2
        (only,) = history.timeline("memory/old.md", git=False)
        assert history.content(only) == b"b\n"
        assert [v.source for v in history.timeline("memory/gone.md", git=False)] == ["deleted"]
