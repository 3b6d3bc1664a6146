"""What the History panel, the Changes view and the tree's badge read from a
workspace's version store (``core/history``), as plain values, off the GUI thread.

Each function reads only what one view shows now (a timeline's rows, a period's
version list, one diff) from the workspace's one store in this process (the one the
captures write; thread-safe). Diffs are computed when a row is selected, never for a whole period at once (2,000 notes x 50 versions
must open in under a second).

Restores (a whole version, one hunk undone or redone) are computed here too, on
the note's text at the moment of the write, and written by ``write_note`` through
``workspace.save_note`` (the editor's safe save) in a ``note_ops`` job: a restore
is a new version (the save records it), never a rewrite of the store.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from memdesk.core import diskio, errors, paths
from memdesk.core import history as history_mod
from memdesk.core.history import changes as changes_mod
from memdesk.core.history import diff as diff_mod
from memdesk.core.history import shared
from memdesk.core.history.version import DELETED, by_agent
from memdesk.core.index import notetext
from memdesk.core.index import workspace as workspace_mod

T = TypeVar("T")

NOT_CHANGES = frozenset({"baseline"})
"""A note as memdesk first saw it: where its history starts, not a change."""

DREAM_FILES = ("DREAMS.md", "dreams.md")
"""The dream diary at the workspace's root: OpenClaw writes ``DREAMS.md``; its
``isMemoryPath`` accepts the lower-case ``dreams.md`` (2026.9), so either is read."""
DREAMS_FOLDER = "memory/.dreams"
"""Where a dreaming pass leaves its phase reports (light, REM, deep) as files."""
DREAM_AFTER = dt.timedelta(minutes=2)
"""A diary written just after the rewrite it describes still counts as 'before' it:
the rewrite's time is when memdesk captured it, a moment after the write."""
DREAM_WINDOW = dt.timedelta(hours=24)
"""An older dream than this is not the one behind a rewrite."""
MAX_DREAM_BYTES = 512 * 1024


def with_history(root: Path, fn: Callable[[history_mod.History], T]) -> T:
    """``fn(history)`` over ``root``'s store: the one the captures use in this process
    (thread-safe: one connection, one lock), opened on first use."""
    history = shared.for_workspace(root)
    if history is None:
        raise errors.MemdeskError(f"{root}: the version history cannot be opened (see the log)")
    return fn(history)


def is_agent(version: history_mod.Version) -> bool:
    """On the agent's side (``core/history/version.by_agent``, as ``memdesk changes --agent-only``)."""
    return by_agent(version.source)


# the History panel -----------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Timeline:
    note: str
    versions: tuple[history_mod.Version, ...]  # newest first


def load_timeline(root: Path, note: str, *, mark_seen: bool = True) -> Timeline:
    """``note``'s versions (git commits included), newest first; looking at them is
    looking at the note, so the agent's changes to it count as seen."""

    def read(history: history_mod.History) -> Timeline:
        versions = tuple(history.timeline(note))
        if mark_seen:
            history.mark_seen(note)
        return Timeline(note, versions)

    return with_history(root, read)


@dataclasses.dataclass(frozen=True)
class Side:
    """One side of a diff: a stored version, or the note as it is now (``version`` None)."""

    version: history_mod.Version | None
    text: str | None  # None: nothing to show (see ``problem``)
    problem: object = ""  # a core message or plain text (``qt.messages.text`` shows it)


@dataclasses.dataclass(frozen=True)
class Comparison:
    old: Side
    new: Side
    hunks: tuple[diff_mod.Hunk, ...]
    # Per hunk, the version that made it: the newest of the shown versions that wrote
    # one of its lines (a group of changes; empty: ``new``'s version made every hunk).
    made_by: tuple[history_mod.Version | None, ...] = ()
    # The diff as a whole (the version before the first → the last), where the one
    # shown leaves out the other side's edits: what such a group showed before, so
    # marks made on it still hold (``kept``).
    whole: tuple[diff_mod.Hunk, ...] = ()

    @property
    def ok(self) -> bool:
        return self.old.text is not None and self.new.text is not None

    def maker(self, index: int) -> history_mod.Version | None:
        """The version that made hunk ``index``."""
        made = self.made_by[index] if index < len(self.made_by) else None
        return made if made is not None else self.new.version


