"""Helpers for driving ``memdesk mcp`` through the SDK's own client over a real stdio subprocess."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]


def server_env(home: Path) -> dict[str, str]:
    """What the server needs beyond the SDK's default (safe) environment: this
    checkout first on the path, and the test's own data dir."""
    return {
        "MEMDESK_HOME": str(home),
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }


def server_command(workspace: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "memdesk", "mcp", "--workspace", str(workspace), *args]


@contextlib.asynccontextmanager
async def mcp_session(
    workspace: Path, home: Path, *args: str, errlog: Any = None
) -> AsyncIterator[ClientSession]:
    cmd = server_command(workspace, *args)
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=server_env(home))
    with open(os.devnull, "w") if errlog is None else contextlib.nullcontext(errlog) as err:
        async with stdio_client(params, errlog=err) as streams, ClientSession(*streams) as session:
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """The tool's result as JSON, asserting it is no error."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    # The text content is the same JSON (clients that ignore structured content).
    assert json.loads(result.content[0].text) == result.structured_content
    return dict(result.structured_content)


async def error_text(session: ClientSession, tool: str, **arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def wait_indexed(session: ClientSession, timeout: float = 240.0) -> dict[str, Any]:
    """memory_status once the server's own sync has finished."""
    deadline = time.monotonic() + timeout
    while True:
        status = await call(session, "memory_status")
        if not status["indexing"] and not status["stale_notes"]:
            return status
        assert time.monotonic() < deadline, status
        await anyio.sleep(0.2)
