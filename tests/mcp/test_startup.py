"""``memdesk mcp`` starts with what memory_status needs and no more: nothing only a search
needs (llama.cpp, the explanation, the CLI's search), none of the SDK's client side or its
rich log handler, and no workspace scan before the server has answered (its start to the
first answered memory_status is benchmarked in benchmarks/mcp_latency.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.mcp.conftest import server_env

SCRIPT = """
import json, sys
from pathlib import Path
from memdesk.mcp import sdk
sdk.import_server_side()
from memdesk.mcp import server, tools
# Later than the default second: a loaded test machine can take longer than that to get
# here, and the point is that start-up itself does not scan the workspace.
tools.BACKGROUND_START_S = 60.0
memory = tools.MemoryTools(Path(sys.argv[1]), model=sys.argv[2])
server.build_server(memory)
status = memory.memory_status()
watched = sys.argv[3].split(",")
print(json.dumps({"imported": [m for m in watched if m in sys.modules], "status": status,
                  "sync_started": memory._sync_thread is not None}))
memory.close()
"""

ONLY_FOR_A_SEARCH = (
    "llama_cpp",
    "memdesk.core.search.explain",
    "memdesk.core.search.explain_text",
    "memdesk.core.search.highlight",
    "memdesk.cli.search",
    "memdesk.core.eval.tuned",
)
NOT_FOR_A_SERVER = ("mcp.client", "mcp.client.session", "rich", "rich.console")


def test_start_imports_and_does_only_what_status_needs(
    example_workspace: Path, memdesk_home: Path, minilm_path: Path
) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            SCRIPT,
            str(example_workspace),
            str(minilm_path),
            ",".join(ONLY_FOR_A_SEARCH + NOT_FOR_A_SERVER),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, **server_env(memdesk_home)),
        timeout=300,
        check=True,
    )
    data = json.loads(out.stdout)
    assert data["imported"] == []
    status = data["status"]
    assert status["mode"] == "hybrid" and status["model_loaded"] is False
    # The start-up sync waits (BACKGROUND_START_S) so it does not share the cores with
    # the server's start; the status says the index is still to be brought up to date.
    assert data["sync_started"] is False and status["indexing"] is True
