"""Which date a note's score decays from, under each ranking profile.

OpenClaw only dates ``memory/YYYY-MM-DD.md``; its own session hook writes
``memory/YYYY-MM-DD-slug.md`` and people file notes in ``memory/2026-01/`` or
``memory/2026/01/11.md``, all of which OpenClaw treats as evergreen (never
decaying). memdesk dates those too.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import re
from pathlib import Path

from memdesk.core.openclaw import decay as oc_decay

# A date at the start of the file name: 2026-01-11.md, 2026-01-11-vendor-pitch.md, 2026_01_11.md
_NAME_DATE = re.compile(r"^(\d{4})[-_.](\d{2})[-_.](\d{2})(?:[-_. ].*)?\.md$")
# Date in folders: memory/2026/01/11.md or memory/2026/01/11-slug.md
_FOLDER_DATE = re.compile(r"(?:^|/)(\d{4})/(\d{2})/(\d{2})(?:[-_. ][^/]*)?\.md$")


def _valid(y: str, m: str, d: str) -> dt.date | None:
    try:
        date = dt.date(int(y), int(m), int(d))
    except ValueError:
        return None
    return date if date.year >= 1970 else None


@functools.lru_cache(maxsize=16384)  # every candidate of every search asks: paths repeat
def _date_fields(rel: str) -> tuple[str, str, str] | None:
    """The year, month and day a memory path's name or folders spell, valid or not."""
    rel = rel.replace("\\", "/")
    if not (rel.startswith("memory/") or "/memory/" in rel):
        return None
    match = _NAME_DATE.match(rel.rsplit("/", 1)[-1]) or _FOLDER_DATE.search(rel)
    return None if match is None else (match[1], match[2], match[3])


def memdesk_path_date(rel: str) -> dt.date | None:
    """The date a memory path names, if any (memdesk profile rules)."""
    fields = _date_fields(rel)
    return None if fields is None else _valid(*fields)


def _mtime_date(workspace: Path, rel: str) -> dt.date | None:
    try:
        mtime = os.stat(workspace / rel).st_mtime
    except OSError:
        return None
    return dt.datetime.fromtimestamp(mtime, tz=dt.UTC).date()


def decay_date(rel: str, *, profile: str, workspace: Path, source: str = "memory") -> dt.date | None:
    """The date decay counts from under ``profile``, or None for an evergreen note.

    Every profile: root ``MEMORY.md``/``memory.md`` and undated ``memory/`` notes are
    evergreen; files from extra paths decay from their modification time. Each
    profile's rule is one of the functions below (``RankingProfile.decay_date``).
    """
    # The registry imports the profiles, which date notes with the functions below.
    from memdesk.core.search import profiles

    return profiles.get(profile).decay_date(rel, workspace, source)


def openclaw_2026_9_decay_date(rel: str, workspace: Path, source: str) -> dt.date | None:
    """2026.9: dated at any depth under memory/, "-slug" names too; USER.md evergreen."""
    from memdesk.core.openclaw import v2026_9

    ms = v2026_9.dated_path_ms(rel)
    if ms is not None:
        return dt.date(1970, 1, 1) + dt.timedelta(days=int(ms // 86_400_000))
    if source == "memory" and v2026_9.is_evergreen(rel):
        return None
    return _mtime_date(workspace, rel)


def openclaw_2026_4_decay_date(rel: str, workspace: Path, source: str) -> dt.date | None:
    """2026.4: ``memory/YYYY-MM-DD.md`` dated; its evergreen memory paths never decay."""
    date = oc_decay.dated_path_date(rel)
    if date is not None:
        return date
    if oc_decay.is_evergreen_memory_path(rel, source):
        return None
    return _mtime_date(workspace, rel)


def memdesk_decay_date(rel: str, workspace: Path, source: str) -> dt.date | None:
    """memdesk: dated notes by their name (``memdesk_path_date``), the rest as OpenClaw."""
    date = memdesk_path_date(rel)
    if date is not None:
        return date
    if _date_fields(rel) is not None:
        # A daily note whose name has an impossible date (2026-02-30.md) is still a
        # dated note, not an evergreen one that would count as current for ever: it
        # ages from its modification time, as files outside memory/ do.
        return _mtime_date(workspace, rel)
    if rel in ("MEMORY.md", "memory.md") or rel.startswith("memory/"):
        return None
    return _mtime_date(workspace, rel)


def age_days(date: dt.date, now: dt.datetime) -> float:
    """Fractional days from UTC midnight of ``date`` to ``now`` (OpenClaw's definition)."""
    midnight = dt.datetime(date.year, date.month, date.day, tzinfo=dt.UTC)
    return (now - midnight).total_seconds() / 86400.0


def as_utc_datetime(now: dt.date | dt.datetime | None) -> dt.datetime:
    """``None`` = the current time; a date means its UTC midnight (``--now YYYY-MM-DD``)."""
    if now is None:
        return dt.datetime.now(dt.UTC)
    if isinstance(now, dt.datetime):
        return now if now.tzinfo else now.replace(tzinfo=dt.UTC)
    return dt.datetime(now.year, now.month, now.day, tzinfo=dt.UTC)
