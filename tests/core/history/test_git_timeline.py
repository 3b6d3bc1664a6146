"""A workspace inside a git repository: the note's commits in its timeline, read only."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memdesk.core.history import History, gitlog, open_history

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git binary")


def _git(repo: Path, *args: str, when: str = "2026-03-01T10:00:00+00:00") -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)


def _state(repo: Path) -> dict[str, tuple[int, str]]:
    """Every file under .git with its size and digest: what a write would change."""
    return {
        str(p.relative_to(repo)): (p.stat().st_size, hashlib.sha256(p.read_bytes()).hexdigest())
        for p in sorted((repo / ".git").rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose workspace is a subfolder, with three commits of one note (the
    last a rename) and an uncommitted change."""
    repo = tmp_path / "dotfiles"
    ws = repo / "agent" / "workspace"
    (ws / "memory").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (ws / "MEMORY.md").write_bytes(b"# Memory\n")
    (ws / "memory" / "ferry.md").write_bytes(b"Ferry owner: Ana\r\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "first", when="2026-03-01T10:00:00+00:00")
    (ws / "memory" / "ferry.md").write_bytes(b"Ferry owner: Ana\r\nFerry owner: Bruno\r\n")
    _git(repo, "commit", "-q", "-am", "second", when="2026-04-02T11:00:00+00:00")
    _git(repo, "mv", "agent/workspace/memory/ferry.md", "agent/workspace/memory/ferry-project.md")
    _git(repo, "commit", "-q", "-m", "rename", when="2026-05-03T12:00:00+00:00")
    (ws / "memory" / "ferry-project.md").write_bytes(b"uncommitted\n")
    return repo


@pytest.fixture
def history(repo: Path) -> Iterator[History]:
    store = open_history(repo / "agent" / "workspace")
    yield store
    store.close()


def test_commits_appear_in_the_timeline_following_a_rename(repo: Path, history: History) -> None:
    before = _state(repo)
    history.capture(
        "memory/ferry-project.md", b"uncommitted\n", source="disk", at=datetime(2026, 6, 1, tzinfo=UTC)
    )
    timeline = history.timeline("memory/ferry-project.md")
    assert [(v.source, v.at.date().isoformat()) for v in timeline] == [
        ("disk", "2026-06-01"),
        ("git", "2026-05-03"),
        ("git", "2026-04-02"),
        ("git", "2026-03-01"),
    ]
    assert all(v.id.startswith("git:") and len(v.id) == 44 for v in timeline[1:])
    assert [history.content(v) for v in timeline[1:]] == [
        b"Ferry owner: Ana\r\nFerry owner: Bruno\r\n",
        b"Ferry owner: Ana\r\nFerry owner: Bruno\r\n",
        b"Ferry owner: Ana\r\n",
    ]
    assert timeline[3].size == len(b"Ferry owner: Ana\r\n")
    assert timeline[3].digest == hashlib.sha256(b"Ferry owner: Ana\r\n").hexdigest()
    assert history.previous(timeline[2]) == timeline[3]
    assert history.timeline("memory/ferry-project.md", git=False) == timeline[:1]
    assert _state(repo) == before  # nothing in the repository was written


def test_a_deleted_note_shows_its_deleting_commit(repo: Path, history: History) -> None:
    _git(repo, "rm", "-q", "-f", "agent/workspace/memory/ferry-project.md")
    _git(repo, "commit", "-q", "-m", "drop", when="2026-07-04T09:00:00+00:00")
    newest = history.timeline("memory/ferry-project.md")[0]
    assert (newest.source, newest.digest, history.content(newest)) == ("git", None, None)
    assert newest.reason is not None


def test_no_git_binary_means_no_git_entries(history: History, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gitlog.shutil, "which", lambda name: None)
    assert history.timeline("memory/ferry-project.md") == []


def test_not_a_repository_means_no_git_entries(tmp_path: Path) -> None:
    ws = tmp_path / "plain"
    ws.mkdir()
    with open_history(ws) as history:
        history.capture("MEMORY.md", b"x\n", source="disk")
        assert [v.source for v in history.timeline("MEMORY.md")] == ["disk"]


def test_a_hanging_git_gives_no_entries(history: History, monkeypatch: pytest.MonkeyPatch) -> None:
    def hang(*args: object, **kwargs: object) -> None:
        raise subprocess.TimeoutExpired("git", gitlog.TIMEOUT_S)

    monkeypatch.setattr(gitlog.subprocess, "run", hang)
    assert history.timeline("memory/ferry-project.md") == []


def test_at_with_git_fills_in_notes_memdesk_had_not_seen_yet(repo: Path, history: History) -> None:
    """Before memdesk's first version of a note, the repository's commit of that day
    gives it; after, memdesk's own versions win."""
    seen = datetime(2026, 6, 1, tzinfo=UTC)
    history.capture("memory/ferry-project.md", b"captured by memdesk\n", source="baseline", at=seen)
    april = history.at(datetime(2026, 4, 10, tzinfo=UTC), git=True)
    assert set(april) == {"MEMORY.md", "memory/ferry.md"}  # the tree of the 2 April commit
    ferry = april["memory/ferry.md"]
    assert ferry.source == "git" and ferry.at == datetime(2026, 4, 2, 11, tzinfo=UTC)
    assert history.content(ferry) == b"Ferry owner: Ana\r\nFerry owner: Bruno\r\n"
    assert ferry.digest == hashlib.sha256(b"Ferry owner: Ana\r\nFerry owner: Bruno\r\n").hexdigest()
    assert history.at(datetime(2026, 4, 10, tzinfo=UTC)) == {}  # captured versions only
    june = history.at(datetime(2026, 6, 2, tzinfo=UTC), git=True)
    assert june["memory/ferry-project.md"].source == "baseline"
    assert june["MEMORY.md"].source == "git"
    assert history.at(datetime(2026, 2, 1, tzinfo=UTC), git=True) == {}  # before the first commit


def test_a_periods_changes_include_its_commits_read_only(repo: Path, history: History) -> None:
    """``changes`` (``memdesk changes``), its per-note counts and one note's versions (the
    Changes view) list what each commit of the period did to the workspace's notes, as
    the History panel does, and write nothing to the repository."""
    (repo / "elsewhere.txt").write_bytes(b"not in the workspace\n")
    _git(repo, "add", "elsewhere.txt")
    _git(repo, "commit", "-q", "-m", "outside", when="2026-04-20T08:00:00+00:00")
    history.capture("MEMORY.md", b"# Memory\nA line\n", source="memdesk", at=datetime(2026, 4, 5, tzinfo=UTC))
    before = _state(repo)
    since, until = datetime(2026, 3, 15, tzinfo=UTC), datetime(2026, 6, 1, tzinfo=UTC)
    found = history.changes(since, until)
    assert [(v.source, v.note, v.at.date().isoformat(), v.added, v.removed) for v in found] == [
        ("git", "memory/ferry.md", "2026-04-02", 1, 0),
        ("memdesk", "MEMORY.md", "2026-04-05", 2, 0),
        ("git", "memory/ferry-project.md", "2026-05-03", 2, 0),  # a rename: added here...
        ("git", "memory/ferry.md", "2026-05-03", 0, 2),  # ...and deleted there
    ]
    assert history.content(found[0]) == b"Ferry owner: Ana\r\nFerry owner: Bruno\r\n"
    assert found[0].digest == hashlib.sha256(b"Ferry owner: Ana\r\nFerry owner: Bruno\r\n").hexdigest()
    assert (found[3].digest, history.content(found[3])) == (None, None)
    assert history.previous(found[0]) is not None  # its diff reads against the commit before it
    assert [v.source for v in history.changes(since, until, git=False)] == ["memdesk"]
    assert [(c.note, c.source, c.count) for c in history.summarize(since, until)] == [
        ("MEMORY.md", "memdesk", 1),
        ("memory/ferry-project.md", "git", 1),
        ("memory/ferry.md", "git", 2),
    ]
    assert history.note_changes("memory/ferry.md", since, until) == [found[0], found[3]]
    assert history.changes(datetime(2026, 4, 3, tzinfo=UTC), datetime(2026, 5, 3, 12, tzinfo=UTC)) == [
        found[1]
    ]
    assert _state(repo) == before  # nothing in the repository was written


def test_the_changes_view_lists_commits_on_the_agents_side(repo: Path, history: History) -> None:
    from memdesk.qt import history_data

    root = repo / "agent" / "workspace"
    changes = history_data.load_changes(
        root, datetime(2026, 3, 15, tzinfo=UTC), datetime(2026, 6, 1, tzinfo=UTC)
    )
    assert [(g.side, g.note, g.count, g.sources) for g in changes.groups] == [
        ("agent", "memory/ferry-project.md", 1, ("git",)),
        ("agent", "memory/ferry.md", 2, ("git",)),
    ]
    versions = history_data.load_group(root, changes.groups[1], changes.since, changes.until)
    assert [(v.source, v.at.date().isoformat()) for v in versions] == [
        ("git", "2026-04-02"),
        ("git", "2026-05-03"),
    ]


def test_the_cli_and_the_changes_view_agree_on_the_agents_side(repo: Path, history: History) -> None:
    """``memdesk changes --agent-only`` (``NoteChanges.by_agent``) and the Changes view's
    sides (``history_data``) take one definition (``version.by_agent``): commits, disk,
    MCP and deleted are the agent's, memdesk's saves the user's."""
    from memdesk.core.history import changes as history_changes
    from memdesk.core.history import version
    from memdesk.qt import history_data

    root = repo / "agent" / "workspace"
    since, until = datetime(2026, 3, 15, tzinfo=UTC), datetime(2026, 6, 1, tzinfo=UTC)
    history.capture("MEMORY.md", b"# Memory\nA line\n", source="memdesk", at=datetime(2026, 4, 5, tzinfo=UTC))
    history.capture("memory/mcp.md", b"appended\n", source="mcp", at=datetime(2026, 4, 6, tzinfo=UTC))
    history.capture("memory/disk.md", b"written\n", source="disk", at=datetime(2026, 4, 7, tzinfo=UTC))
    history.capture("memory/disk.md", None, source="deleted", at=datetime(2026, 4, 8, tzinfo=UTC))
    groups = history_changes.by_note(history.changes(since, until))
    cli = {("agent", g.note) for g in groups if g.by_agent} | {("user", g.note) for g in groups if g.by_user}
    view = {(g.side, g.note) for g in history_data.load_changes(root, since, until).groups}
    assert (
        cli
        == view
        == {
            ("user", "MEMORY.md"),
            ("agent", "memory/mcp.md"),
            ("agent", "memory/disk.md"),
            ("agent", "memory/ferry-project.md"),
            ("agent", "memory/ferry.md"),
        }
    )
    assert [s for s in (*version.CAPTURED_SOURCES, version.GIT) if version.by_agent(s)] == [
        "disk",
        "mcp",
        "deleted",
        "git",
    ]
