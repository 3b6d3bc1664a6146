"""A note's text as the editor holds it: exact line endings and a three-way merge.

Qt's plain-text document turns CR, CRLF, U+2028 and U+2029 into its own block
separator, drops a leading BOM and (through ``toPlainText``) turns NBSP into a
space. ``NoteText`` keeps the bytes it was loaded from, hands the editor plain
``\\n``-separated lines, and on save puts every untouched line back with its own
separator, so a save changes only what the user edited.

``merge3`` reconciles the version a buffer was loaded from, the file now on disk
and the buffer (diff3 over ``difflib``'s matching blocks): changes on one side
only are taken, overlapping ones are kept both, between conflict markers.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections import Counter
from collections.abc import Sequence

BOM = "\ufeff"
_SEPARATOR = re.compile("(\r\n|\r|\n|\u2028|\u2029)")
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
MINE_MARKER = "<<<<<<< yours"
MIDDLE_MARKER = "======="
THEIRS_MARKER = ">>>>>>> on disk"


@dataclasses.dataclass(frozen=True)
class NoteText:
    """Decoded note text split into lines and the separator that ended each one."""

    bom: bool
    lines: tuple[str, ...]
    separators: tuple[str, ...]  # one per line; "" after the last

    @classmethod
    def parse(cls, text: str) -> NoteText:
        bom = text.startswith(BOM)
        parts = _SEPARATOR.split(text[1:] if bom else text)
        return cls(bom, tuple(parts[0::2]), (*parts[1::2], ""))

    @property
    def editable(self) -> str:
        """What the editor shows: the lines joined by ``\\n``."""
        return "\n".join(self.lines)

    @property
    def newline(self) -> str:
        """The most common separator (for lines the user adds); ``\\n`` if none."""
        counts = Counter(s for s in self.separators if s)
        return counts.most_common(1)[0][0] if counts else "\n"

    def text(self) -> str:
        return (BOM if self.bom else "") + "".join(
            line + sep for line, sep in zip(self.lines, self.separators, strict=True)
        )

    def rebuild(self, edited: str) -> str:
        """``edited`` (``\\n``-separated) with the original separators of unchanged lines.

        Lines are aligned with ``difflib`` after trimming the common head and tail,
        so an edit in a long note costs about as much as the edit.
        """
        new = edited.split("\n")
        old = self.lines
        newline = self.newline
        seps = [newline] * len(new)
        head = 0
        limit = min(len(old), len(new))
        while head < limit and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
            tail += 1
        pairs: list[tuple[int, int]] = [(k, k) for k in range(head)]
        pairs += [(len(old) - 1 - k, len(new) - 1 - k) for k in range(tail)]
        matcher = difflib.SequenceMatcher(
            None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False
        )
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            # Equal lines keep their separators; a rewritten line keeps the one it had.
            if tag in ("equal", "replace"):
                pairs += [(head + i1 + k, head + j1 + k) for k in range(min(i2 - i1, j2 - j1))]
        for i, j in pairs:
            seps[j] = self.separators[i] or newline
        seps[-1] = ""
        return (BOM if self.bom else "") + "".join(line + sep for line, sep in zip(new, seps, strict=True))


@dataclasses.dataclass(frozen=True)
class MergeResult:
    text: str
    conflicts: int  # overlapping changes, each left between conflict markers


def _lines(text: str) -> list[str]:
    return _LINE.findall(text)


def _sync_regions(
    base: Sequence[str], a: Sequence[str], b: Sequence[str]
) -> list[tuple[int, int, int, int, int, int]]:
    """Base ranges unchanged on both sides, with their positions in ``a`` and ``b``."""
    ma = difflib.SequenceMatcher(None, base, a, autojunk=False).get_matching_blocks()
    mb = difflib.SequenceMatcher(None, base, b, autojunk=False).get_matching_blocks()
    out: list[tuple[int, int, int, int, int, int]] = []
    ia = ib = 0
    while ia < len(ma) and ib < len(mb):
        a_base, a_at, a_len = ma[ia]
        b_base, b_at, b_len = mb[ib]
        lo, hi = max(a_base, b_base), min(a_base + a_len, b_base + b_len)
        if lo < hi:
            a_lo, b_lo = a_at + lo - a_base, b_at + lo - b_base
            out.append((lo, hi, a_lo, a_lo + hi - lo, b_lo, b_lo + hi - lo))
        if a_base + a_len < b_base + b_len:
            ia += 1
        else:
            ib += 1
    out.append((len(base), len(base), len(a), len(a), len(b), len(b)))
    return out


def merge3(base: str, mine: str, theirs: str) -> MergeResult:
    """Three-way merge of whole lines; see the module docstring."""
    base_l, mine_l, theirs_l = _lines(base), _lines(mine), _lines(theirs)
    out: list[str] = []
    conflicts = 0
    at_base = at_mine = at_theirs = 0
    for z_lo, z_hi, a_lo, a_hi, b_lo, b_hi in _sync_regions(base_l, mine_l, theirs_l):
        orig = base_l[at_base:z_lo]
        ours = mine_l[at_mine:a_lo]
        other = theirs_l[at_theirs:b_lo]
        if ours == other or other == orig:
            out += ours
        elif ours == orig:
            out += other
        else:
            conflicts += 1
            out += [
                MINE_MARKER + "\n",
                *_terminated(ours),
                MIDDLE_MARKER + "\n",
                *_terminated(other),
                THEIRS_MARKER + "\n",
            ]
        out += base_l[z_lo:z_hi]
        at_base, at_mine, at_theirs = z_hi, a_hi, b_hi
    return MergeResult("".join(out), conflicts)


def _terminated(lines: list[str]) -> list[str]:
    # A side ending without a newline still needs one before the next marker.
    if lines and not lines[-1].endswith("\n"):
        return [*lines[:-1], lines[-1] + "\n"]
    return lines
