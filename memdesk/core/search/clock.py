"""A workspace's clock: the day its recency, decay and relative dates are measured from.

An agent's memory is a record written over a period, often long past ("a conversation
memory written in 2022"). Measured from the wall clock, every note of such a memory is
years old: recency gives each the same nothing, and "back in March" or "last week"
names a period no note is dated in. So a workspace's clock is, by default, the day of
its newest dated note (``memory/2026-11-10.md``, ``memory/2026/11/10.md``, …), or when
none is dated the day of its newest write; the app lets the user set another day, and
the CLI's ``--now`` overrides both. Measured against the wall clock on every golden set
(``docs/quality.md``, "Workspace clock").
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable
from pathlib import Path

from memdesk.core.index import workspace
from memdesk.core.search import dates


def default_clock(root: Path, files: Iterable[Path], *, today: dt.date | None = None) -> dt.date | None:
    """The day of the newest dated note among ``files`` (absolute paths under ``root``),
    else the day of the newest write; None when there is no note at all.

    A note named for a day after ``today`` (the wall clock's, by default) is a plan, not
    a record: it does not move the clock into the future.
    """
    files = list(files)
    newest = newest_dated(root, files, today=today)
    if newest is not None:
        return newest
    newest_write = -1.0
    for path in files:
        try:
            newest_write = max(newest_write, os.stat(path).st_mtime)
        except OSError:
            continue
    if newest_write < 0:
        return None
    return dt.datetime.fromtimestamp(newest_write, tz=dt.UTC).date()


def after_changes(
    current: dt.date | None, changes: Iterable[tuple[str, bool]], *, today: dt.date | None = None
) -> tuple[dt.date] | None:
    """The workspace clock after the notes ``changes`` names (rel path, still listed)
    changed, worked out from ``current`` (a clock read from a dated note) without
    reading the others; None when only a full read can tell (the newest dated note went,
    and another may share its day). A note written or gone that is not dated after the
    clock leaves it where it is: the clock is the newest dated note's day."""
    if current is None:
        return None
    limit = today or dt.date.today()
    for rel, listed in changes:
        date = dates.memdesk_path_date(rel)
        if date is None or date > limit or date < current:
            continue
        if not listed:
            return None  # the newest dated note went: another may share its day
        current = max(current, date)
    return (current,)


def newest_dated(root: Path, files: Iterable[Path], *, today: dt.date | None = None) -> dt.date | None:
    """The day of the newest dated note among ``files`` (``default_clock`` without the
    write times of an undated workspace)."""
    limit = today or dt.date.today()
    newest: dt.date | None = None
    for path in files:
        rel = workspace.rel_path(root, path)  # after each sync, for every note: its fast path
        date = dates.memdesk_path_date(rel)
        if date is not None and date <= limit and (newest is None or date > newest):
            newest = date
    return newest


def resolve(
    now: dt.date | dt.datetime | None, workspace_default: dt.date | None
) -> dt.date | dt.datetime | None:
    """The clock a search runs at: ``now`` when given (``--now``, a day the user set),
    else the workspace's default; None (the wall clock) only for an empty workspace."""
    return now if now is not None else workspace_default
