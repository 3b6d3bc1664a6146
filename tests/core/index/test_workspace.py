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


def _count_realpaths(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = os.path.realpath

    def counting(path: str | os.PathLike[str], *args: object, **kwargs: object) -> str:
        calls.append(os.fspath(path))
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os.path, "realpath", counting)
    return calls


def test_a_listing_resolves_each_walked_folder_not_each_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A walk follows no symlink, so a note's realpath is its folder's and the rest:
    listing 20,000 notes spent most of its time in one ``realpath`` per note (an
    ``lstat`` per path component), after every sync and on every note opened."""
    _touch(tmp_path / "MEMORY.md")
    for day in range(1, 31):
        _touch(tmp_path / "memory" / "2026" / "01" / f"2026-01-{day:02}.md")
    calls = _count_realpaths(monkeypatch)
    files = workspace.list_memory_files(tmp_path)
    assert len(files) == 31
    assert len(calls) <= 2, calls  # MEMORY.md and the memory folder
    calls.clear()
    note = workspace.resolve_note(tmp_path, "memory/2026/01/2026-01-07.md")
    assert note == tmp_path / "memory" / "2026" / "01" / "2026-01-07.md"
    # No listing: the root's two notes, the memory folder and the note asked for, at
    # any number of notes.
    assert len(calls) <= 4, calls


def test_notes_reached_twice_are_listed_once_through_a_linked_root(tmp_path: Path) -> None:
    """The realpath of a walked note is its folder's realpath and the rest: a note
    reached through a symlinked root and again through an extra path naming its real
    folder (with a trailing separator) is one note, listed where it was first found."""
    real_root = tmp_path / "real"
    _touch(real_root / "memory" / "sub" / "deep.md")
    _touch(real_root / "memory" / "top.md")
    linked = tmp_path / "linked"
    os.symlink(real_root, linked)
    extra = str(real_root / "memory" / "sub") + os.sep
    files = workspace.list_memory_files(linked, [extra, "memory/sub/"])
    assert files == [linked / "memory" / "sub" / "deep.md", linked / "memory" / "top.md"]
    assert workspace.resolve_note(linked, extra + "deep.md") == linked / "memory" / "sub" / "deep.md"


@pytest.mark.parametrize(
    ("root", "path"),
    [
        ("/w/ws", "/w/ws/memory/2026/01/a.md"),
        ("/w/ws/", "/w/ws/memory/a.md"),
        ("/w/ws", "/w/ws/memory/../secret.md"),
        ("/w/ws", "/w/ws/./memory/a.md"),
        ("/w/ws", "/w/ws//memory/a.md"),
        ("/w/ws", "/w/other/e.md"),
        ("/w/ws", "/w/wsx/e.md"),
        ("/w/ws/../ws", "/w/ws/memory/a.md"),
        ("/w/ws", "/w/ws"),
        ("ws", "ws/memory/a.md"),
    ],
)
def test_rel_path_is_relpath(root: str, path: str) -> None:
    """The prefix cut gives what ``os.path.relpath`` gives, for normal and odd paths."""
    want = os.path.relpath(path, root).replace(os.sep, "/")
    assert workspace.rel_path(root, path) == want
    assert workspace.rel_path(Path(root), Path(path)) == os.path.relpath(Path(path), Path(root))
