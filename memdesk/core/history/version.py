"""One version of one note, as the store and the git timeline give it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

# Where a version came from.
MEMDESK = "memdesk"  # memdesk wrote it: an editor save, a restore, a hunk reverted
DISK = "disk"  # seen changed on disk: the agent, a dreaming pass, another editor, git pull
MCP = "mcp"  # an MCP client's memory_append through `memdesk mcp`
GIT = "git"  # a commit of the workspace's git repository (read only, never stored)
DELETED = "deleted"  # the note disappeared
BASELINE = "baseline"  # the note as it was the first time memdesk kept history for it

# The catalog keeps a version's source as its index here: add new ones at the end only.
CAPTURED_SOURCES = (MEMDESK, DISK, MCP, DELETED, BASELINE)
# The agent's side of a period's changes: every change the user did not make through
# memdesk (the agent, a dreaming pass, another editor, an MCP client, a git commit). The
# one definition ``memdesk changes --agent-only`` and the Changes view both use (``by_agent``).
AGENT_SOURCES = (DISK, MCP, DELETED, GIT)
# Of those, the ones the store keeps (a commit never is): what the tree's badge counts.
CAPTURED_AGENT_SOURCES = tuple(s for s in AGENT_SOURCES if s in CAPTURED_SOURCES)


def by_agent(source: str) -> bool:
    """Whether a version from ``source`` is on the agent's side of the changes, not the user's."""
    return source in AGENT_SOURCES


@dataclass(frozen=True)
class Version:
    """A note's content at one moment: kept in the store, or a commit of its git repository."""

    id: str  # the catalog's row id as text, or "git:<sha>" for a commit
    note: str  # workspace-relative POSIX path
    at: datetime  # aware, UTC: when captured (a commit: its commit time)
    source: str  # one of the names above
    size: int  # bytes of the content (0 for a deleted note)
    digest: str | None  # sha256 hex of the content; None when the content is not kept
    reason: str | None  # why the content is not kept: binary, too large, deleted
    # Distinct lines new in this version / gone from the one before it (None: one of
    # them is not text); a diff's +/- counts, kept when captured.
    added: int | None = None
    removed: int | None = None

    @property
    def kept(self) -> bool:
        """Whether ``History.content`` can give this version's bytes."""
        return self.digest is not None

    @property
    def is_git(self) -> bool:
        return self.source == GIT


@dataclass(frozen=True)
class SourceCount:
    """``count`` versions of ``note`` from ``source`` in a period, ``first`` to ``last``
    (``History.summarize``)."""

    note: str
    source: str
    count: int
    first: datetime
    last: datetime


def utc(when: datetime | None = None) -> datetime:
    """``when`` as an aware UTC datetime (naive means UTC); now when None."""
    if when is None:
        return datetime.now(UTC)
    if when.tzinfo is None:
        return when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


def to_micros(when: datetime) -> int:
    """The catalog's time: integer microseconds since the epoch, UTC."""
    delta = utc(when) - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(micros: int) -> datetime:
    return EPOCH + timedelta(microseconds=micros)


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
