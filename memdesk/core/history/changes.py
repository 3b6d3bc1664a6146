"""What changed in a period, note by note: the data of the Changes view and
``memdesk changes`` (``History.changes`` grouped, with the +/- counts each version
carries, so no content is read)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

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
