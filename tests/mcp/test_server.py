"""``memdesk mcp`` driven by the official SDK's client over a real stdio subprocess:
the same index, ranking and explanations as the CLI, confined reads, safe appends,
resources, bad input, and searches while the index is being built."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import mcp_types
import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp.conftest import call, error_text, mcp_session, server_command, server_env, wait_indexed

QUERY = "which database did we pick for the vector store"


def cli_search(workspace: Path, home: Path, model: Path, *args: str) -> dict:
    env = dict(os.environ, **server_env(home))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "memdesk",
            "search",
            QUERY,
            "--workspace",
            str(workspace),
            "--model",
            str(model),
            "--json",
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=True,
    )
    return json.loads(out.stdout)


def test_search_with_and_without_explain_matches_the_cli(
    example_workspace: Path, memdesk_home: Path, minilm_path: Path
) -> None:
    async def body() -> tuple[dict, dict, dict]:
        async with mcp_session(example_workspace, memdesk_home, "--model", str(minilm_path)) as s:
            status = await wait_indexed(s)
            plain = await call(s, "memory_search", query=QUERY, max_results=5)
            explained = await call(s, "memory_search", query=QUERY, max_results=5, explain=True)
            return status, plain, explained

    status, plain, explained = anyio.run(body)
    assert status["mode"] == "hybrid" and status["files"] >= 50 and status["chunks"] > 0
    assert plain["mode"] == "hybrid" and not plain["indexing"] and plain["notices"] == []
    assert len(plain["results"]) == 5
    for hit in plain["results"]:
        assert {"path", "start_line", "end_line", "snippet", "score"} <= set(hit)
        assert "explain" not in hit
    assert plain["results"][0]["path"] == "memory/2026-05-06.md"  # the pgvector decision

    # The same ranking the CLI (and so the app) gives, from the same index.
    cli = cli_search(example_workspace, memdesk_home, minilm_path, "--max-results", "5", "--no-sync")
    assert [(h["path"], h["start_line"]) for h in plain["results"]] == [
        (h["path"], h["start_line"]) for h in cli["results"]
    ]
    assert [h["score"] for h in plain["results"]] == pytest.approx([h["score"] for h in cli["results"]])

    assert [h["path"] for h in explained["results"]] == [h["path"] for h in plain["results"]]
    for hit in explained["results"]:
        e = hit["explain"]
        assert e["mode"] == "hybrid" and e["vector"] is not None
        assert e["final"] == pytest.approx(hit["score"])
        # The explanation pane's words (tests/ui/test_explain_mcp.py compares them with the pane).
        lines = hit["explain_lines"]
        assert lines[0].startswith(f"{hit['path']} · lines {hit['start_line']}–{hit['end_line']} · rank ")
        assert any(line.startswith("Combined ") and "0.75 × vector" in line for line in lines)
        assert any(line.startswith("Final ") for line in lines)
        assert any(line.startswith("MMR λ ") for line in lines)  # the MMR rank


def test_search_folder_as_of_and_profile(example_workspace: Path, memdesk_home: Path) -> None:
    async def body() -> tuple[dict, dict, dict, str]:
        async with mcp_session(example_workspace, memdesk_home, "--model", "none") as s:
            await wait_indexed(s)
            folder = await call(
                s, "memory_search", query="decision", folder="memory/decisions/", max_results=3
            )
            dated = await call(
                s,
                "memory_search",
                query="Atlas launch",
                as_of="2026-06-01",
                profile="openclaw-2026.4",
                explain=True,
            )
            everything = await call(s, "memory_search", query="decision", max_results=3)
            bad = await error_text(s, "memory_search", query="x", as_of="June")
            return folder, dated, everything, bad

    folder, dated, everything, bad = anyio.run(body)
    assert folder["results"] and all(h["path"].startswith("memory/decisions/") for h in folder["results"])
    assert any(not h["path"].startswith("memory/decisions/") for h in everything["results"])
    assert dated["as_of"] == "2026-06-01" and dated["profile"] == "openclaw-2026.4"
    assert dated["mode"] == "fts" and dated["results"]
    assert "as_of 'June': expected a date as YYYY-MM-DD" in bad


def test_get_reads_inside_and_refuses_outside(
    example_workspace: Path, memdesk_home: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("do not read\n")
    (example_workspace / "memory" / "link.md").symlink_to(secret)
    note = example_workspace / "memory" / "decisions" / "database.md"
    text = note.read_text(encoding="utf-8")

    async def body() -> tuple[dict, dict, list[str]]:
        async with mcp_session(example_workspace, memdesk_home, "--model", "none") as s:
            whole = await call(s, "memory_get", path="memory/decisions/database.md")
            part = await call(s, "memory_get", path="memory/decisions/database.md", **{"from": 3, "lines": 2})
            refused = [
                await error_text(s, "memory_get", path=str(secret)),
                await error_text(s, "memory_get", path="../secret.md"),
                await error_text(s, "memory_get", path="memory/link.md"),
                await error_text(s, "memory_get", path="memory/nope.md"),
            ]
            return whole, part, refused

    whole, part, refused = anyio.run(body)
    assert whole["text"] == text
    assert part["text"] == "\n".join(text.split("\n")[2:4]) and part["from"] == 3 and part["lines"] == 2
    for message in refused:
        assert "no such memory file" in message or "not a memory file" in message, message
        assert "do not read" not in message


def test_append_needs_allow_write_and_keeps_the_notes_bytes(
    example_workspace: Path, memdesk_home: Path
) -> None:
    note = example_workspace / "memory" / "projects" / "harbor.md"
    # CRLF line endings, a BOM and no final newline: all kept, the text goes after them.
    original = b"\xef\xbb\xbf# Harbor\r\n\r\nKick-off in May."
    note.write_bytes(original)
    today = example_workspace / "memory" / f"{dt.date.today().isoformat()}.md"
    today.unlink(missing_ok=True)

    async def read_only() -> str:
        async with mcp_session(example_workspace, memdesk_home, "--model", "none") as s:
            return await error_text(s, "memory_append", text="hello", path="memory/projects/harbor.md")

    refusal = anyio.run(read_only)
    assert "read-only" in refusal and "--allow-write" in refusal
    assert note.read_bytes() == original and not today.exists()

    async def writable() -> tuple[dict, dict, dict, list[str]]:
        async with mcp_session(example_workspace, memdesk_home, "--model", "none", "--allow-write") as s:
            named = await call(
                s, "memory_append", text="Moved to June.\nOwner: Lin Wei", path="memory/projects/harbor.md"
            )
            daily = await call(s, "memory_append", text="- agent note: harbor moved")
            fresh = await call(s, "memory_append", text="first line", path="memory/agents/codex.md")
            refused = [
                await error_text(s, "memory_append", text="x", path="MEMORY.md"),
                await error_text(s, "memory_append", text="x", path="memory/../../outside.md"),
                await error_text(s, "memory_append", text="x", path="memory/notes.txt"),
            ]
            await wait_indexed(s)
            found = await call(s, "memory_search", query="harbor moved")
            assert any(h["path"] == daily["path"] for h in found["results"])
            return named, daily, fresh, refused

    named, daily, fresh, refused = anyio.run(writable)
    assert note.read_bytes() == original + b"\r\nMoved to June.\r\nOwner: Lin Wei\r\n"
    assert named == {
        "path": "memory/projects/harbor.md",
        "created": False,
        "bytes": len(note.read_bytes()),
        "merged": False,
    }
    assert daily["path"] == f"memory/{dt.date.today().isoformat()}.md" and daily["created"]
    assert (
        today.read_text(encoding="utf-8")
        == f"# {dt.date.today().isoformat()}\n\n- agent note: harbor moved\n"
    )
    assert fresh["created"] and (example_workspace / "memory/agents/codex.md").read_text() == "first line\n"
    assert all("memory_append writes only .md notes inside memory/" in m for m in refused), refused
    assert not (example_workspace.parent / "outside.md").exists()


def test_status_answers_before_the_model_loads(
    example_workspace: Path, memdesk_home: Path, minilm_path: Path
) -> None:
    async def body() -> tuple[dict, dict, dict]:
        async with mcp_session(example_workspace, memdesk_home, "--model", str(minilm_path)) as s:
            first = await call(s, "memory_status")
            indexed = await wait_indexed(s)
            await call(s, "memory_search", query="deploy cadence")
            after = await call(s, "memory_status")
            return first, indexed, after

    first, indexed, after = anyio.run(body)
    assert first["mode"] == "hybrid" and first["model_loaded"] is False
    assert set(first) >= {"files", "chunks", "mode", "mode_reason", "stale_notes", "indexing"}
    assert indexed["files"] >= 50 and indexed["stale_notes"] == []
    assert after["model_loaded"] is True and after["mode_reason"].startswith("hybrid")


def test_keyword_only_status_says_why(example_workspace: Path, memdesk_home: Path) -> None:
    async def body() -> dict:
        async with mcp_session(example_workspace, memdesk_home, "--model", "none") as s:
            return await wait_indexed(s)

    status = anyio.run(body)
    assert status["mode"] == "keyword-only" and "FTS-only by choice" in status["mode_reason"]


def test_resources_list_and_read(example_workspace: Path, memdesk_home: Path) -> None:
    async def body() -> tuple[list[str], str, str, str]:
        async with mcp_session(example_workspace, memdesk_home, "--model", "none") as s:
            listed = await s.list_resources()
            uris = [str(r.uri) for r in listed.resources]
            cjk = next(u for u in uris if "cjk" not in u and u.startswith("memory://memory/topics/"))
            read = await s.read_resource("memory://MEMORY.md")
            topic = await s.read_resource(cjk)
            with pytest.raises(MCPError) as outside:
                await s.read_resource("memory://../secret.md")
            return uris, read.contents[0].text, topic.contents[0].text, outside.value.message

    uris, memory_md, topic, outside = anyio.run(body)
    notes = sorted(
        p.relative_to(example_workspace).as_posix() for p in example_workspace.rglob("*.md") if p.is_file()
    )
    assert len(uris) == len(notes) and "memory://MEMORY.md" in uris
    assert memory_md == (example_workspace / "MEMORY.md").read_text(encoding="utf-8")
    assert topic == (example_workspace / "memory/topics/鉴权.md").read_text(encoding="utf-8")
    assert "no such memory file" in outside


def test_malformed_requests_get_protocol_errors_and_the_server_keeps_serving(
    example_workspace: Path, memdesk_home: Path
) -> None:
    cmd = server_command(example_workspace, "--model", "none")
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": mcp_types.LATEST_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }
    lines = [
        json.dumps(init),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "{this is not json",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call"}),  # no params
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "no/such/method", "params": {}}),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {"name": "memory_search", "arguments": {"query": "q" * 1_048_576}},
            }
        ),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {"name": "memory_status", "arguments": {}},
            }
        ),
        # A search the client cancels at once: the server drops it and serves on.
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 6,
                "method": "tools/call",
                "params": {"name": "memory_search", "arguments": {"query": "Atlas"}},
            }
        ),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 6}}),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "memory_get", "arguments": {"path": "MEMORY.md"}},
            }
        ),
    ]
    env = dict(os.environ, **server_env(memdesk_home))
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    replies: dict[int, dict] = {}
    raw_out: list[bytes] = []
    try:
        assert proc.stdin is not None and proc.stdout is not None
        for line in lines:
            proc.stdin.write(line.encode() + b"\n")
            proc.stdin.flush()
        while not {5, 7} <= set(replies):
            out = proc.stdout.readline()
            assert out, proc.stderr.read().decode() if proc.stderr else ""
            raw_out.append(out)
            msg = json.loads(out)  # every stdout line is a JSON-RPC message
            if "id" in msg and msg["id"] is not None:
                replies[msg["id"]] = msg
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(timeout=30)
    assert all(json.loads(o).get("jsonrpc") == "2.0" for o in raw_out)
    assert replies[2]["error"]["code"] == mcp_types.INVALID_PARAMS
    assert replies[3]["error"]["code"] == mcp_types.METHOD_NOT_FOUND
    assert replies[4]["error"]["code"] == mcp_types.INVALID_PARAMS
    assert "at most 4096" in replies[4]["error"]["message"]
    assert replies[7]["result"]["structuredContent"]["path"] == "MEMORY.md"
    status = replies[5]["result"]["structuredContent"]
    assert status["workspace"] == str(example_workspace.resolve())


def test_oversize_query_through_the_sdk_client_then_a_search(
    example_workspace: Path, memdesk_home: Path
) -> None:
    async def body() -> tuple[MCPError, dict]:
        async with mcp_session(example_workspace, memdesk_home, "--model", "none") as s:
            await wait_indexed(s)
            with pytest.raises(MCPError) as big:
                await s.call_tool("memory_search", {"query": "鉴" * 1_048_576})
            return big.value, await call(s, "memory_search", query="API鉴权方案")

    big, after = anyio.run(body)
    assert big.code == mcp_types.INVALID_PARAMS
    assert after["results"][0]["path"] == "memory/topics/鉴权.md"


def _grow(workspace: Path, notes: int) -> None:
    folder = workspace / "memory" / "bulk"
    folder.mkdir()
    for i in range(notes):
        words = " ".join(f"topic{(i * 7 + k) % 97} detail{k}" for k in range(60))
        (folder / f"note-{i:04d}.md").write_text(f"# Bulk note {i}\n\n{words}\n\nHarbor sync item {i}.\n")


def test_search_while_the_server_indexes_answers_from_the_keyword_index(
    example_workspace: Path, memdesk_home: Path, minilm_path: Path
) -> None:
    _grow(example_workspace, 300)

    async def body() -> tuple[dict, dict, dict]:
        async with mcp_session(example_workspace, memdesk_home, "--model", str(minilm_path)) as s:
            early = await call(s, "memory_search", query=QUERY)
            await wait_indexed(s)
            late = await call(s, "memory_search", query=QUERY)
            return early, late, await call(s, "memory_status")

    early, late, status = anyio.run(body)
    assert early["indexing"] and early["mode"] == "fts"
    assert any("still indexing" in n and "keyword index" in n for n in early["notices"])
    assert late["mode"] == "hybrid" and not late["indexing"] and late["notices"] == []
    assert "memory/2026-05-06.md" in [h["path"] for h in late["results"]]
    assert status["files"] >= 350


def test_search_while_another_process_rebuilds_the_index(
    example_workspace: Path, memdesk_home: Path, minilm_path: Path
) -> None:
    """The app (here: ``memdesk index --rebuild``, the same engine and locks) syncs
    the same index while an MCP client searches: no busy error, answers throughout."""
    _grow(example_workspace, 80)
    env = dict(os.environ, **server_env(memdesk_home))
    index_cmd = [
        sys.executable,
        "-m",
        "memdesk",
        "index",
        "--workspace",
        str(example_workspace),
        "--model",
        str(minilm_path),
    ]
    subprocess.run(index_cmd, check=True, capture_output=True, env=env, timeout=600)

    async def body() -> list[dict]:
        async with mcp_session(example_workspace, memdesk_home, "--model", str(minilm_path)) as s:
            await wait_indexed(s)
            rebuild = subprocess.Popen(
                [*index_cmd, "--rebuild"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            answers = []
            try:
                while rebuild.poll() is None or len(answers) < 3:
                    answers.append(await call(s, "memory_search", query=QUERY, max_results=3))
                    await anyio.sleep(0.1)
            finally:
                assert rebuild.wait(timeout=600) == 0, rebuild.stderr.read() if rebuild.stderr else ""
            return answers

    answers = anyio.run(body)
    assert len(answers) >= 3
    assert all(a["results"] for a in answers)


@pytest.mark.parametrize("client", ["claude", "codex", "cursor", "openclaw"])
def test_print_config_is_the_clients_file_format_with_absolute_paths(
    client: str, example_workspace: Path, memdesk_home: Path
) -> None:
    import tomllib

    env = dict(os.environ, **server_env(memdesk_home))
    out = subprocess.run(
        [*server_command(example_workspace), "--print-config", client],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    if client == "codex":
        entry = tomllib.loads(out.stdout)["mcp_servers"]["memdesk"]
    elif client == "openclaw":
        entry = json.loads(out.stdout)["mcp"]["servers"]["memdesk"]
    else:
        entry = json.loads(out.stdout)["mcpServers"]["memdesk"]
    assert Path(entry["command"]).is_absolute()
    assert entry["args"][-3:] == ["mcp", "--workspace", str(example_workspace.resolve())]
    assert out.stderr.startswith("# ")  # where it goes, beside (not inside) the snippet
    # The snippet starts the server: run exactly what the client would.
    status = subprocess.run(
        [entry["command"], *entry["args"], "--print-config", "codex"], capture_output=True, text=True, env=env
    )
    assert status.returncode == 0 and "[mcp_servers.memdesk]" in status.stdout


def test_search_since_until_and_as_of_a_day(tmp_path: Path, memdesk_home: Path) -> None:
    """``since``/``until`` keep the notes of a date range (the CLI's filter), and
    ``memory_search_as_of`` searches the scripted history's notes as they were on a day,
    each hit with its version and whether its note changed since; the workspace's
    files are not written."""
    from tests.core.asof import scripted

    root = tmp_path / "ws"
    scripted.scripted(root)  # into this test's data dir, where the server reads it
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}

    async def body() -> tuple[dict, dict, dict, dict, str, str]:
        async with mcp_session(root, memdesk_home, "--model", "none") as s:
            await wait_indexed(s)
            ranged = await call(s, "memory_search", query="2026", since="2026-10-21", until="2026-10-22")
            everything = await call(s, "memory_search", query="2026")
            day3 = await call(s, "memory_search_as_of", query="ferry project owned", day="2026-11-03")
            lighthouse = await call(
                s, "memory_search_as_of", query="lighthouse migration", day="2026-11-03", since="2026-11-01"
            )
            bad_day = await error_text(s, "memory_search_as_of", query="x", day="3 November")
            bad_range = await error_text(
                s, "memory_search", query="x", since="2026-11-02", until="2026-11-01"
            )
            return ranged, everything, day3, lighthouse, bad_day, bad_range

    ranged, everything, day3, lighthouse, bad_day, bad_range = anyio.run(body)
    assert {h["path"] for h in ranged["results"]} == {"memory/2026-10-21.md", "memory/2026-10-22.md"}
    assert (ranged["since"], ranged["until"]) == ("2026-10-21", "2026-10-22")
    assert len({h["path"] for h in everything["results"]}) > 2  # the filter did the narrowing

    assert day3["as_of"]["day"] == "2026-11-03" and day3["as_of"]["differences"]["gone"] == [scripted.GONE]
    ferry = [h for h in day3["results"] if h["path"] == scripted.FERRY]
    assert ferry and "Dana Whitfield" in ferry[0]["snippet"] and ferry[0]["changed_since"] is True
    assert ferry[0]["as_of"]["source"] == "disk"
    (gone,) = [h for h in lighthouse["results"] if h["path"] == scripted.GONE]
    assert gone["changed_since"] is True  # deleted since
    assert all(h["path"] == scripted.GONE for h in lighthouse["results"])  # the only note dated then
    assert "day '3 November': expected a date as YYYY-MM-DD" in bad_day
    assert "ends before it starts" in bad_range
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
