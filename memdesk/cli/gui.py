"""``memdesk gui``: start the desktop app."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def cmd_gui(args: argparse.Namespace) -> int:
    from memdesk.qt import platform_check

    # Before any Qt module loads: a missing system library would otherwise end in an
    # ImportError or in Qt's own abort.
    problem = platform_check.prepare(screenshot=args.screenshot is not None)
    if problem:
        sys.stderr.write(f"memdesk: {problem}\n")
        return 2
    from memdesk import app

    workspace = Path(args.workspace).expanduser() if args.workspace else None
    return app.run_gui(
        workspace,
        args.model,
        args.query,
        Path(args.screenshot) if args.screenshot else None,
        verbose=bool(getattr(args, "verbose", False)),
        theme=args.theme,
    )


def register(sub: Any) -> None:
    p = sub.add_parser("gui", help="start the desktop app")
    p.add_argument("--workspace", metavar="DIR")
    p.add_argument("--model", metavar="PATH|none")
    p.add_argument("--query", help="search this at start")
    p.add_argument(
        "--screenshot", metavar="OUT.png", help="wait for indexing and results, save a screenshot, exit"
    )
    p.add_argument(
        "--theme",
        choices=("system", "light", "dark"),
        default=None,
        help="colour theme for this run (default: the one chosen in View > Theme, else the system's)",
    )
    p.set_defaults(func=cmd_gui)
