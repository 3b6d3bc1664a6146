"""``memdesk`` command line: the same core calls as the GUI, JSON on request.

One module per command group registers its subcommands (``register``).

User errors (bad path, bad model file, corrupt source package...) print one line
on stderr and exit 1; ``--json`` output is a contract other tools parse.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from memdesk.cli import agent as cli_agent
from memdesk.cli import common
from memdesk.cli import desktop as cli_desktop
from memdesk.cli import eval as cli_eval
from memdesk.cli import gui as cli_gui
from memdesk.cli import index as cli_index
from memdesk.cli import model as cli_model
from memdesk.cli import notes as cli_notes
from memdesk.cli import search as cli_search
from memdesk.core import errors

log = logging.getLogger("memdesk.cli")

COMMAND_GROUPS = (cli_index, cli_search, cli_notes, cli_model, cli_gui, cli_desktop, cli_eval, cli_agent)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memdesk", description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in COMMAND_GROUPS:
        group.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.ERROR, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
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