def _decode(data: bytes | None, why: object) -> tuple[str | None, object]:
    if data is None:
        return None, why
    try:
        # Exactly the bytes: a BOM or CRLF stays, so a hunk put back keeps every other byte.
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        return None, "not UTF-8 text"


def _version_side(history: history_mod.History, version: history_mod.Version | None) -> Side:
    if version is None:
        return Side(None, "", "")  # before the first version: nothing
    data = history.content(version)
    text, problem = _decode(data, version.reason or "content not kept")
    return Side(version, text, problem)


def current_side(root: Path, note: str) -> Side:
    """The note as it is on disk now ("" when it does not exist)."""
    disk = workspace_mod.disk_state(root / note)
    if not disk.exists:
        return Side(None, "", "")
    if disk.data is None:
        return Side(None, None, disk.problem or "unreadable")
    text, problem = _decode(disk.data, "")
    return Side(None, text, problem)


def compare(
    root: Path,
    note: str,
    old: history_mod.Version | None,
    new: history_mod.Version | None,
    *,
    old_is_previous: bool = False,
    old_before: history_mod.Version | None = None,
) -> Comparison:
    """The diff of ``old`` → ``new`` (``new`` None: the note now). ``old_is_previous``:
    ``old`` is ignored and the version before ``new`` is used (None before the first);
    ``old_before``: the version before that one is (a group of changes, as a whole)."""

    def read(history: history_mod.History) -> Comparison:
        before = old
        if old_before is not None:
            before = history.previous(old_before)
        elif old_is_previous and new is not None:
            before = history.previous(new)
        old_side = _version_side(history, before)
        new_side = _version_side(history, new) if new is not None else current_side(root, note)
        found: tuple[diff_mod.Hunk, ...] = ()
        if old_side.text is not None and new_side.text is not None:
            found = tuple(diff_mod.hunks(old_side.text, new_side.text))
        return Comparison(old_side, new_side, found)

    return with_history(root, read)


# the Changes view ------------------------------------------------------------------------
def _order(version: history_mod.Version) -> tuple[dt.datetime, int]:
    return version.at, int(version.id)


def _text_of(history: history_mod.History, version: history_mod.Version) -> str | None:
    if version.source == DELETED or (version.is_git and version.digest is None):
        return ""  # the note was gone (deleted, or a commit removed it): no lines
    text, _problem = _decode(history.content(version), "")
    return text


def compare_changes(root: Path, versions: Sequence[history_mod.Version]) -> Comparison:
    """The diff of ``versions`` (one side's changes to one note in a period, oldest
    first) as a whole: from the version before the first to the last. Where the other
    side wrote in between (the user saving between the agent's rewrites), its changes
    are on both sides (``changes.without_own_changes``): only these versions' own
    changes show, and a hunk reverted leaves the other side's edits alone.

    A group with git commits is followed the same way, on the note's timeline of
    captured versions and commits together: a commit that took the user's saved lines
    with it (``git commit -a``) does not make them the agent's."""
    first, last = versions[0], versions[-1]
    if len(versions) == 1:
        # A commit's previous is the commit before it, on git's own timeline.
        return compare(root, last.note, None, last, old_before=first)
    git = any(v.is_git for v in versions)

    def read(history: history_mod.History) -> Comparison:
        if git:
            on_timeline = _git_span(history, first, last)
            if on_timeline is None:  # the group's versions are not on it (history rewritten)
                return compare(root, last.note, None, last, old_before=first)
            before, span = on_timeline
        else:
            before = history.previous(first)
            span = [
                v
                for v in history.timeline(last.note, git=False)
                if _order(first) <= _order(v) <= _order(last)
            ]
            span.reverse()  # oldest first
        own = {_ident(v) for v in versions}
        old_side = _version_side(history, before)
        new_side = _version_side(history, last)
        whole: tuple[diff_mod.Hunk, ...] = ()
        blame: changes_mod.OwnChanges | None = None
        if old_side.text is not None and new_side.text is not None:
            texts = [_text_of(history, v) for v in span]
            # Each line followed through the span: which version made each hunk, and,
            # where the other side wrote in between, the diff without its edits.
            if all(text is not None for text in texts):  # else the plain diff, as a whole
                steps = [(text or "", _ident(v) in own) for v, text in zip(span, texts, strict=True)]
                blame = changes_mod.own_changes(old_side.text, steps)
                if any(_ident(v) not in own for v in span):
                    whole = tuple(diff_mod.hunks(old_side.text, new_side.text))
                    old_side = Side(before, blame.old_text)
        found: tuple[diff_mod.Hunk, ...] = ()
        if old_side.text is not None and new_side.text is not None:
            found = tuple(diff_mod.hunks(old_side.text, new_side.text))
        made_by: tuple[history_mod.Version | None, ...] = ()
        if blame is not None:
            # The group's own version objects (with their +/- counts), as the view lists them.
            mine = {_ident(v): v for v in versions}
            made = [_step_version(span, blame.step_of(h)) for h in found]
            made_by = tuple(mine.get(_ident(v), v) if v is not None else None for v in made)
        return Comparison(old_side, new_side, found, made_by, whole)

    return with_history(root, read)


