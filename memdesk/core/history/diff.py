"""Line diffs between two versions, and undoing or applying one hunk of them.

Lines keep their endings ("\\r\\n", "\\n", none on a last line without one), so a hunk
reverted or applied changes exactly its own lines and every other byte stays as it was.
Only "\\n" ends a line here (``str.splitlines`` would also split on form feeds and
U+2028, which a note may hold inside a line).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_LINE = re.compile(r"[^\n]*\n|[^\n]+$")


@dataclass(frozen=True)
class Hunk:
    """One changed run of lines: ``old_lines`` at ``old_start`` became ``new_lines`` at
    ``new_start`` (0-based line numbers; each line with its ending)."""

    old_start: int
    old_lines: list[str]
    new_start: int
    new_lines: list[str]

    @property
    def added(self) -> int:
        return len(self.new_lines)

    @property
    def removed(self) -> int:
        return len(self.old_lines)


class HunkMismatch(ValueError):
    """The text no longer holds the hunk's lines where it says (it changed since)."""


def lines(text: str) -> list[str]:
    """``text``'s lines, each with its ending; joined they give ``text`` back exactly."""
    return _LINE.findall(text)


def hunks(old: str, new: str) -> list[Hunk]:
    """What changed from ``old`` to ``new``, one hunk per changed run of lines."""
    a, b = lines(old), lines(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [
        Hunk(i1, a[i1:i2], j1, b[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
    ]


def stats(old: str, new: str) -> tuple[int, int]:
    """(lines added, lines removed) from ``old`` to ``new``."""
    found = hunks(old, new)
    return sum(h.added for h in found), sum(h.removed for h in found)


def _place(text_lines: list[str], expected: list[str], start: int) -> int:
    """Where ``expected`` sits in ``text_lines``: at ``start`` if it is there, else its
    nearest occurrence (lines above it were added or removed since)."""
    width = len(expected)
    if text_lines[start : start + width] == expected and start <= len(text_lines):
        return start
    if width:
        found = [i for i in range(len(text_lines) - width + 1) if text_lines[i : i + width] == expected]
        if found:
            return min(found, key=lambda i: abs(i - start))
    raise HunkMismatch("the text changed where this hunk applies; compare the versions again")


def revert_hunk(new_text: str, hunk: Hunk) -> str:
    """``new_text`` with ``hunk`` undone (its new lines back to its old ones)."""
    text_lines = lines(new_text)
    at = _place(text_lines, hunk.new_lines, hunk.new_start)
    return "".join(text_lines[:at] + hunk.old_lines + text_lines[at + len(hunk.new_lines) :])


def apply_hunk(old_text: str, hunk: Hunk) -> str:
    """``old_text`` with ``hunk`` made (its old lines replaced by its new ones)."""
    text_lines = lines(old_text)
    at = _place(text_lines, hunk.old_lines, hunk.old_start)
    return "".join(text_lines[:at] + hunk.new_lines + text_lines[at + len(hunk.old_lines) :])


def unified(
    old: str, new: str, *, old_name: str = "before", new_name: str = "after", context: int = 3
) -> str:
    """The classic unified diff text of two versions (for the CLI and logs)."""
    out = []
    for line in difflib.unified_diff(lines(old), lines(new), old_name, new_name, n=context):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
