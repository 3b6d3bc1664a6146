"""``memdesk new`` and ``memdesk today`` through a real subprocess: paths, JSON, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import run


def test_new_creates_a_note_once(example_workspace: Path, memdesk_home: Path) -> None:
    ws = str(example_workspace)
    made = json.loads(
        run(
            "new", "Q3: budget", "--folder", "memory/topics", "--workspace", ws, "--json", home=memdesk_home
        ).stdout
    )
    assert made == {
        "path": "memory/topics/Q3- budget.md",
        "file": str(example_workspace / "memory/topics/Q3- budget.md"),
        "created": True,
    }
    assert (example_workspace / made["path"]).read_text(encoding="utf-8") == "# Q3- budget\n\n"
    again = run(
        "new", "Q3: budget", "--folder", "memory/topics", "--workspace", ws, home=memdesk_home, check=False
    )
    assert again.returncode == 1 and again.stderr.count("\n") == 1 and "already exists" in again.stderr
    outside = run("new", "x", "--folder", "elsewhere", "--workspace", ws, home=memdesk_home, check=False)
    assert outside.returncode == 1 and "under memory/" in outside.stderr
    assert not (example_workspace / "elsewhere").exists()


def test_today_creates_the_daily_note_once(example_workspace: Path, memdesk_home: Path) -> None:
    ws = str(example_workspace)
    first = json.loads(
        run("today", "--date", "2027-01-02", "--workspace", ws, "--json", home=memdesk_home).stdout
    )
    assert first == {
        "path": "memory/2027-01-02.md",
        "file": str(example_workspace / "memory/2027-01-02.md"),
        "created": True,
    }
    (example_workspace / "memory/2027-01-02.md").write_text("# 2027-01-02\n\nkept\n", encoding="utf-8")
    second = run("today", "--date", "2027-01-02", "--workspace", ws, home=memdesk_home).stdout
    assert second.strip() == str(example_workspace / "memory/2027-01-02.md")
    assert "kept" in (example_workspace / "memory/2027-01-02.md").read_text(encoding="utf-8")
    bad = run("today", "--date", "tomorrow", "--workspace", ws, home=memdesk_home, check=False)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "YYYY-MM-DD" in bad.stderr
