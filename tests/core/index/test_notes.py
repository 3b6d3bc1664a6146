"""Note operations: safe names, create/rename/delete-to-trash and restore, the daily note."""

from __future__ import annotations

import datetime as dt
import os
import stat
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
        # Emoji (with a variation selector, a skin tone, a ZWJ sequence) are valid in a
        # file name and kept; decomposed accents stay on their letter.
        ("🚀 launch plan", "🚀 launch plan"),
        ("ideas ❤️ 👍🏽", "ideas ❤️ 👍🏽"),
        ("team 👩‍💻", "team 👩‍💻"),
        ("cafe\u0301", "cafe\u0301"),
        ("🚀/🌙", "🚀-🌙"),
    ],
)
def test_safe_name(typed: str, stem: str) -> None:
    assert notes.safe_name(typed) == stem


def test_replaced_names_what_became_a_dash() -> None:
    assert notes.replaced("budget/people: 2026 🚀") == ["/", ":"]
    assert notes.replaced("鉴权 方案 ✅") == []


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


# -- writes stay inside the workspace ------------------------------------------------------
def _outside_link(root: Path, tmp_path: Path, rel: str) -> Path:
    """``root/rel`` as a symlink to a folder outside the workspace; returns that folder."""
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    link = root / rel
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside, target_is_directory=True)
    return outside


