"""The one bounded read and the one atomic write every caller shares."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memdesk.core import diskio


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_kind_names_what_is_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (tmp_path / "note.md").write_text("x", encoding="utf-8")
    assert diskio.non_regular_kind(os.stat(fifo).st_mode) == "a FIFO"
    assert diskio.non_regular_kind(os.stat(tmp_path).st_mode) == "a folder"
    assert diskio.non_regular_kind(os.stat(tmp_path / "note.md").st_mode) is None


def test_bounded_read_stops_at_the_limit_by_size_and_by_count(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 100)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert diskio.read_bounded(fd, 100, ValueError) == b"x" * 100
        with pytest.raises(ValueError, match=r"^100$"):
            diskio.read_bounded(fd, 99, ValueError)  # known from its size, nothing read
    finally:
        os.close(fd)
    # A pipe has no size: what grows past the limit is counted while it is read.
    read_end, write_end = os.pipe()
    os.write(write_end, b"y" * 50)
    os.close(write_end)
    try:
        with pytest.raises(ValueError, match=r"^50$"):
            diskio.read_bounded(read_end, 49, ValueError)
    finally:
        os.close(read_end)


def test_write_keeps_the_files_mode_and_gives_a_new_one_owner_only(tmp_path: Path) -> None:
    old = tmp_path / "old.md"
    old.write_text("before", encoding="utf-8")
    old.chmod(0o640)
    diskio.write_atomic(old, b"after")
    assert old.read_bytes() == b"after" and _mode(old) == 0o640
    new = tmp_path / "deep" / "new.md"
    diskio.write_atomic(new, b"new")
    assert new.read_bytes() == b"new" and _mode(new) == 0o600
    forced = tmp_path / "stamp.json"
    forced.write_text("{}", encoding="utf-8")
    forced.chmod(0o644)
    diskio.write_atomic(forced, b"[]", mode=0o600, keep_mode=False)
    assert _mode(forced) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep", "old.md", "stamp.json"]  # no temp left


def test_write_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "config.json"
    real.parent.mkdir()
    real.write_text("{}", encoding="utf-8")
    link = tmp_path / "config.json"
    link.symlink_to(real)
    diskio.write_atomic(link, b'{"a": 1}', through_symlink=True)
    assert link.is_symlink() and real.read_bytes() == b'{"a": 1}'
    diskio.write_atomic(link, b"replaced")  # the default replaces the link itself
    assert not link.is_symlink() and link.read_bytes() == b"replaced" and real.read_bytes() == b'{"a": 1}'


def test_a_private_write_gives_the_mode_only_after_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "openclaw.json"
    path.write_text("{}", encoding="utf-8")
    path.chmod(0o644)
    seen: list[int] = []
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        seen.append(stat.S_IMODE(os.stat(src).st_mode))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    old_umask = os.umask(0)
    try:
        diskio.write_atomic(path, b"secret", private_until_renamed=True)
        diskio.write_atomic(path, b"public")
    finally:
        os.umask(old_umask)
    assert seen == [0o600, 0o644] and _mode(path) == 0o644


def test_stale_temps_are_removed_only_when_asked_and_only_memdesks(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    path.write_text("{}", encoding="utf-8")
    ours = tmp_path / ".openclaw.json.memdesk-0123456789abcdef.tmp"
    theirs = tmp_path / ".openclaw.json.backup.tmp"
    for leftover in (ours, theirs):
        leftover.write_text("left", encoding="utf-8")
    diskio.write_atomic(path, b"1")
    assert ours.exists()
    diskio.write_atomic(path, b"2", remove_stale=True)
    assert not ours.exists() and theirs.exists() and path.read_bytes() == b"2"
