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