def _ident(version: history_mod.Version) -> tuple[bool, str]:
    """A version's identity across the store's ids and git's commit names."""
    return version.is_git, version.id


def _git_span(
    history: history_mod.History, first: history_mod.Version, last: history_mod.Version
) -> tuple[history_mod.Version | None, list[history_mod.Version]] | None:
    """The version before ``first`` and the versions from ``first`` to ``last``, oldest
    first, on the note's timeline of captured versions and commits together."""
    timeline = history.timeline(last.note, git=True)[::-1]  # oldest first
    where = {_ident(v): i for i, v in enumerate(timeline)}
    start, end = where.get(_ident(first)), where.get(_ident(last))
    if start is None or end is None or end < start:
        return None
    return (timeline[start - 1] if start else None), timeline[start : end + 1]


def _step_version(span: Sequence[history_mod.Version], step: int | None) -> history_mod.Version | None:
    return span[step] if step is not None else None


@dataclasses.dataclass(frozen=True)
class ChangeGroup:
    """One note's changes in the period by one side ("agent" or "user"): how many and
    when; the versions themselves are read when the group is opened (``load_group``)."""

    side: str
    note: str
    count: int
    first: dt.datetime
    last: dt.datetime
    sources: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Changes:
    since: dt.datetime
    until: dt.datetime | None
    groups: tuple[ChangeGroup, ...]  # agent's first, then the user's; notes in path order
    unseen: frozenset[str]


def load_changes(root: Path, since: dt.datetime, until: dt.datetime | None = None) -> Changes:
    """The period's changes, grouped by side and note: one counting query, no version
    read (2,000 notes x 50 versions list at once)."""

    def read(history: history_mod.History) -> Changes:
        counted = history.summarize(since, until)
        unseen = frozenset(history.unseen_agent_changes())
        return Changes(since, until, group_changes(counted), unseen)

    return with_history(root, read)


def side_of(source: str) -> str:
    return "agent" if by_agent(source) else "user"


def group_changes(counted: Sequence[history_mod.SourceCount]) -> tuple[ChangeGroup, ...]:
    by: dict[tuple[str, str], list[history_mod.SourceCount]] = {}
    for row in counted:
        if row.source in NOT_CHANGES:
            continue
        by.setdefault((side_of(row.source), row.note), []).append(row)
    order = {"agent": 0, "user": 1}
    return tuple(
        ChangeGroup(
            side,
            note,
            sum(r.count for r in rows),
            min(r.first for r in rows),
            max(r.last for r in rows),
            tuple(sorted(r.source for r in rows)),
        )
        for (side, note), rows in sorted(by.items(), key=lambda item: (order[item[0][0]], item[0][1]))
    )


def load_group(
    root: Path, group: ChangeGroup, since: dt.datetime, until: dt.datetime | None
) -> tuple[history_mod.Version, ...]:
    """The group's versions in the period, oldest first (one note's timeline)."""

    def read(history: history_mod.History) -> tuple[history_mod.Version, ...]:
        found = history.note_changes(group.note, since, until)
        return tuple(v for v in found if side_of(v.source) == group.side)

    return with_history(root, read)


def unseen_agent_changes(root: Path) -> frozenset[str]:
    return frozenset(with_history(root, lambda history: history.unseen_agent_changes()))


def mark_seen(root: Path, note: str) -> None:
    with_history(root, lambda history: history.mark_seen(note))


