"""``memdesk history`` and ``memdesk changes``: every version of a note, what changed
when, and the retention policy (the store is ``core/history``)."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from pathlib import Path
from typing import Any

from memdesk.cli import common
from memdesk.core import errors
from memdesk.core.history import History, Retention, Version, open_history
from memdesk.core.history import changes as history_changes
from memdesk.core.history import diff as history_diff

NOTHING_YET = (
    "memdesk keeps a version each time it sees a note change: while the app or `memdesk mcp` "
    "runs, and on `memdesk index`"
)


def _note_arg(root: Path, note: str) -> str:
    """A note as the store names it: workspace-relative, ``/``-separated."""
    if os.path.isabs(note):
        note = os.path.relpath(note, root)
    return note.replace(os.sep, "/").removeprefix("./")


def _local_day(value: str, flag: str) -> dt.datetime:
    """The start of day ``value`` (YYYY-MM-DD) on this computer's clock, as UTC."""
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        raise errors.MemdeskError(f"{flag} {value!r}: expected a date as YYYY-MM-DD") from None
    start = dt.datetime.combine(day, dt.time.min)
    try:
        return start.astimezone().astimezone(dt.UTC)
    except (ValueError, OverflowError):  # 0001-01-01: no local time converts at year 1
        return start.replace(tzinfo=dt.UTC)


def _when(version: Version) -> str:
    return version.at.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _short_id(version: Version) -> str:
    return version.id[:16] if version.is_git else version.id


def _counts(version: Version) -> str:
    if version.added is None and version.removed is None:
        return ""
    return f"+{version.added or 0} -{version.removed or 0}"


def version_json(version: Version) -> dict[str, Any]:
    return {
        "id": version.id,
        "note": version.note,
        "at": version.at.isoformat(),
        "source": version.source,
        "size": version.size,
        "digest": version.digest,
        "reason": version.reason,
        "added": version.added,
        "removed": version.removed,
    }


def _find(history: History, note: str, wanted: str, *, git: bool) -> Version:
    """The version of ``note`` whose id is ``wanted`` (a git id may be cut short)."""
    timeline = history.timeline(note, git=git)
    exact = [v for v in timeline if v.id == wanted]
    found = exact or [
        v for v in timeline if v.is_git and wanted.startswith("git:") and v.id.startswith(wanted)
    ]
    if len(found) != 1:
        reason = "is not a version of" if not found else "names more than one version of"
        raise errors.MemdeskError(f"{wanted} {reason} {note} (see `memdesk history {note}`)")
    return found[0]


