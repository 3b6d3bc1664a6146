"""``memdesk history`` and ``memdesk changes`` through a real subprocess, on a scripted history."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from memdesk.core.history import open_history
from tests.cli.test_cli import run


def _at(day: int, hour: int = 12) -> dt.datetime:
    """Noon (local) of December ``day``, 2026, as UTC: the CLI's days are local days."""
    return dt.datetime(2026, 12, day, hour).astimezone().astimezone(dt.UTC)


@pytest.fixture
def scripted(tmp_path: Path, memdesk_home: Path) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_bytes(b"# Memory\r\n- Ferry owner: Bruno\r\n")
    with open_history(root) as history:
        history.capture("MEMORY.md", b"# Memory\r\n- Ferry owner: Ana\r\n", source="baseline", at=_at(1))
        history.capture("MEMORY.md", b"# Memory\r\n- Ferry owner: Bruno\r\n", source="disk", at=_at(3))
        history.capture("memory/2026-12-04.md", b"- met Bruno\n", source="mcp", at=_at(4))
        history.capture("memory/2026-12-04.md", b"- met Bruno\n- and Ana\n", source="memdesk", at=_at(5))
        history.capture("memory/old.md", None, source="deleted", at=_at(9))
    return root


def test_history_lists_the_timeline_newest_first(scripted: Path, memdesk_home: Path) -> None:
    out = json.loads(
        run("history", "MEMORY.md", "--workspace", str(scripted), "--json", home=memdesk_home).stdout
    )
    assert [(v["source"], v["added"], v["removed"]) for v in out["versions"]] == [
        ("disk", 1, 1),
        ("baseline", 2, 0),
    ]
    text = run("history", str(scripted / "MEMORY.md"), "--workspace", str(scripted), home=memdesk_home).stdout
    assert text.splitlines()[0] == "MEMORY.md: 2 versions, newest first"


def test_show_prints_a_version_exactly_and_diff_its_change(scripted: Path, memdesk_home: Path) -> None:
    ws = str(scripted)
    versions = json.loads(run("history", "MEMORY.md", "--workspace", ws, "--json", home=memdesk_home).stdout)[
        "versions"
    ]
    newest, oldest = versions[0]["id"], versions[1]["id"]
    shown = json.loads(
        run("history", "MEMORY.md", "--show", oldest, "--workspace", ws, "--json", home=memdesk_home).stdout
    )
    assert shown["text"] == "# Memory\r\n- Ferry owner: Ana\r\n"  # line endings kept
    diff = json.loads(
        run("history", "MEMORY.md", "--diff", newest, "--workspace", ws, "--json", home=memdesk_home).stdout
    )
    assert diff["from"]["id"] == oldest and diff["to"]["id"] == newest
    assert diff["hunks"] == [
        {
            "old_start": 1,
            "old_lines": ["- Ferry owner: Ana\r\n"],
            "new_start": 1,
            "new_lines": ["- Ferry owner: Bruno\r\n"],
        }
    ]
    both = run("history", "MEMORY.md", "--diff", newest, oldest, "--workspace", ws, home=memdesk_home).stdout
    assert "-- Ferry owner: Bruno" in both and "+- Ferry owner: Ana" in both


def test_changes_groups_a_period_by_note(scripted: Path, memdesk_home: Path) -> None:
    ws = str(scripted)
    out = json.loads(
        run(
            "changes",
            "--since",
            "2026-12-02",
            "--until",
            "2026-12-05",
            "--workspace",
            ws,
            "--json",
            home=memdesk_home,
        ).stdout
    )
    assert [(n["note"], n["sources"], n["added"], n["removed"]) for n in out["notes"]] == [
        ("memory/2026-12-04.md", ["mcp", "memdesk"], 2, 0),
        ("MEMORY.md", ["disk"], 1, 1),
    ]
    agent = json.loads(
        run(
            "changes", "--since", "2026-12-05", "--agent-only", "--workspace", ws, "--json", home=memdesk_home
        ).stdout
    )
    assert [n["note"] for n in agent["notes"]] == ["memory/old.md"]
    text = run("changes", "--since", "2026-12-10", "--workspace", ws, home=memdesk_home).stdout
    assert text.strip() == "no changes since 2026-12-10"


