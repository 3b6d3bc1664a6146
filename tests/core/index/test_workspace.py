"""Discovery, path safety, note decoding and atomic saves."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memdesk.core import errors
from memdesk.core.index import workspace


def _touch(path: Path, text: str = "# note\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_discovery_follows_openclaw_rules(tmp_path: Path) -> None:
    """Root files, memory/**.md, extra paths; symlinks, ignored dirs and non-.md skipped."""
    _touch(tmp_path / "MEMORY.md")
    _touch(tmp_path / "memory" / "2026-01-01.md")
    _touch(tmp_path / "memory" / "sub" / "deep.md")
    _touch(tmp_path / "memory" / "notes.txt")
    _touch(tmp_path / "memory" / "UPPER.MD")
    _touch(tmp_path / "memory" / ".git" / "x.md")
    _touch(tmp_path / "memory" / "node_modules" / "y.md")
    _touch(tmp_path / "other.md")
    os.symlink(tmp_path / "memory" / "2026-01-01.md", tmp_path / "memory" / "link.md")
    os.symlink(tmp_path / "memory", tmp_path / "memory" / "sub" / "loop")  # a symlink loop
    extra = _touch(tmp_path / "extra" / "e.md")
    rels = [
        workspace.rel_path(tmp_path, p)
        for p in workspace.list_memory_files(tmp_path, ["extra", str(extra), "missing"])
    ]
    assert rels == ["MEMORY.md", "memory/2026-01-01.md", "memory/sub/deep.md", "extra/e.md"]


def test_realpath_dedupe_keeps_first(tmp_path: Path) -> None:
    _touch(tmp_path / "MEMORY.md")
    files = workspace.list_memory_files(tmp_path, ["."])
    assert [workspace.rel_path(tmp_path, p) for p in files].count("MEMORY.md") == 1


def test_symlinked_memory_dir_is_skipped(tmp_path: Path) -> None:
    _touch(tmp_path / "real" / "a.md")
    os.symlink(tmp_path / "real", tmp_path / "memory")
    assert workspace.list_memory_files(tmp_path) == []


def test_resolve_note_refuses_outside_paths(tmp_path: Path) -> None:
    _touch(tmp_path / "memory" / "a.md")
    _touch(tmp_path / "secret.md")
    assert workspace.resolve_note(tmp_path, "memory/a.md") == tmp_path / "memory" / "a.md"
    for bad in ("secret.md", "../etc/passwd", "memory/../secret.md", "/etc/passwd"):
        with pytest.raises(errors.PathNotAllowed):
            workspace.resolve_note(tmp_path, bad)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"\x7fELF\x02\x01\x00bad", "binary"),
        (b"caf\xe9 latin-1", "UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary"),
        ("# UTF-16 note\n".encode("utf-16"), "UTF-16 text"),
        ("# UTF-16 note without a BOM\n".encode("utf-16-le"), "looks like UTF-16"),
    ],
)
def test_decode_rejects_non_text(data: bytes, fragment: str) -> None:
    with pytest.raises(errors.NoteReadError, match=fragment):
        workspace.decode_note(data, name="x.md")


def test_decode_strips_bom() -> None:
    assert workspace.decode_note("\ufeff# 标题".encode(), name="x.md") == "# 标题"


def test_write_note_atomic_replaces_and_keeps_mode(tmp_path: Path) -> None:
    path = _touch(tmp_path / "memory" / "a.md", "old")
    os.chmod(path, 0o640)
    workspace.write_note_atomic(path, "新的内容\n")
    assert path.read_text(encoding="utf-8") == "新的内容\n"
    assert path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in path.parent.iterdir()] == ["a.md"]  # no temp files left