def _text(history: History, version: Version | None) -> str:
    """A version's content as text ("" before the first version)."""
    if version is None:
        return ""
    data = history.content(version)
    if data is None:
        raise errors.MemdeskError(
            f"version {version.id} of {version.note} has no content kept ({version.reason or 'unreadable'})"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise errors.MemdeskError(f"version {version.id} of {version.note} is not UTF-8 text") from None


def _retention(args: argparse.Namespace, history: History) -> int:
    policy = history.retention
    if args.keep_all_days is not None or args.daily_days is not None:
        daily = policy.daily_days
        if args.daily_days is not None:
            daily = None if args.daily_days == "forever" else _days(args.daily_days, "--daily-days")
        try:
            policy = Retention(
                policy.keep_all_days if args.keep_all_days is None else args.keep_all_days, daily
            )
        except ValueError as exc:
            raise errors.MemdeskError(str(exc)) from None
        history.set_retention(policy)
    dropped = history.prune() if args.prune else None
    out: dict[str, Any] = {
        "keep_all_days": policy.keep_all_days,
        "daily_days": policy.daily_days,
        "policy": policy.describe(),
        "store": str(history.path),
    }
    text = f"retention: {policy.describe()}\nstore: {history.path}"
    if dropped is not None:
        out["pruned"] = dropped
        text += f"\npruned {dropped} versions"
    common.emit(out, args.json, text)
    return 0


def _days(value: str, flag: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise errors.MemdeskError(f"{flag} {value!r}: expected a number of days or 'forever'") from None


def cmd_history(args: argparse.Namespace) -> int:
    root = common.workspace_arg(args.workspace)
    with open_history(root) as history:
        if args.retention or args.keep_all_days is not None or args.daily_days is not None or args.prune:
            return _retention(args, history)
        if not args.note:
            raise errors.MemdeskError("name a note (memdesk history MEMORY.md), or use --retention")
        note = _note_arg(root, args.note)
        git = not args.no_git
        if args.show:
            version = _find(history, note, args.show, git=git)
            data = history.content(version)
            if data is None:
                raise errors.MemdeskError(
                    f"version {version.id} of {note} has no content kept ({version.reason or 'unreadable'})"
                )
            if args.json:
                common.emit({**version_json(version), "text": data.decode("utf-8", "replace")}, True, "")
            elif sys.stdout.isatty():  # shown, not obeyed: the note's control characters
                sys.stdout.write(common.terminal_safe(data.decode("utf-8", "replace")))
            else:  # piped: exactly as stored
                sys.stdout.flush()
                sys.stdout.buffer.write(data)
            return 0
        if args.diff:
            return _diff(args, history, note, git=git)
        timeline = history.timeline(note, git=git)
        rows = [
            f"{_short_id(v):>16}  {_when(v)}  {v.source:<8} {v.size:>9,} B  {_counts(v):<10} {v.reason or ''}".rstrip()
            for v in timeline
        ]
        head = (
            f"{note}: {len(timeline)} versions, newest first" if timeline else f"{note}: no versions kept yet"
        )
        text = "\n".join([head, *rows] if timeline else [head, NOTHING_YET])
        common.emit({"note": note, "versions": [version_json(v) for v in timeline]}, args.json, text)
    return 0


def _diff(args: argparse.Namespace, history: History, note: str, *, git: bool) -> int:
    first, *rest = args.diff
    older: Version | None
    if rest:
        older, newer = _find(history, note, first, git=git), _find(history, note, rest[0], git=git)
    else:
        newer = _find(history, note, first, git=git)
        older = history.previous(newer)
    old_text, new_text = _text(history, older), _text(history, newer)
    hunks = history_diff.hunks(old_text, new_text)
    old_name = f"{note} ({older.id})" if older is not None else "/dev/null"
    unified = history_diff.unified(old_text, new_text, old_name=old_name, new_name=f"{note} ({newer.id})")
    out = {
        "note": note,
        "from": None if older is None else version_json(older),
        "to": version_json(newer),
        "added": sum(h.added for h in hunks),
        "removed": sum(h.removed for h in hunks),
        "hunks": [
            {
                "old_start": h.old_start,
                "old_lines": h.old_lines,
                "new_start": h.new_start,
                "new_lines": h.new_lines,
            }
            for h in hunks
        ],
        "diff": unified,
    }
    common.emit(out, args.json, unified or "no differences")
    return 0


def cmd_changes(args: argparse.Namespace) -> int:
    root = common.workspace_arg(args.workspace)
    since = _local_day(args.since, "--since")
    until = _local_day(args.until, "--until") + dt.timedelta(days=1) if args.until else None
    if until is not None and until <= since:
        raise errors.MemdeskError("--until is before --since")
    with open_history(root) as history:
        groups = history_changes.by_note(history.changes(since, until, git=not args.no_git))
    if args.agent_only:
        groups = [g for g in groups if g.by_agent]
    out = {
        "since": since.isoformat(),
        "until": None if until is None else until.isoformat(),
        "notes": [
            {
                "note": g.note,
                "added": g.added,
                "removed": g.removed,
                "sources": list(g.sources),
                "versions": [version_json(v) for v in g.versions],
            }
            for g in groups
        ],
    }
    lines: list[str] = []
    for g in groups:
        lines.append(f"{g.note}  +{g.added} -{g.removed}  ({', '.join(g.sources)})")
        lines.extend(
            f"  {_when(v)}  {v.source:<8} #{v.id:<8} {_counts(v)} {v.reason or ''}".rstrip()
            for v in g.versions
        )
    period = f"since {args.since}" + (f" until {args.until}" if args.until else "")
    text = "\n".join(lines) if lines else f"no changes {period}"
    common.emit(out, args.json, text)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "history",
        help="every version of a note (its git commits too); --show/--diff a version; --retention",
    )
    p.add_argument("note", nargs="?", help="a note, workspace-relative (MEMORY.md, memory/2026-11-10.md)")
    p.add_argument("--show", metavar="ID", help="print the content of version ID")
    p.add_argument(
        "--diff",
        nargs="+",
        metavar="ID",
        help="the change version ID made; with two IDs, from the first to the second",
    )
    p.add_argument("--no-git", action="store_true", help="leave the git repository's commits out")
    p.add_argument(
        "--retention", action="store_true", help="show (or, with the flags below, set) the retention policy"
    )
    p.add_argument("--keep-all-days", type=int, metavar="N", help="keep every version for N days")
    p.add_argument("--daily-days", metavar="N|forever", help="then one a day for N more days (or forever)")
    p.add_argument("--prune", action="store_true", help="drop the versions the policy no longer keeps, now")
    p.add_argument("--workspace", metavar="DIR")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("changes", help="what changed in memory in a period, grouped by note")
    p.add_argument("--since", required=True, metavar="YYYY-MM-DD", help="from the start of this day")
    p.add_argument("--until", metavar="YYYY-MM-DD", help="to the end of this day (default: now)")
    p.add_argument(
        "--agent-only",
        action="store_true",
        help="only notes the agent changed: on disk, through MCP, deleted, or in a git commit",
    )
    p.add_argument("--no-git", action="store_true", help="leave the git repository's commits out")
    p.add_argument("--workspace", metavar="DIR")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_changes)
