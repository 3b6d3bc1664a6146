"""``memdesk mcp``: serve the workspace to any agent over MCP (stdio), or print a client's config."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from memdesk.cli import common


def cmd_mcp(args: argparse.Namespace) -> int:
    root = common.workspace_arg(args.workspace)
    if args.print_config:
        from memdesk.mcp import config

        sys.stderr.write(f"# {config.WHERE[args.print_config]}\n")
        sys.stdout.write(config.snippet(args.print_config, root, allow_write=args.allow_write) + "\n")
        return 0
    if args.log_file:
        handler = logging.FileHandler(args.log_file, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logging.getLogger().addHandler(handler)
    # Protocol only on stdout: every log line goes to stderr (or the log file).
    logging.getLogger().setLevel(logging.INFO if args.verbose else logging.WARNING)
    from memdesk.mcp import sdk

    sdk.import_server_side()
    from memdesk.mcp import server as server_mod
    from memdesk.mcp import tools as tools_mod

    memory = tools_mod.MemoryTools(root, model=args.model or "auto", allow_write=args.allow_write)
    try:
        server_mod.build_server(memory).run("stdio")
    finally:
        memory.close()
    return 0


def register(sub: Any) -> None:
    from memdesk.mcp.config import CLIENTS

    p = sub.add_parser("mcp", help="serve the workspace to agents over MCP (stdio)")
    p.add_argument(
        "--workspace",
        metavar="DIR",
        help="memory workspace (default: ~/.openclaw/workspace, else the current folder)",
    )
    p.add_argument(
        "--model",
        metavar="PATH|none",
        help="GGUF embedding model, or 'none' for keyword-only (default: the built default)",
    )
    p.add_argument(
        "--allow-write",
        action="store_true",
        help="let agents append to notes (memory_append); read-only without it",
    )
    p.add_argument("--log-file", metavar="FILE", help="also log to FILE (stdout carries only the protocol)")
    p.add_argument(
        "--print-config",
        choices=CLIENTS,
        metavar="CLIENT",
        help=f"print the config snippet for an MCP client ({', '.join(CLIENTS)}) and exit",
    )
    p.set_defaults(func=cmd_mcp)