# dreams ----------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Dream:
    """The dreaming output nearest before a rewrite of ``MEMORY.md`` or ``USER.md``."""

    rel: str
    at: dt.datetime
    text: str


def rewrites_memory(note: str) -> bool:
    """Dreaming rewrites these curated files (the dream is shown beside their changes)."""
    return note in ("MEMORY.md", "USER.md")


def dream_files(root: Path) -> list[tuple[str, dt.datetime]]:
    """The workspace's dream diary and phase reports with their modification times."""
    found: list[tuple[str, dt.datetime]] = []
    candidates = [root / name for name in DREAM_FILES]
    folder = root / DREAMS_FOLDER
    if folder.is_dir() and not folder.is_symlink():
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
            candidates += [Path(dirpath) / name for name in filenames]
    seen: set[str] = set()
    for path in candidates:
        try:
            info = path.lstat()
        except OSError:
            continue
        if not path.is_file() or path.is_symlink():
            continue
        rel = path.relative_to(root).as_posix()
        # DREAMS.md and dreams.md are one file on a case-insensitive disk.
        key = str(path.resolve()).lower() if rel in DREAM_FILES else rel
        if key in seen:
            continue
        seen.add(key)
        found.append((rel, dt.datetime.fromtimestamp(info.st_mtime, dt.UTC)))
    return found


def find_dream(root: Path, at: dt.datetime) -> Dream | None:
    """The dream file whose time is nearest before ``at`` (see ``DREAM_AFTER``,
    ``DREAM_WINDOW``), with its text; None when there is none."""
    best: tuple[dt.timedelta, str, dt.datetime] | None = None
    for rel, when in dream_files(root):
        gap = at - when
        if -DREAM_AFTER <= gap <= DREAM_WINDOW and (best is None or abs(gap) < best[0]):
            best = (abs(gap), rel, when)
    if best is None:
        return None
    _gap, rel, when = best
    try:
        path = workspace_mod.confined(root, rel)
        with open(path, "rb") as handle:
            data = handle.read(MAX_DREAM_BYTES + 1)
    except (OSError, errors.MemdeskError):
        return None
    text = data[:MAX_DREAM_BYTES].decode("utf-8", errors="replace")
    return Dream(rel, when, text)


def load_detail(
    root: Path, versions: Sequence[history_mod.Version]
) -> tuple[tuple[history_mod.Version, ...], Comparison, Dream | None]:
    """What the Changes view shows for one selected version, or a group of them (oldest
    first): the diff from the version before the first to the last, and for an agent's
    rewrite of ``MEMORY.md``/``USER.md`` the dream nearest before it beside it."""
    last = versions[-1]
    comparison = compare_changes(root, versions)
    dream = find_dream(root, last.at) if rewrites_memory(last.note) and is_agent(last) else None
    return tuple(versions), comparison, dream


def load_group_detail(
    root: Path, group: ChangeGroup, since: dt.datetime, until: dt.datetime | None
) -> tuple[tuple[history_mod.Version, ...], Comparison, Dream | None]:
    """``load_detail`` of a group, its versions read first."""
    versions = load_group(root, group, since, until)
    if not versions:
        raise errors.MemdeskError(f"{group.note}: no changes in this period any more")
    return load_detail(root, versions)


# review marks ----------------------------------------------------------------------------
def hunk_key(comparison: Comparison, hunk: diff_mod.Hunk) -> str:
    """Names one change of one version: the same lines changed again by a later
    rewrite (the agent re-promoting what the user reverted) are a new change to review,
    not one already kept. The version is the one that made the hunk
    (``Comparison.maker``), not the last of the group shown: a change kept stays kept
    when later versions join the group without touching its lines."""
    index = next((i for i, h in enumerate(comparison.hunks) if h is hunk), len(comparison.hunks))
    return _key(comparison.maker(index), hunk)


def _key(version: history_mod.Version | None, hunk: diff_mod.Hunk) -> str:
    anchor = version.id if version is not None else "now"
    note = version.note if version is not None else ""
    text = "\x00".join([note, anchor, *hunk.old_lines, "\x01", *hunk.new_lines])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def kept(comparison: Comparison, reviewed: set[str]) -> list[int]:
    """The hunks of ``comparison`` marked reviewed: by their own key, by the key the
    group's last version gave them before (``hunk_key`` named every hunk of a group
    after it), or, where the diff leaves out the other side's edits, inside a hunk of
    the diff as a whole that was kept (what the group showed before)."""
    last = comparison.new.version
    whole = [h for h in comparison.whole if _key(last, h) in reviewed]
    return [
        i
        for i, hunk in enumerate(comparison.hunks)
        if hunk_key(comparison, hunk) in reviewed
        or _key(last, hunk) in reviewed
        or any(_within(hunk, w) for w in whole)
    ]


