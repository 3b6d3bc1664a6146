"""Which files the agent indexes, per OpenClaw release, and what it skips."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memdesk.core.agent.config import ExtraPath
from memdesk.core.agent.sources import content_hash, list_agent_files


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    for rel, text in {
        "MEMORY.md": "root",
        "memory.md": "legacy root",
        "USER.md": "me",
        "DREAMS.md": "dreams",
        "memory/2026-11-20.md": "day",
        "memory/imports/claude/chat.md": "imported",
        "memory/notes.MD": "upper",
        "memory/todo.txt": "txt",
        "memory/.openclaw-repair/root-memory/MEMORY.md": "repair copy",
        "team/runbooks/deploy.md": "deploy",
        "team/runbooks/old/x.md": "x",
        "team/other.md": "other",
    }.items():
        path = ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    os.symlink(ws / "memory" / "2026-11-20.md", ws / "memory" / "link.md")
    return ws


def test_2026_9_listing(workspace: Path) -> None:
    listing = list_agent_files(
        workspace,
        [ExtraPath("team", "runbooks/*.md"), ExtraPath("team/other.md"), ExtraPath("missing")],
        "2026.9",
    )
    assert listing.rel_paths() == [
        "MEMORY.md",
        "USER.md",
        "memory/2026-11-20.md",
        "memory/imports/claude/chat.md",
        "team/runbooks/deploy.md",
        "team/other.md",
    ]
    reasons = {s.path: s.reason for s in listing.skipped}
    assert "no longer indexes" in reasons["memory.md"]
    assert "not indexed" in reasons["DREAMS.md"]
    assert "symlink" in reasons["memory/link.md"]
    assert "lower-case .md" in reasons["memory/notes.MD"]
    assert "lower-case .md" in reasons["memory/todo.txt"]
    assert reasons["missing"] == "extra path does not exist"


def test_2026_4_listing(workspace: Path) -> None:
    listing = list_agent_files(workspace, [ExtraPath("team")], "2026.4")
    assert listing.rel_paths() == [
        "MEMORY.md",
        "memory.md",
        "memory/.openclaw-repair/root-memory/MEMORY.md",
        "memory/2026-11-20.md",
        "memory/imports/claude/chat.md",
        "team/other.md",
        "team/runbooks/deploy.md",
        "team/runbooks/old/x.md",
    ]
    assert "does not index USER.md" in {s.path: s.reason for s in listing.skipped}["USER.md"]


def test_glob_star_star_and_dedupe(workspace: Path) -> None:
    listing = list_agent_files(
        workspace,
        [ExtraPath("team", "runbooks/**/*.md"), ExtraPath("memory"), ExtraPath("team", "nothing/*.md")],
        "2026.9",
    )
    rel = listing.rel_paths()
    assert rel.count("memory/2026-11-20.md") == 1  # reached twice, listed once
    assert "team/runbooks/old/x.md" in rel and "team/other.md" not in rel
    assert any(s.reason == "extra path matches no .md file" for s in listing.skipped)


def test_symlinked_extra_root_is_reported(workspace: Path, tmp_path: Path) -> None:
    os.symlink(workspace / "team", tmp_path / "team-link")
    listing = list_agent_files(workspace, [ExtraPath(str(tmp_path / "team-link"))], "2026.9")
    assert not any(f.kind == "extra" for f in listing.files)
    assert any("real absolute folder" in s.reason for s in listing.skipped)


def test_content_hash_matches_openclaw_utf8_read(tmp_path: Path) -> None:
    import hashlib

    good = tmp_path / "a.md"
    good.write_bytes("\ufeffhé".encode())
    assert content_hash(good) == hashlib.sha256(good.read_bytes()).hexdigest()
    bad = tmp_path / "b.md"
    bad.write_bytes(b"caf\xe9")
    assert content_hash(bad) == hashlib.sha256("caf\ufffd".encode()).hexdigest()
