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
    # Named as memory/topics' notes are (cjk-search.md), titled as typed, with their bits.
    assert made == {
        "path": "memory/topics/q3-budget.md",
        "file": str(example_workspace / "memory/topics/q3-budget.md"),
        "created": True,
    }
    assert (example_workspace / made["path"]).read_text(encoding="utf-8") == "# Q3: budget\n\n"
    mode = (example_workspace / "memory/topics/cjk-search.md").stat().st_mode
    assert (example_workspace / made["path"]).stat().st_mode == mode
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


def test_new_and_today_refuse_a_symlinked_folder_leading_out(
    example_workspace: Path, memdesk_home: Path, tmp_path: Path
) -> None:
    ws = str(example_workspace)
    outside = tmp_path / "outside"
    outside.mkdir()
    (example_workspace / "memory" / "evil").symlink_to(outside, target_is_directory=True)
    new = run("new", "x", "--folder", "memory/evil", "--workspace", ws, home=memdesk_home, check=False)
    assert new.returncode == 1 and new.stderr.count("\n") == 1
    assert f"memory/evil is a symlink to {outside} outside the workspace" in new.stderr
    moved = tmp_path / "memory-elsewhere"
    (example_workspace / "memory").rename(moved)
    (example_workspace / "memory").symlink_to(outside, target_is_directory=True)
    today = run("today", "--date", "2027-01-02", "--workspace", ws, home=memdesk_home, check=False)
    assert today.returncode == 1 and today.stderr.count("\n") == 1
    assert f"memory is a symlink to {outside} outside the workspace" in today.stderr
    assert list(outside.iterdir()) == []
