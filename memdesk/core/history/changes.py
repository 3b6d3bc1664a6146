"""What changed in a period, note by note: the data of the Changes view and
``memdesk changes`` (``History.changes`` grouped, with the +/- counts each version
carries, so no content is read)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memdesk.core.history import diff as diff_mod
from memdesk.core.history.version import Version, by_agent


@dataclass(frozen=True)
class NoteChanges:
    """The versions of one note captured in the period, oldest first."""

    note: str
    versions: tuple[Version, ...]

    @property
    def added(self) -> int:
        return sum(v.added or 0 for v in self.versions)

    @property
    def removed(self) -> int:
        return sum(v.removed or 0 for v in self.versions)

    @property
    def last(self) -> Version:
        return self.versions[-1]

    @property
    def sources(self) -> tuple[str, ...]:
        """Each source once, in the order of its first version."""
        return tuple(dict.fromkeys(v.source for v in self.versions))

    @property
    def by_agent(self) -> tuple[Version, ...]:
        """The versions memdesk did not write: the agent, a dreaming pass, another editor,
        an MCP client, a git commit (``version.by_agent``)."""
        return tuple(v for v in self.versions if by_agent(v.source))

    @property
    def by_user(self) -> tuple[Version, ...]:
        """The versions written through memdesk."""
        return tuple(v for v in self.versions if not by_agent(v.source))


def by_note(versions: Iterable[Version]) -> list[NoteChanges]:
    """``versions`` (``History.changes``) grouped by note, the most recently changed first."""
    groups: dict[str, list[Version]] = {}
    for version in versions:
        groups.setdefault(version.note, []).append(version)
    found = [
        NoteChanges(note, tuple(sorted(vs, key=lambda v: (v.at, int(v.id) if v.id.isdigit() else 0))))
        for note, vs in groups.items()
    ]
    found.sort(key=lambda c: (c.last.at, c.note), reverse=True)
    return found


@dataclass
class _Line:
    """One line met on a note's way through a span of versions: who brought it (None:
    it was there before) and who took it out (None: it is there now)."""

    text: str
    added_by_own: bool | None = None
    removed_by_own: bool | None = None
    added_at: int | None = None  # the step that brought it (when ``added_by_own``)
    removed_at: int | None = None  # the step that took it out


@dataclass(frozen=True)
class OwnChanges:
    """``without_own_changes``' text and, per line, which step made the change: the
    step (index into ``steps``) that took out each line of ``old_text`` (None: the
    shown side did not), and the one that brought each line of the last step's text
    (None: it was there before, or the other side wrote it). A hunk of ``old_text`` →
    last text is named after the newest step among its lines: a change stays the same
    change while later steps leave its lines alone."""

    old_text: str
    removed_at: tuple[int | None, ...]
    added_at: tuple[int | None, ...]

    def step_of(self, hunk: diff_mod.Hunk) -> int | None:
        """The newest step that wrote a line of ``hunk`` (a hunk of ``old_text`` → the
        last step's text), None when none did."""
        old = self.removed_at[hunk.old_start : hunk.old_start + len(hunk.old_lines)]
        new = self.added_at[hunk.new_start : hunk.new_start + len(hunk.new_lines)]
        return max((k for k in (*old, *new) if k is not None), default=None)


def without_own_changes(base: str, steps: Sequence[tuple[str, bool]]) -> str:
    """``base`` with only the other side's changes made: ``steps`` are the note's texts
    after ``base``, oldest first, each True when written by the side being shown.
    Diffed against the last step's text, what is left is that side's changes alone,
    even where the other side wrote in between (the user saving between two agent
    rewrites): the other's lines are on both sides, not a change of this side's, and a
    hunk of it reverted leaves them as they are.

    Each line is followed through every step (a line-level blame), so lines the two
    sides added next to each other, which a three-way merge would call a conflict, are
    told apart; a line taken out and written again (a change reverted) is the same line
    back, not a new one."""
    return own_changes(base, steps).old_text


def own_changes(base: str, steps: Sequence[tuple[str, bool]]) -> OwnChanges:
    """``without_own_changes`` with the step behind each changed line (``OwnChanges``)."""
    found = [_Line(text) for text in diff_mod.lines(base)]
    for step, (text, own) in enumerate(steps):
        alive = [i for i, line in enumerate(found) if line.removed_by_own is None]
        new = diff_mod.lines(text)
        opcodes = difflib.SequenceMatcher(None, [found[i].text for i in alive], new, autojunk=False)
        # From the end, so the positions of the runs before stay where they are.
        for tag, i1, i2, j1, j2 in reversed(opcodes.get_opcodes()):
            if tag == "equal":
                continue
            for k in range(i1, i2):
                found[alive[k]].removed_by_own = own
                found[alive[k]].removed_at = step
            # The run's gap: its own lines and the lines taken out around them before.
            lo = alive[i1 - 1] + 1 if i1 > 0 else 0
            hi = alive[i2] if i2 < len(alive) else len(found)
            found[lo:hi] = _fill_gap(found[lo:hi], new[j1:j2], own, step)
    old = [line for line in found if line.added_by_own is not True and line.removed_by_own is not False]
    now = [line for line in found if line.removed_by_own is None]
    return OwnChanges(
        "".join(line.text for line in old),
        tuple(line.removed_at if line.removed_by_own else None for line in old),
        tuple(line.added_at if line.added_by_own else None for line in now),
    )


def _fill_gap(gap: list[_Line], new: list[str], own: bool, step: int) -> list[_Line]:
    """``new`` written where only the taken-out lines of ``gap`` are: one of them
    written again is brought back (the same line); the others are new lines."""
    out: list[_Line] = []
    matcher = difflib.SequenceMatcher(None, [line.text for line in gap], new, autojunk=False)
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag == "equal":
            for line in gap[a1:a2]:
                # Taken out by the other side and brought back by this one: this side's line now.
                if own and line.removed_by_own is False:
                    line.added_by_own, line.added_at = True, step
                line.removed_by_own = line.removed_at = None
                out.append(line)
            continue
        out += gap[a1:a2]
        out += [_Line(added, added_by_own=own, added_at=step) for added in new[b1:b2]]
    return out