def test_changes_since_the_first_day_lists_everything(scripted: Path, memdesk_home: Path) -> None:
    """Year 1 has no local time: ``astimezone`` raised ValueError, a traceback."""
    out = run("changes", "--since", "0001-01-01", "--workspace", str(scripted), "--json", home=memdesk_home)
    notes = {n["note"] for n in json.loads(out.stdout)["notes"]}
    assert notes == {"MEMORY.md", "memory/2026-12-04.md", "memory/old.md"}


def test_retention_is_shown_and_set(scripted: Path, memdesk_home: Path) -> None:
    ws = str(scripted)
    shown = json.loads(run("history", "--retention", "--workspace", ws, "--json", home=memdesk_home).stdout)
    assert (shown["keep_all_days"], shown["daily_days"]) == (30, None)
    run("history", "--keep-all-days", "7", "--daily-days", "60", "--workspace", ws, home=memdesk_home)
    again = json.loads(run("history", "--retention", "--workspace", ws, "--json", home=memdesk_home).stdout)
    assert (again["keep_all_days"], again["daily_days"]) == (7, 60)


def test_bad_input_is_one_line(scripted: Path, memdesk_home: Path) -> None:
    ws = str(scripted)
    for args, words in (
        (("history", "MEMORY.md", "--show", "999"), "999 is not a version of MEMORY.md"),
        (("history", "memory/old.md", "--show", "5"), "has no content kept"),
        (("changes", "--since", "last week"), "expected a date as YYYY-MM-DD"),
        (("history", "--daily-days", "soon"), "expected a number of days"),
    ):
        out = run(*args, "--workspace", ws, home=memdesk_home, check=False)
        assert out.returncode == 1 and out.stderr.count("\n") == 1 and words in out.stderr, (args, out.stderr)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git binary")
def test_changes_lists_the_repositorys_commits_unless_no_git(tmp_path: Path, memdesk_home: Path) -> None:
    from tests.core.history.test_git_timeline import _git

    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    _git(ws, "init", "-q", "-b", "main")
    (ws / "memory" / "2026-12-02.md").write_bytes(b"- committed by the agent\n")
    _git(ws, "add", "-A")
    _git(ws, "commit", "-q", "-m", "agent", when="2026-12-02T12:00:00+00:00")
    args = ("changes", "--since", "2026-12-01", "--until", "2026-12-03", "--workspace", str(ws), "--json")
    out = json.loads(run(*args, home=memdesk_home).stdout)
    assert [(n["note"], n["sources"], n["added"]) for n in out["notes"]] == [
        ("memory/2026-12-02.md", ["git"], 1)
    ]
    assert out["notes"][0]["versions"][0]["id"].startswith("git:")
    assert json.loads(run(*args, "--no-git", home=memdesk_home).stdout)["notes"] == []


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git binary")
def test_agent_only_keeps_the_repositorys_commits(tmp_path: Path, memdesk_home: Path) -> None:
    """A commit is the agent's (or another tool's) change, not the user's through
    memdesk: ``--agent-only`` keeps it, as the Changes view lists it on the agent's side."""
    from tests.core.history.test_git_timeline import _git

    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    _git(ws, "init", "-q", "-b", "main")
    (ws / "memory" / "2026-12-02.md").write_bytes(b"- committed by the agent\n")
    _git(ws, "add", "-A")
    _git(ws, "commit", "-q", "-m", "agent", when="2026-12-02T12:00:00+00:00")
    with open_history(ws) as history:
        history.capture("MEMORY.md", b"# Memory\n- saved in memdesk\n", source="memdesk", at=_at(2, 13))
    args = ("changes", "--since", "2026-12-01", "--until", "2026-12-03", "--workspace", str(ws), "--json")
    every = json.loads(run(*args, home=memdesk_home).stdout)
    assert {n["note"] for n in every["notes"]} == {"MEMORY.md", "memory/2026-12-02.md"}
    agent = json.loads(run(*args, "--agent-only", home=memdesk_home).stdout)
    assert [(n["note"], n["sources"]) for n in agent["notes"]] == [("memory/2026-12-02.md", ["git"])]
