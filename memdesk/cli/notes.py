"""``memdesk get``: print a memory file or some of its lines."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memdesk.cli import common


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


def register(sub: Any) -> None:
    p = sub.add_parser("get", help="print a memory file (or some of its lines)")
    p.add_argument("path")
    p.add_argument("--workspace", metavar="DIR")
    p.add_argument("--from", type=int, dest="from_", metavar="N", help="first line (1-based)")
    p.add_argument("--lines", type=int, metavar="K", help="number of lines")
    p.set_defaults(func=cmd_get)
