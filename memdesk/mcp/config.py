"""``memdesk mcp --print-config <client>``: the snippet each MCP client's config needs.

Every snippet names the launcher by its absolute path (clients start servers without
the user's shell PATH) and the workspace by its absolute path (they start them in
whatever folder they like). Formats as each client documents them: Claude Code's
``.mcp.json`` (``claude mcp add-json``), Codex's ``~/.codex/config.toml``
``[mcp_servers.<name>]``, Cursor's ``~/.cursor/mcp.json``, OpenClaw's ``mcp.servers``
in ``openclaw.json`` (``openclaw mcp set``).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

CLIENTS = ("claude", "codex", "cursor", "openclaw")
SERVER_NAME = "memdesk"


def launcher() -> list[str]:
    """The absolute command that starts memdesk: the bundle's executable, the installed
    ``memdesk`` script this run came from, or this Python with ``-m memdesk``."""
    if getattr(sys, "frozen", False):
        return [os.path.abspath(sys.executable)]
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "memdesk" and argv0.exists():
        return [str(argv0.absolute())]
    found = shutil.which("memdesk")
    if found:
        return [os.path.abspath(found)]
    return [os.path.abspath(sys.executable), "-m", "memdesk"]


def server_command(workspace: Path, *, allow_write: bool = False) -> tuple[str, list[str]]:
    cmd = launcher()
    args = [*cmd[1:], "mcp", "--workspace", str(Path(workspace).expanduser().resolve())]
    if allow_write:
        args.append("--allow-write")
    return cmd[0], args


def _toml_str(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


# Where each client takes the snippet (``--print-config`` says so on stderr: stdout is
# the snippet alone, valid JSON or TOML to paste or append).
WHERE = {
    "claude": "Claude Code: .mcp.json in the project (or: claude mcp add-json memdesk '<the memdesk object>')",
    "codex": "Codex: ~/.codex/config.toml",
    "cursor": "Cursor: ~/.cursor/mcp.json (or .cursor/mcp.json in the project)",
    "openclaw": "OpenClaw: openclaw.json (or: openclaw mcp set memdesk '<the memdesk object>')",
}


def snippet(client: str, workspace: Path, *, allow_write: bool = False) -> str:
    """``client``'s config text that starts memdesk's server on ``workspace``."""
    command, args = server_command(workspace, allow_write=allow_write)
    entry = {"command": command, "args": args}
    if client == "claude":
        return json.dumps({"mcpServers": {SERVER_NAME: {"type": "stdio"} | entry}}, indent=2)
    if client == "cursor":
        return json.dumps({"mcpServers": {SERVER_NAME: entry}}, indent=2)
    if client == "codex":
        return "\n".join(
            [
                f"[mcp_servers.{SERVER_NAME}]",
                f"command = {_toml_str(command)}",
                "args = [" + ", ".join(_toml_str(a) for a in args) + "]",
            ]
        )
    if client == "openclaw":
        return json.dumps({"mcp": {"servers": {SERVER_NAME: entry}}}, indent=2)
    raise ValueError(f"unknown client {client!r} ({', '.join(CLIENTS)})")