def test_a_new_note_is_not_written_through_a_symlinked_folder(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    outside = _outside_link(root, tmp_path, "memory/evil")
    with pytest.raises(errors.PathNotAllowed) as caught:
        notes.create_note(root, "memory/evil/x.md", "# x\n")
    assert str(caught.value) == (
        f"memory/evil is a symlink to {outside} outside the workspace: memdesk writes only inside {root}"
    )
    with pytest.raises(errors.PathNotAllowed, match="memory/evil is a symlink"):
        notes.create_note(root, "memory/evil/deeper/x.md", "# x\n")
    assert list(outside.iterdir()) == []


def test_the_daily_note_is_not_written_through_a_symlinked_memory_folder(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    outside = _outside_link(root, tmp_path, "memory")
    with pytest.raises(errors.PathNotAllowed, match=r"memory is a symlink to .* outside the workspace"):
        notes.open_daily_note(root, dt.date(2027, 1, 2))
    (outside / "2027-01-03.md").write_text("# outside\n", encoding="utf-8")
    with pytest.raises(errors.PathNotAllowed):  # an existing one out there is not "today's" either
        notes.open_daily_note(root, dt.date(2027, 1, 3))
    assert sorted(p.name for p in outside.iterdir()) == ["2027-01-03.md"]


def test_a_symlink_inside_the_workspace_is_not_written_through_either(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "memory" / "real").mkdir(parents=True)
    (root / "memory" / "alias").symlink_to(root / "memory" / "real", target_is_directory=True)
    notes.create_note(root, "memory/alias/ok.md", "inside, through a link inside")
    assert (root / "memory" / "real" / "ok.md").exists()
    (root / "memory" / "note.md").symlink_to(root / "MEMORY.md")
    with pytest.raises(errors.PathNotAllowed, match=r"memory/note\.md is a symlink"):
        workspace.confined(root, "memory/note.md")


def test_rename_does_not_move_a_note_out_through_a_symlink(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    notes.create_note(root, "memory/a.md", "A")
    outside = _outside_link(root, tmp_path, "memory/out")
    with pytest.raises(errors.PathNotAllowed, match="memory/out is a symlink"):
        notes.rename_note(root, "memory/a.md", "memory/out/a.md")
    assert (root / "memory" / "a.md").read_text(encoding="utf-8") == "A" and list(outside.iterdir()) == []


def test_restore_does_not_follow_a_folder_that_became_a_symlink(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    notes.create_note(root, "memory/topics/t.md", "keep me")
    record = notes.delete_note(root, "memory/topics/t.md")
    (root / "memory" / "topics").rmdir()
    outside = _outside_link(root, tmp_path, "memory/topics")
    with pytest.raises(errors.PathNotAllowed, match="memory/topics is a symlink"):
        trash.restore(record)
    assert list(outside.iterdir()) == []
    (root / "memory" / "topics").unlink()
    trash.restore(record)  # once the folder is a folder again, Undo works
    assert (root / "memory" / "topics" / "t.md").read_text(encoding="utf-8") == "keep me"


def test_saving_does_not_follow_a_folder_that_became_a_symlink(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    path = notes.create_note(root, "memory/topics/t.md", "v1\n")
    digest = workspace.sha256(path.read_bytes())
    moved = tmp_path / "moved"
    (root / "memory" / "topics").rename(moved)
    (root / "memory" / "topics").symlink_to(moved, target_is_directory=True)
    with pytest.raises(
        errors.PathNotAllowed, match=r"memory/topics is a symlink to .* outside the workspace"
    ):
        workspace.save_note(path, b"v2\n", expected=digest, base=b"v1\n", root=root)
    assert (moved / "t.md").read_bytes() == b"v1\n"


def test_the_golden_set_is_not_written_through_a_symlinked_memdesk_folder(tmp_path: Path) -> None:
    from memdesk.core.eval import golden

    root = tmp_path / "ws"
    root.mkdir()
    outside = _outside_link(root, tmp_path, ".memdesk")
    labels = golden.GoldenSet(root / golden.GOLDEN_REL, root)
    labels.load()
    with pytest.raises(errors.PathNotAllowed, match=r"\.memdesk is a symlink"):
        labels.set_relevant("q", golden.Relevant("MEMORY.md", None, None), True)
    assert list(outside.iterdir()) == [] and labels.queries == []


# -- a new note follows the workspace's naming and permissions ---------------------------
def test_a_new_note_is_named_like_its_neighbours(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "memory" / "projects").mkdir(parents=True)
    (root / "memory" / "projects" / "atlas-launch.md").write_text("a", encoding="utf-8")
    (root / "memory" / "2026-01-02.md").write_text("d", encoding="utf-8")
    assert (
        notes.new_note_path(root, "memory/projects", "Q1 budget ideas")
        == "memory/projects/q1-budget-ideas.md"
    )
    assert notes.new_note_path(root, "memory/projects", "Q3: budget") == "memory/projects/q3-budget.md"
    # A folder of dated notes only says nothing: the workspace's other notes do.
    assert notes.new_note_path(root, "memory", "Q1 budget ideas") == "memory/q1-budget-ideas.md"
    (root / "memory" / "Meeting Notes.md").write_text("m", encoding="utf-8")
    assert notes.new_note_path(root, "memory", "Q1 budget ideas") == "memory/Q1 budget ideas.md"
    (root / "memory" / "snake").mkdir()
    (root / "memory" / "snake" / "Old_Plans.md").write_text("s", encoding="utf-8")
    assert notes.new_note_path(root, "memory/snake", "Q1 budget ideas") == "memory/snake/Q1_budget_ideas.md"
    assert notes.new_note_path(root, "memory/projects", "鉴权 方案") == "memory/projects/鉴权-方案.md"
    assert notes.heading(" Q1  budget\nideas ") == "Q1 budget ideas"


def test_a_new_note_gets_its_neighbours_permissions(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "memory").chmod(0o755)
    neighbour = root / "memory" / "atlas.md"
    neighbour.write_text("a", encoding="utf-8")
    neighbour.chmod(0o644)
    old = os.umask(0o077)
    try:
        path = notes.create_note(root, "memory/atlas-2.md", "# Atlas 2\n")
        deep = notes.create_note(root, "memory/topics/sub/x.md", "# x\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert stat.S_IMODE((root / "memory" / "topics").stat().st_mode) == 0o755
    assert stat.S_IMODE((root / "memory" / "topics" / "sub").stat().st_mode) == 0o755
    (root / "MEMORY.md").write_text("m", encoding="utf-8")
    (root / "MEMORY.md").chmod(0o640)
    assert stat.S_IMODE(deep.stat().st_mode) == 0o600  # no neighbour, no root file: the umask's
    lone = notes.create_note(root, "memory/empty/y.md", "# y\n")
    assert stat.S_IMODE(lone.stat().st_mode) == 0o640  # no neighbour: MEMORY.md's bits
