"""Two ``memdesk mcp`` processes append to one note while the agent appends to it in
place: every line each of them was told was written is in the note, once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LINES = 60

_APPENDER = """
import sys
from pathlib import Path
from memdesk.core import errors
from memdesk.mcp.tools import MemoryTools
tools = MemoryTools(Path(sys.argv[1]), model="none", allow_write=True, sync_on_start=False)
for i in range(int(sys.argv[3])):
    try:
        tools.memory_append(f"- {sys.argv[2]} line {i}", "memory/shared.md")
    except errors.MemdeskError:
        print("refused", i, flush=True)
tools.close()
"""

_AGENT = """
import sys, time
for i in range(int(sys.argv[2])):
    with open(sys.argv[1] + "/memory/shared.md", "a") as handle:
        handle.write(f"- agent line {i}\\n")
    time.sleep(0.002)
"""


def test_two_appending_servers_and_an_agent_lose_no_line(tmp_path: Path) -> None:
    root = tmp_path / "workspace"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory\n")
    note = root / "memory" / "shared.md"
    note.write_text("# shared\n")
    env = dict(os.environ, MEMDESK_HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO))
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-c", _APPENDER, str(root), name, str(LINES)], env=env, stdout=subprocess.PIPE
        )
        for name in ("A", "B")
    }
    procs["agent"] = subprocess.Popen([sys.executable, "-c", _AGENT, str(root), str(LINES)], env=env)
    told = {name: (proc.communicate(timeout=600)[0] or b"").decode() for name, proc in procs.items()}
    assert all(proc.returncode == 0 for proc in procs.values())
    text = note.read_text(encoding="utf-8")
    for name, out in told.items():
        refused = {int(line.split()[1]) for line in out.splitlines() if line.startswith("refused")}
        for i in range(LINES):
            count = text.count(f"- {name} line {i}\n")
            assert count == (0 if i in refused else 1), (name, i, count)
