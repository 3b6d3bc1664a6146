"""Note operations: safe names, create/rename/delete-to-trash and restore, the daily note."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from memdesk.core import errors
from memdesk.core.index import notes, trash, workspace


@pytest.mark.parametrize(
    ("typed", "stem"),
    [
        ("Q3 planning", "Q3 planning"),
        ("budget/people", "budget-people"),
        ("../../etc/passwd", "etc-passwd"),
        ("  .hidden.md ", "hidden"),
        ("鉴权 方案", "鉴权 方案"),
        ("///", ""),
    ],
)
def test_safe_name(typed: str, stem: str) -> None:
    assert notes.safe_name(typed) == stem


def test_note_path_refuses_an_empty_name() -> None:
    assert notes.note_path("memory/topics", "Auth: v2") == "memory/topics/Auth- v2.md"
    assert notes.note_path("", "MEMORY") == "MEMORY.md"
    with pytest.raises(errors.MemdeskError, match="not a usable note name"):
        notes.note_path("memory", "?!")


def test_create_lists_the_note_and_never_overwrites(tmp_path: Path) -> None:
    path = notes.create_note(tmp_path, "memory/topics/auth.md", "# Auth\n")
    assert path.read_text(encoding="utf-8") == "# Auth\n"
    assert "memory/topics/auth.md" in {
        workspace.rel_path(tmp_path, p) for p in workspace.list_memory_files(tmp_path)
    }
    with pytest.raises(errors.MemdeskError, match="already exists"):
        notes.create_note(tmp_path, "memory/topics/auth.md", "other")
    assert path.read_text(encoding="utf-8") == "# Auth\n"


@pytest.mark.parametrize(
    "rel", ["../outside.md", "/etc/x.md", "memory/x.txt", "notes/x.md", "memory/../../x.md"]
)
def test_paths_outside_the_memory_layout_are_refused(tmp_path: Path, rel: str) -> None:
    with pytest.raises(errors.PathNotAllowed):
        notes.create_note(tmp_path / "ws", rel, "x")
    assert not any(tmp_path.rglob("*.md"))


def test_rename_moves_and_refuses_to_overwrite(tmp_path: Path) -> None:
    notes.create_note(tmp_path, "memory/a.md", "A")
    notes.create_note(tmp_path, "memory/b.md", "B")
    with pytest.raises(errors.MemdeskError, match="already exists"):
        notes.rename_note(tmp_path, "memory/a.md", "memory/b.md")
    moved = notes.rename_note(tmp_path, "memory/a.md", "memory/archive/a.md")
    assert moved.read_text(encoding="utf-8") == "A" and not (tmp_path / "memory/a.md").exists()
    assert (tmp_path / "memory/b.md").read_text(encoding="utf-8") == "B"
    with pytest.raises(errors.MemdeskError, match="no such note"):
        notes.rename_note(tmp_path, "memory/gone.md", "memory/c.md")
    # The curated root file is not renamed out of the memory layout.
    notes.create_note(tmp_path, "MEMORY.md", "root")
    with pytest.raises(errors.PathNotAllowed):
        notes.rename_note(tmp_path, "MEMORY.md", "other.md")
    assert (tmp_path / "MEMORY.md").read_text(encoding="utf-8") == "root"


def test_a_note_of_an_extra_path_is_renamed_in_its_folder(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "plan.md").write_text("P", encoding="utf-8")
    with pytest.raises(errors.PathNotAllowed):  # without the extra path it is no note
        notes.rename_note(tmp_path, "docs/plan.md", "docs/plan-v2.md")
    moved = notes.rename_note(tmp_path, "docs/plan.md", "docs/plan-v2.md", extra_paths=["docs"])
    assert moved == tmp_path / "docs" / "plan-v2.md" and moved.read_text(encoding="utf-8") == "P"


def test_delete_moves_the_note_to_the_trash_and_restore_brings_it_back(
    tmp_path: Path, trash_home: Path
) -> None:
    notes.create_note(tmp_path, "memory/old.md", "keep me somewhere")
    record = notes.delete_note(tmp_path, "memory/old.md")
    assert not (tmp_path / "memory/old.md").exists()
    # The conftest gives each test its own freedesktop trash.
    in_trash = trash_home / "Trash" / "files" / "old.md"
    assert in_trash.read_text(encoding="utf-8") == "keep me somewhere"
    with pytest.raises(errors.MemdeskError, match="no such note"):
        notes.delete_note(tmp_path, "memory/old.md")
    trash.restore(record)
    assert (tmp_path / "memory/old.md").read_text(encoding="utf-8") == "keep me somewhere"
    assert not in_trash.exists()


def test_delete_refuses_what_is_not_a_note(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(errors.PathNotAllowed):
        notes.delete_note(tmp_path, "notes.txt")
    assert (tmp_path / "notes.txt").exists()


def test_daily_note_is_created_once(tmp_path: Path) -> None:
    day = dt.date(2026, 5, 1)
    assert notes.daily_note_path(day) == "memory/2026-05-01.md"
    assert notes.open_daily_note(tmp_path, day) == ("memory/2026-05-01.md", True)
    assert (tmp_path / "memory/2026-05-01.md").read_text(encoding="utf-8") == "# 2026-05-01\n\n"
    (tmp_path / "memory/2026-05-01.md").write_text("# 2026-05-01\n\nwritten\n", encoding="utf-8")
    assert notes.open_daily_note(tmp_path, day) == ("memory/2026-05-01.md", False)
    assert "written" in (tmp_path / "memory/2026-05-01.md").read_text(encoding="utf-8")
