"""Trash and restore: Undo brings back the very file from the system trash."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memdesk.core import errors
from memdesk.core.index import trash


@pytest.fixture
def trash_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A freedesktop trash of this test's own (send2trash reads XDG_DATA_HOME at import)."""
    from send2trash import plat_other

    home = tmp_path / "xdg"
    home.mkdir()
    monkeypatch.setattr(plat_other, "XDG_DATA_HOME", os.fsencode(home))
    monkeypatch.setattr(plat_other, "HOMETRASH_B", os.fsencode(home / "Trash"))
    monkeypatch.setattr(plat_other, "HOMETRASH", str(home / "Trash"))
    return home


def _note(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def test_restore_moves_the_trashed_file_back_and_clears_its_record(tmp_path: Path, trash_home: Path) -> None:
    path = _note(tmp_path / "ws", "memory/2026-05-04.md", "# May 4\n\nagent line\r\n")
    item = trash.move_to_trash(path)
    assert not path.exists()
    [in_trash] = list((trash_home / "Trash" / "files").iterdir())
    inode = in_trash.stat().st_ino
    trash.restore(item)
    assert path.read_bytes() == b"# May 4\n\nagent line\r\n"
    assert path.stat().st_ino == inode  # moved back, not rewritten
    assert list((trash_home / "Trash" / "files").iterdir()) == []
    assert list((trash_home / "Trash" / "info").iterdir()) == []


def test_restore_picks_the_right_one_of_two_trashed_notes_of_one_name(
    tmp_path: Path, trash_home: Path
) -> None:
    """Two notes called 2026-05-04.md (different folders, then the same path twice): each
    Undo brings back its own file, by path and content."""
    first = _note(tmp_path / "ws", "memory/a/2026-05-04.md", "first\n")
    other = _note(tmp_path / "ws", "memory/b/2026-05-04.md", "other folder\n")
    item_first = trash.move_to_trash(first)
    item_other = trash.move_to_trash(other)
    again = _note(tmp_path / "ws", "memory/a/2026-05-04.md", "second at the same path\n")
    item_again = trash.move_to_trash(again)
    trash.restore(item_other)
    assert other.read_text() == "other folder\n" and not first.exists()
    trash.restore(item_first)
    assert first.read_text() == "first\n"
    first.unlink()  # gone for good (not via the trash): the later copy can come back
    trash.restore(item_again)
    assert first.read_text() == "second at the same path\n"


def test_restore_never_overwrites_and_says_why(tmp_path: Path, trash_home: Path) -> None:
    path = _note(tmp_path / "ws", "MEMORY.md", "trashed\n")
    item = trash.move_to_trash(path)
    path.write_text("written since\n")
    with pytest.raises(errors.MemdeskError, match="exists again"):
        trash.restore(item)
    assert path.read_text() == "written since\n"
    assert len(list((trash_home / "Trash" / "files").iterdir())) == 1  # still in the trash


def test_emptied_or_changed_trash_is_a_one_line_error(tmp_path: Path, trash_home: Path) -> None:
    path = _note(tmp_path / "ws", "memory/x.md", "x\n")
    item = trash.move_to_trash(path)
    [in_trash] = list((trash_home / "Trash" / "files").iterdir())
    in_trash.write_text("changed in the trash\n")
    with pytest.raises(errors.MemdeskError, match="no longer in the trash"):
        trash.restore(item)
    in_trash.unlink()
    with pytest.raises(errors.MemdeskError, match="no longer in the trash"):
        trash.restore(item)
    assert not path.exists()
