"""``memdesk get``, ``memdesk new`` and ``memdesk today``: read and create notes."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from typing import Any

from memdesk.cli import common
from memdesk.core import errors
from memdesk.core.index import notes


def cmd_get(args: argparse.Namespace) -> int:
    from memdesk.core.index import workspace
    from memdesk.core.openclaw import tools as oc_tools

    root = common.workspace_arg(args.workspace)
    path = workspace.resolve_note(root, args.path)
    text = workspace.read_note(path)
    if args.from_ or args.lines:
        # A slice is lines joined by newlines (OpenClaw's memory_get); end it with one.
        text = oc_tools.read_file_slice(text, args.from_, args.lines) + "\n"
    # Piped, the note's text goes out exactly as stored; on a terminal its control
    # characters are shown, not obeyed.
    sys.stdout.write(common.terminal_safe(text) if sys.stdout.isatty() else text)
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    root = common.workspace_arg(args.workspace)
    # The file is named as the folder's notes are; the title as typed is the heading.
    rel = notes.new_note_path(root, args.folder, args.title)
    path = notes.create_note(root, rel, f"# {notes.heading(args.title)}\n\n")
    common.emit({"path": rel, "file": str(path), "created": True}, args.json, str(path))
    return 0


def cmd_today(args: argparse.Namespace) -> int:
    root = common.workspace_arg(args.workspace)
    date = dt.date.today()
    if args.date:
        try:
            date = dt.date.fromisoformat(args.date)
        except ValueError:
            raise errors.MemdeskError(f"--date {args.date!r}: expected a date as YYYY-MM-DD") from None
    rel, created = notes.open_daily_note(root, date)
    path = root / rel
    common.emit({"path": rel, "file": str(path), "created": created}, args.json, str(path))
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("get", help="print a memory file (or some of its lines)")
    p.add_argument("path")
    p.add_argument("--workspace", metavar="DIR")
    p.add_argument("--from", type=int, dest="from_", metavar="N", help="first line (1-based)")
    p.add_argument("--lines", type=int, metavar="K", help="number of lines")
    p.set_defaults(func=cmd_get)

    p = sub.add_parser("new", help="create a note (prints its path)")
    p.add_argument("title", help="the note's name; its file name is made safe")
    p.add_argument("--folder", default="memory", help="folder inside the workspace (default: memory)")
    p.add_argument("--workspace", metavar="DIR")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_new)

    p = sub.add_parser("today", help="today's daily note memory/YYYY-MM-DD.md, created if missing")
    p.add_argument("--date", metavar="YYYY-MM-DD", help="another day's note")
    p.add_argument("--workspace", metavar="DIR")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_today)
