"""Search filters: which folders and which days a search keeps.

One definition for every caller (the app's search bar, ``memdesk search --folder
--since --until``, MCP's ``memory_search``): the engine drops candidates outside the
filter before any profile ranks them, so a filter never changes how the notes it keeps
are scored, only which notes compete.

A note's day is the one its name spells (``memory/2026-11-10.md``, date folders) or,
for a note whose name has none (``MEMORY.md``, ``memory/projects/ferry.md``), the day
it was last written.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Protocol, TypeVar

from memdesk.core import errors
from memdesk.core.search import dates


class _HasPath(Protocol):
    @property
    def path(self) -> str: ...


_T = TypeVar("_T", bound=_HasPath)


class FilterError(errors.MemdeskError):
    """A folder outside the workspace, or a date range that ends before it starts."""


def folder_prefix(folder: str) -> str:
    """``folder`` as a workspace-relative prefix ending in "/" ("" = the whole workspace);
    FilterError for an absolute path or one that leaves the workspace."""
    rel = PurePosixPath(folder.replace("\\", "/").strip())
    text = rel.as_posix().strip("/")
    if folder.strip().startswith(("/", "\\")) or rel.is_absolute() or ".." in rel.parts:
        raise FilterError(f"folder {folder!r}: a folder inside the workspace, e.g. memory/projects")
    return "" if text in ("", ".") else text.removeprefix("./") + "/"


@dataclasses.dataclass(frozen=True)
class SearchFilter:
    """Folders (prefixes ending in "/", any of them) and an inclusive date range."""

    folders: tuple[str, ...] = ()
    since: dt.date | None = None
    until: dt.date | None = None

    @classmethod
    def build(
        cls, folders: Iterable[str] = (), since: dt.date | None = None, until: dt.date | None = None
    ) -> SearchFilter:
        """Folders normalised (``folder_prefix``); FilterError for a bad folder or range."""
        if since is not None and until is not None and until < since:
            raise FilterError(
                f"date range {since.isoformat()} to {until.isoformat()}: it ends before it starts"
            )
        prefixes = tuple(dict.fromkeys(p for p in (folder_prefix(f) for f in folders) if p))
        return cls(prefixes, since, until)

    @property
    def active(self) -> bool:
        return bool(self.folders) or self.since is not None or self.until is not None

    def keeps_path(self, rel: str) -> bool:
        return not self.folders or any(rel.startswith(p) for p in self.folders)

    def keeps_date(self, date: dt.date | None) -> bool:
        if self.since is None and self.until is None:
            return True
        if date is None:
            return False
        return (self.since is None or date >= self.since) and (self.until is None or date <= self.until)

    def keeps(self, rel: str, workspace: Path) -> bool:
        return self.keeps_path(rel) and (
            (self.since is None and self.until is None) or self.keeps_date(note_date(rel, workspace))
        )

    def apply(self, items: Sequence[_T], workspace: Path) -> list[_T]:
        """The items (candidates or hits) whose note the filter keeps, in their order."""
        if not self.active:
            return list(items)
        return [item for item in items if self.keeps(item.path, workspace)]

    def to_json(self) -> dict[str, object]:
        return {
            "folders": [p.rstrip("/") for p in self.folders],
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
        }


NO_FILTER = SearchFilter()


def note_date(rel: str, workspace: Path) -> dt.date | None:
    """The day a note's name spells, else the day it was last written (None: unreadable)."""
    date = dates.memdesk_path_date(rel)
    if date is not None:
        return date
    try:
        mtime = os.stat(workspace / rel).st_mtime
    except OSError:
        return None
    return dt.datetime.fromtimestamp(mtime, tz=dt.UTC).date()
