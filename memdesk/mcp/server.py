"""The MCP server: ``MemoryTools`` on the official SDK's ``MCPServer``, over stdio.

Tool names and result shapes are a contract (docs/mcp.md), kept stable like
``memdesk search --json``. A request the tools refuse comes back as a tool error
(``isError``) naming the problem; a query over the size limit is a protocol error
(JSON-RPC invalid params). The SDK answers malformed JSON-RPC itself and keeps serving;
while it serves, fd 1 points at stderr, so nothing but protocol reaches stdout.
"""

from __future__ import annotations

import logging
import urllib.parse
from collections.abc import Iterable
from typing import Annotated, Any

import mcp_types
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver import server as sdk_server
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import ToolAnnotations
from pydantic import Field

from memdesk.core import errors
from memdesk.core.index import workspace
from memdesk.mcp import tools as tools_mod

log = logging.getLogger(__name__)

URI_SCHEME = "memory://"

INSTRUCTIONS = (
    "memdesk serves the agent's Markdown memory workspace (MEMORY.md, memory/**/*.md) with the "
    "ranking its user tuned. memory_search finds notes (explain=true says how each score came "
    "about; since/until keep notes of a date range), memory_search_as_of searches memory as it "
    "was on a past day, memory_get reads a note or some of its lines, memory_status reports the index, "
    "memory_append adds to today's daily note when the server allows writes."
)


def note_uri(rel: str) -> str:
    return URI_SCHEME + urllib.parse.quote(rel, safe="/")


def uri_note(uri: str) -> str:
    if not uri.startswith(URI_SCHEME):
        raise ResourceError(f"{uri}: memdesk serves only {URI_SCHEME}<note path> resources")
    return urllib.parse.unquote(uri[len(URI_SCHEME) :])


class MemoryServer(MCPServer[Any]):
    """``MCPServer`` whose resources are the workspace's notes as they are now (the
    SDK's own resource list is fixed at registration; notes come and go)."""

    def __init__(self, memory: tools_mod.MemoryTools, **kwargs: Any) -> None:
        # The SDK's constructor sets up logging with a rich handler: importing rich
        # cost ~0.1 s of start-up, for a ``logging.basicConfig`` that does nothing here
        # (``memdesk`` has configured logging, to stderr, before). Skipped.
        configure = getattr(sdk_server, "configure_logging", None)
        setattr(sdk_server, "configure_logging", _logging_configured)  # noqa: B010 (a module global)
        try:
            super().__init__(**kwargs)
        finally:
            if configure is not None:
                setattr(sdk_server, "configure_logging", configure)  # noqa: B010
        self.memory = memory

    async def list_resources(self) -> list[mcp_types.Resource]:
        import anyio.to_thread

        rels = await anyio.to_thread.run_sync(self.memory.note_paths)
        return [
            mcp_types.Resource(uri=note_uri(rel), name=rel, title=rel, mime_type="text/markdown")
            for rel in rels
        ]

    async def read_resource(self, uri: Any, context: Any = None) -> Iterable[ReadResourceContents]:
        import anyio.to_thread

        rel = uri_note(str(uri))
        try:
            text = await anyio.to_thread.run_sync(lambda: self.memory.memory_get(rel)["text"])
        except errors.MemdeskError as exc:
            raise ResourceError(workspace.printable(str(exc))) from None
        return [ReadResourceContents(content=text, mime_type="text/markdown")]


def _logging_configured(level: str) -> None:
    """Stands in for the SDK's ``configure_logging`` (see ``MemoryServer``)."""


# The parameters memory_search and memory_search_as_of share.
Query = Annotated[str, Field(description="what to look for, in words (at most 4096 characters)")]
MaxResults = Annotated[int | None, Field(description="how many hits (1-100)")]
Folder = Annotated[str | None, Field(description="only hits under this folder, e.g. memory/projects")]
Explain = Annotated[bool, Field(description="how each hit's score came about")]
Since = Annotated[
    str | None,
    Field(
        description="only notes dated on or after this day (YYYY-MM-DD): its name's date, else when written"
    ),
]
Until = Annotated[str | None, Field(description="only notes dated on or before this day (YYYY-MM-DD)")]


