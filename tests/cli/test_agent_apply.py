"""``memdesk agent apply`` without OpenClaw writes nothing and says why in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_apply_without_openclaw_refuses_and_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_")}
    env |= {
        "HOME": str(home),
        "PATH": os.path.dirname(sys.executable),  # no openclaw command
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
        "MEMDESK_HOME": str(tmp_path / "memdesk-home"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "memdesk", "agent", "apply", "--yes", "--vector-weight", "0.8"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "OpenClaw was not found" in lines[0] and "nothing written" in lines[0]
    assert not (home / ".openclaw").exists()
    assert sorted(p.name for p in home.iterdir()) == []
