"""``memdesk`` command line: the same core calls as the GUI, JSON on request.

One module per command group registers its subcommands (``register``).

User errors (bad path, bad model file, corrupt source package...) print one line
on stderr and exit 1; ``--json`` output is a contract other tools parse.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from types import ModuleType

from memdesk.cli import common
from memdesk.core import errors

log = logging.getLogger("memdesk.cli")

# The command groups in help order, and which one registers each command. A run
# imports only its own group: importing all of them (the agent and eval groups pull
# in most of core) cost about 0.8 s before ``memdesk status`` did anything.
COMMAND_GROUPS = ("index", "search", "notes", "history", "model", "gui", "desktop", "eval", "agent", "mcp")
GROUP_OF_COMMAND = {
    "index": "index",
    "status": "index",
    "search": "search",
    "get": "notes",
    "new": "notes",
    "today": "notes",
    "history": "history",
    "changes": "history",
    "model": "model",
    "gui": "gui",
    "desktop-entry": "desktop",
    "eval": "eval",
    "agent": "agent",
    "doctor": "agent",
    "mcp": "mcp",
}


def command_groups(argv: Sequence[str] | None = None) -> list[ModuleType]:
    """The modules to register: the named command's own, or all of them (for
    ``--help``, no command, or one this table does not know, so argparse's own
    message lists every command)."""
    first = next((a for a in (argv or ()) if not a.startswith("-")), None)
    group = GROUP_OF_COMMAND.get(first or "")
    names = [group] if group else list(COMMAND_GROUPS)
    return [importlib.import_module(f"memdesk.cli.{name}") for name in names]


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ``argv``'s command (every command's when ``argv`` is None)."""
    parser = argparse.ArgumentParser(prog="memdesk", description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in command_groups(argv):
        group.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.ERROR, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
        # The default model, on a bundle's first start; the app and the MCP server build
        # it in the background instead, answering meanwhile.
        if getattr(args, "model", False) is None and args.command not in ("gui", "mcp"):
            common.prepare_packaged_model()
        return int(args.func(args) or 0)
    except errors.MemdeskError as exc:
        sys.stderr.write(common.terminal_safe(f"memdesk: error: {exc}") + "\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("memdesk: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # The machine said no (read-only or full disk, permissions): one line, no traceback.
        where = f": {exc.filename}" if exc.filename else ""
        sys.stderr.write(common.terminal_safe(f"memdesk: error: {exc.strerror or exc}{where}") + "\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
