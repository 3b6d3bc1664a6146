"""A period's changes counted per note and source, without reading each version.

The Changes view lists every change of a period at once: on 2,000 notes x 50 versions
``History.changes`` builds 100,000 ``Version`` objects (half a second of CPU before
anything is shown). The list needs only, per note and source, how many and when; the
versions of one note are read when it is selected (``note_changes``).

Added by the History UI (issue 23) beside the store rather than inside it: it reads the
store's connection under the store's lock, and is meant to become a ``History`` method.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memdesk.core.base import sqlite
from memdesk.core.history.store import History
from memdesk.core.history.version import BASELINE, CAPTURED_SOURCES, Version, from_micros, to_micros, utc


@dataclass(frozen=True)
class NoteChanges:
    """``count`` versions of ``note`` from ``source`` in the period, ``first`` to ``last``."""

    note: str
    source: str
    count: int
    first: datetime
    last: datetime


def summarize(history: History, since: datetime, until: datetime | None = None) -> list[NoteChanges]:
    """Per note and source, the versions captured in ``[since, until)`` (baselines left
    out, as ``History.changes`` leaves them out), in note order."""
    end = to_micros(utc(until)) if until is not None else 2**62
    with history._lock:  # the store's own lock and connection (see the module docstring)
        rows = sqlite.rows(
            history._conn,
            "SELECT n.path, v.source, count(*), min(v.at), max(v.at) FROM versions v "
            "JOIN notes n ON n.id = v.note WHERE v.at >= ? AND v.at < ? AND v.source != ? "
            "GROUP BY v.note, v.source ORDER BY n.path, v.source",
            # The catalog keeps a source as its place in CAPTURED_SOURCES.
            (to_micros(utc(since)), end, CAPTURED_SOURCES.index(BASELINE)),
            where=history.path,
        )
    found = [
        NoteChanges(
            str(path),
            CAPTURED_SOURCES[int(source)],
            int(count),
            from_micros(int(first)),
            from_micros(int(last)),
        )
        for path, source, count, first, last in rows
    ]
    return sorted(found, key=lambda c: (c.note, c.source))  # sources by name, not by code


def note_changes(
    history: History, note: str, since: datetime, until: datetime | None = None
) -> list[Version]:
    """``note``'s versions captured in ``[since, until)``, oldest first (no git commits)."""
    start, end = utc(since), utc(until) if until is not None else None
    found = [
        v
        for v in history.timeline(note, git=False)
        if v.source != BASELINE and v.at >= start and (end is None or v.at < end)
    ]
    return sorted(found, key=lambda v: (v.at, int(v.id)))
