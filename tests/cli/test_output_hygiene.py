"""What the CLI prints is safe: no terminal escapes from notes, JSON always valid UTF-8."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def _run(*args: str, home: Path) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, MEMDESK_HOME=str(home))
    out = subprocess.run(
        [sys.executable, "-m", "memdesk", *args], capture_output=True, env=env, timeout=300, check=False
    )
    assert out.returncode == 0, out.stderr.decode("utf-8", "replace")
    return out


def _hostile_workspace(root: Path) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory\n\nquokka \x1b]0;owned\x07 \x1b[2J\x1b[31mred\x9b1m\n")
    with open(os.path.join(os.fsencode(root / "memory"), b"bad-\xff\xfe.md"), "wb") as handle:
        handle.write(b"quokka in a badly named note\n")
    (root / "memory" / "esc-\x1b[31m.md").write_text("quokka in an oddly named note\n")
    return root


def test_text_output_passes_no_control_characters(tmp_path: Path, memdesk_home: Path) -> None:
    """Escape sequences inside notes and file names are shown, not sent to the terminal."""
    ws = str(_hostile_workspace(tmp_path / "ws"))
    outputs = [
        _run("index", "--workspace", ws, "--model", "none", home=memdesk_home),
        _run("search", "quokka", "--workspace", ws, "--model", "none", home=memdesk_home),
        _run("status", "--workspace", ws, "--model", "none", home=memdesk_home),
    ]
    for out in outputs:
        text = out.stdout.decode("utf-8")  # valid UTF-8, too
        assert not any(ch in text for ch in "\x1b\x07\x9b"), text
    search = outputs[1].stdout.decode("utf-8")
    assert "\\x1b[31mred" in search  # visible as an escape, so the user still sees it is there
    assert "memory/bad-\\xff\\xfe.md" in outputs[2].stdout.decode("utf-8")


def test_json_is_valid_utf8_with_undecodable_file_names(tmp_path: Path, memdesk_home: Path) -> None:
    """--json never carries raw undecodable bytes; names are escaped the same way everywhere."""
    ws = str(_hostile_workspace(tmp_path / "ws"))
    index = json.loads(
        _run("index", "--workspace", ws, "--model", "none", "--json", home=memdesk_home).stdout
    )
    status = json.loads(
        _run("status", "--workspace", ws, "--model", "none", "--json", home=memdesk_home).stdout.decode(
            "utf-8"
        )
    )
    assert index["files"] == 2 and status["files"] == 2
    assert [s["path"] for s in status["skipped"]] == ["memory/bad-\\xff\\xfe.md"]
    assert "not valid UTF-8" in status["skipped"][0]["reason"]
    assert [s["path"] for s in index["skipped"]] == ["memory/bad-\\xff\\xfe.md"]
