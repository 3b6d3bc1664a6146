"""A note's text as the editor holds it: exact line endings and a three-way merge.

Qt's plain-text document turns CR, CRLF, U+2028 and U+2029 into its own block
separator, drops a leading BOM and (through ``toPlainText``) turns NBSP into a
space. ``NoteText`` keeps the bytes it was loaded from, hands the editor plain
``\\n``-separated lines, and on save puts every untouched line back with its own
separator, so a save changes only what the user edited.

``merge3`` reconciles the version a buffer was loaded from, the file now on disk
and the buffer (diff3 over ``difflib``'s matching blocks): changes on one side
only are taken, overlapping ones are kept both, between conflict markers.
``conflict_hunks`` finds those marked places again in the edited text (typing that
landed on a marker line does not hide one), and ``resolution`` / ``resolve_hunk``
give what replaces one when the user takes a side.
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
# The middle marker with typing before or after it, but not a longer run of "=" (a
# Markdown heading's underline): seven, and no "=" on either side.
_MIDDLE = re.compile(r"(?<!=)={7}(?!=)")


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


@dataclasses.dataclass(frozen=True)
class ConflictHunk:
    """One place ``merge3`` left between markers: 0-based line numbers of its
    ``<<<<<<< yours``, ``=======`` and ``>>>>>>> on disk`` lines."""

    start: int
    middle: int
    end: int

    def contains(self, line: int) -> bool:
        return self.start <= line <= self.end


TAKES = ("mine", "theirs", "both")


def _marker_span(line: str, marker: str) -> tuple[int, int] | None:
    """Where ``marker`` stands in ``line`` (the first time), or None."""
    if marker == MIDDLE_MARKER:
        found = _MIDDLE.search(line)
        return found.span() if found else None
    at = line.find(marker)
    return None if at < 0 else (at, at + len(marker))


def typed_on_marker(line: str, marker: str) -> str:
    """What typing left on a marker line besides ``marker`` ("" for the bare marker or
    spaces alone): the text before it as typed (its trailing space too: the user goes
    on typing after it), then the text after it without the spaces that only set it
    apart from the marker."""
    span = _marker_span(line, marker)
    if span is None:
        return line
    head, tail = line[: span[0]], line[span[1] :]
    if not head or head[-1].isspace():
        tail = tail.lstrip()
    typed = head + tail
    return typed if typed.strip() else ""


def conflict_hunks(lines: Sequence[str]) -> list[ConflictHunk]:
    """The complete conflict hunks in ``lines`` (one line each, no separators), in order.

    A line holding ``<<<<<<< yours`` opens one, the next holding ``=======`` (seven,
    not part of a longer run) splits it and the next holding ``>>>>>>> on disk``
    closes it. A marker counts with text typed before or after it on its line (the
    cursor sat on the marker line): the hunk stays one the bar can resolve, and the
    save's check (``markers_left``) reads the same lines. A ``=======`` outside an
    open hunk (a Markdown heading's underline) is text, and a hunk whose markers
    were edited away (a line deleted, a marker itself changed) is no longer one.
    """
    out: list[ConflictHunk] = []
    start = middle = -1
    for number, line in enumerate(lines):
        if MINE_MARKER in line:
            start, middle = number, -1
        elif start >= 0 and middle < 0 and _MIDDLE.search(line):
            middle = number
        elif middle >= 0 and THEIRS_MARKER in line:
            out.append(ConflictHunk(start, middle, number))
            start = middle = -1
    return out


def resolution(lines: Sequence[str], hunk: ConflictHunk, take: str) -> list[str | None]:
    """For each line of ``hunk`` (``start`` to ``end``), what taking ``"mine"``,
    ``"theirs"`` or ``"both"`` leaves of it: the line itself (a side taken), None (a
    bare marker, a side not taken), or, for a marker line typed onto, the typed text
    without the marker. That text stays whichever side is taken, on its own line
    where the marker was: the user typed it after the merge, and it belongs to
    neither side, so no take may drop it unseen."""
    if take not in TAKES:
        raise ValueError(f"take must be one of {TAKES}, not {take!r}")
    out: list[str | None] = []
    for number in range(hunk.start, hunk.end + 1):
        line = lines[number]
        marker = {hunk.start: MINE_MARKER, hunk.middle: MIDDLE_MARKER, hunk.end: THEIRS_MARKER}.get(number)
        if marker is not None:
            out.append(typed_on_marker(line, marker) or None)
        elif (take != "theirs" and number < hunk.middle) or (take != "mine" and number > hunk.middle):
            out.append(line)
        else:
            out.append(None)
    return out


def resolve_hunk(lines: Sequence[str], hunk: ConflictHunk, take: str) -> list[str]:
    """The lines that replace ``hunk`` (markers included) when the user takes
    ``"mine"``, ``"theirs"`` or ``"both"`` (mine first, then the disk's), with any
    text typed onto its marker lines kept where it was (see ``resolution``)."""
    return [line for line in resolution(lines, hunk, take) if line is not None]


def unresolved_hunks(lines: Sequence[str], saved: Sequence[str]) -> list[ConflictHunk]:
    """The hunks of ``lines`` that the ``saved`` version (the bytes on disk) does not
    already hold: markers a save would newly write into the note."""
    on_disk = {tuple(saved[h.start : h.end + 1]) for h in conflict_hunks(saved)}
    return [h for h in conflict_hunks(lines) if tuple(lines[h.start : h.end + 1]) not in on_disk]


def markers_left(lines: Sequence[str], base: Sequence[str]) -> list[int]:
    """0-based numbers of the lines holding a ``<<<<<<< yours`` or ``>>>>>>> on disk``
    marker beyond those the ``base`` version (the disk's) already holds.

    A marker counts anywhere in a line, not only alone on it: typing that lands
    before or after it (the cursor sat on the marker line) leaves it just as
    unresolved, and an exact-line check then let the next save write it. Counting
    against the base lets a note that already held such a line (one about git)
    save; the caller asks only for buffers that memdesk's merge put markers into.
    """
    out: list[int] = []
    for marker in (MINE_MARKER, THEIRS_MARKER):
        holding = [number for number, line in enumerate(lines) if marker in line]
        extra = len(holding) - sum(marker in line for line in base)
        if extra > 0:
            known = set(base)
            fresh = [number for number in holding if lines[number] not in known]
            out += fresh[:extra] if len(fresh) >= extra else holding[-extra:]
    return sorted(out)