def _within(hunk: diff_mod.Hunk, whole: diff_mod.Hunk) -> bool:
    """Whether ``hunk`` (of the diff without the other side's edits) is part of
    ``whole`` (of the diff as a whole): both end at the same text, so its new lines lie
    in ``whole``'s, and its removed lines are among ``whole``'s."""
    start, end = hunk.new_start, hunk.new_start + len(hunk.new_lines)
    if not whole.new_start <= start <= end <= whole.new_start + len(whole.new_lines):
        return False
    left = list(whole.old_lines)
    for line in hunk.old_lines:
        if line not in left:
            return False
        left.remove(line)
    return True


def reviewed_path(root: Path) -> Path:
    """Beside the workspace's version store in memdesk's data dir (never in the workspace)."""
    store = paths.history_path_for(root)
    return store.with_name(store.stem + ".reviewed.json")


def load_reviewed(root: Path) -> set[str]:
    try:
        data = json.loads(reviewed_path(root).read_text("utf-8"))
    except (OSError, ValueError):
        return set()  # none yet, or damaged: nothing marked, nothing lost but marks
    return {str(key) for key in data.get("kept", [])} if isinstance(data, dict) else set()


def save_reviewed(root: Path, keys: set[str]) -> None:
    payload = json.dumps({"kept": sorted(keys)}, indent=0).encode("utf-8")
    diskio.write_atomic(reviewed_path(root), payload, mode=0o600)


# restoring -------------------------------------------------------------------------------
class RestoreConflict(errors.MemdeskError):
    """The note changed since the compared version in the very lines a hunk touches."""


def whole_version(comparison: Comparison, which: str = "old") -> str:
    """The text of one side (``"old"`` or ``"new"``) to restore as the note's text."""
    side = comparison.old if which == "old" else comparison.new
    if side.text is None:
        raise errors.MemdeskError(side.problem or "this version's content is not kept")
    return side.text


def undo_hunk(comparison: Comparison, hunk: diff_mod.Hunk, current: str, note: str) -> str:
    """``current`` (the note's text now) with ``hunk`` of ``comparison`` taken back to
    its old side, every other byte kept. When the note moved on since the compared
    version, the hunk's lines are found where they are now (lines added or removed
    above them moved them); a hunk that only removed lines is merged in three ways.
    Refused where the hunk's own lines were edited again since."""
    new = comparison.new.text
    if new is None:
        raise errors.MemdeskError(comparison.new.problem or "content not kept")
    try:
        if current == new or hunk.new_lines:
            return diff_mod.revert_hunk(current, hunk)
    except ValueError as exc:  # HunkMismatch: its lines are not in the note any more
        raise RestoreConflict(
            f"{note}: the lines of this change were edited again since; compare with the current text"
        ) from exc
    merged = notetext.merge3(new, current, diff_mod.revert_hunk(new, hunk))
    if merged.conflicts:
        raise RestoreConflict(
            f"{note}: the lines around this change were edited again since; compare with the current text"
        )
    return merged.text


def write_note(root: Path, note: str, make: Callable[[str], str]) -> workspace_mod.Saved:
    """Write ``make(text now)`` to ``note`` through the safe save (off the GUI thread, in
    a ``note_ops`` job) and record it as a memdesk version. The text now is read here,
    at the write, and the save refuses to overwrite a change that lands meanwhile."""
    path = root / note
    disk = workspace_mod.disk_state(path)
    if disk.exists and disk.data is None:
        raise errors.NoteReadError(f"{note}: {disk.problem}")
    now, problem = _decode(disk.data, "") if disk.exists else ("", "")
    if now is None:
        raise errors.NoteReadError(f"{note}: {problem}")
    data = make(now).encode("utf-8")
    # With ``root`` the safe save records the bytes as a version, source "memdesk".
    return workspace_mod.save_note(path, data, expected=disk.digest, base=disk.data, root=root)