def _check_query(query: str, tool: str) -> None:
    if len(query) > tools_mod.MAX_QUERY_CHARS:
        # A protocol error, not a tool result: the request itself is out of bounds.
        raise MCPError(
            code=mcp_types.INVALID_PARAMS,
            message=f"query is {len(query)} characters; {tool} takes at most {tools_mod.MAX_QUERY_CHARS}",
        )


def _refused(exc: errors.MemdeskError) -> ToolError:
    return ToolError(workspace.printable(str(exc)))


def build_server(memory: tools_mod.MemoryTools) -> MemoryServer:
    from memdesk import __version__

    server = MemoryServer(
        memory, name="memdesk", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only)
    def memory_search(
        query: Query,
        max_results: MaxResults = None,
        profile: Annotated[
            str | None,
            Field(
                description="ranking profile: memdesk (default: the workspace's tuned settings), "
                "openclaw-2026.9 or openclaw-2026.4 (what that OpenClaw would retrieve)"
            ),
        ] = None,
        as_of: Annotated[
            str | None,
            Field(
                description="rank as on this date (YYYY-MM-DD): decay's clock "
                "(memory_search_as_of searches memory as it was on a day)"
            ),
        ] = None,
        folder: Folder = None,
        explain: Explain = False,
        since: Since = None,
        until: Until = None,
    ) -> dict[str, Any]:
        """Search the memory workspace as the user tuned it: hits with path, lines, snippet, score."""
        _check_query(query, "memory_search")
        try:
            return memory.memory_search(query, max_results, profile, as_of, folder, explain, since, until)
        except errors.MemdeskError as exc:
            raise _refused(exc) from None

    @server.tool(annotations=read_only)
    def memory_search_as_of(
        query: Query,
        day: Annotated[
            str,
            Field(
                description="search memory as it was at the end of this day (YYYY-MM-DD): "
                "each note's version then, from memdesk's history and the workspace's git commits"
            ),
        ],
        max_results: MaxResults = None,
        profile: Annotated[str | None, Field(description="ranking profile, as for memory_search")] = None,
        folder: Folder = None,
        since: Since = None,
        until: Until = None,
        explain: Explain = False,
    ) -> dict[str, Any]:
        """Search memory as it was on a past day: each hit names the version it came from
        and whether its note changed since. The first search of a day indexes that day's
        notes (reusing today's vectors), later ones reuse it."""
        _check_query(query, "memory_search_as_of")
        try:
            return memory.memory_search_as_of(query, day, max_results, profile, folder, since, until, explain)
        except errors.MemdeskError as exc:
            raise _refused(exc) from None

    @server.tool(annotations=read_only)
    def memory_get(
        path: Annotated[
            str, Field(description="the note's path in the workspace, e.g. memory/2026-05-01.md")
        ],
        from_: Annotated[
            int | None, Field(validation_alias="from", description="first line (1-based)")
        ] = None,
        lines: Annotated[int | None, Field(description="how many lines")] = None,
    ) -> dict[str, Any]:
        """Read a memory note, or some of its lines; nothing outside the workspace's notes."""
        try:
            return memory.memory_get(path, from_, lines)
        except errors.MemdeskError as exc:
            raise _refused(exc) from None

    @server.tool(
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
    )
    def memory_append(
        text: Annotated[str, Field(description="Markdown to add at the end of the note")],
        path: Annotated[
            str | None,
            Field(description="a note under memory/ (default: today's daily note memory/YYYY-MM-DD.md)"),
        ] = None,
    ) -> dict[str, Any]:
        """Append to today's daily note (or a named note under memory/); only when the server allows writes."""
        try:
            return memory.memory_append(text, path)
        except errors.MemdeskError as exc:
            raise _refused(exc) from None

    @server.tool(annotations=read_only)
    def memory_status() -> dict[str, Any]:
        """The index: files, chunks, mode (hybrid or keyword-only, and why), stale notes."""
        try:
            return memory.memory_status()
        except errors.MemdeskError as exc:
            raise _refused(exc) from None

    return server
