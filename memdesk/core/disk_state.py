"""What is at a note's path now, as the save and its conflict error both describe it.

Below ``errors`` and ``index/workspace.py`` alike: the workspace reads it, ``NoteChanged``
carries it (neither imports the other for it).
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class DiskState:
    """What is at a note's path now: its digest and, when readable as a note, bytes."""

    exists: bool
    digest: str | None  # sha256 of the bytes; None when missing or not a regular file
    data: bytes | None  # None when missing, too large or not a regular file
    problem: str | None = None  # why ``data`` is None although something is there
