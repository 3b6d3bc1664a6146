"""Golden labels anchored to the text they label, so edits do not make them stale.

A label is a line range of a note (``memory/x.md#L5-L9``). Its *anchor* is a short
hash of those lines. When the note changes, the label moves to where the same
lines now are (the nearest place if they occur twice); when they are gone it is
reported as lost rather than silently pointing at other text.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence

ANCHOR_CHARS = 16


def anchor_of(lines: Sequence[str], start: int, end: int) -> str:
    """Hash of 1-based lines ``start..end`` (trailing blanks ignored)."""
    body = "\n".join(line.rstrip() for line in lines[start - 1 : end])
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:ANCHOR_CHARS]


@dataclasses.dataclass(frozen=True)
class Reanchored:
    """Where a label's text is now: ``start``/``end`` (None when lost)."""

    start: int | None
    end: int | None
    moved: bool

    @property
    def lost(self) -> bool:
        return self.start is None


def reanchor(start: int, end: int, anchor: str, text: str) -> Reanchored:
    """Find the lines hashed as ``anchor`` in ``text``, nearest to ``start`` first."""
    lines = text.splitlines()
    # A range may end one past ``splitlines()``: chunk ranges count the empty line after
    # a note's final newline. ``anchor_of`` hashed the clamped slice, so compare the same.
    if start <= len(lines) and anchor_of(lines, start, end) == anchor:
        return Reanchored(start, end, False)
    size = end - start + 1
    found = [s for s in range(1, len(lines) + 1) if anchor_of(lines, s, s + size - 1) == anchor]
    if not found:
        return Reanchored(None, None, False)
    best = min(found, key=lambda s: abs(s - start))
    return Reanchored(best, best + size - 1, True)
