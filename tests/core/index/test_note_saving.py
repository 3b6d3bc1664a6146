"""Saving a note: exact bytes for untouched lines, three-way merge, compare-and-swap."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from memdesk.core import errors
from memdesk.core.index import notetext, workspace

_SEPARATORS = st.sampled_from(["\n", "\r\n", "\r", "\u2028", "\u2029"])
_CONTENT = st.text(alphabet=st.sampled_from(["a", "b", " ", "\u00a0", "é", "🎉", "\t", "\ufeff"]), max_size=6)


@hyp_settings(deadline=None)  # timing varies on a shared machine
@given(
    lines=st.lists(st.tuples(_CONTENT, _SEPARATORS), min_size=1, max_size=8),
    last=_CONTENT,
    bom=st.booleans(),
)
def test_note_text_round_trips_every_byte(lines: list[tuple[str, str]], last: str, bom: bool) -> None:
    text = ("\ufeff" if bom else "") + "".join(c + s for c, s in lines) + last
    note = notetext.NoteText.parse(text)
    assert note.text() == text
    assert note.rebuild(note.editable) == text
    assert "\r" not in note.editable and "\u2028" not in note.editable


@hyp_settings(deadline=None)  # timing varies on a shared machine
@given(
    lines=st.lists(st.tuples(_CONTENT, _SEPARATORS), min_size=2, max_size=8),
    data=st.data(),
)
def test_rebuild_changes_only_the_edited_line(lines: list[tuple[str, str]], data: st.DataObject) -> None:
    assume(not lines[0][0].startswith("\ufeff"))  # that would be the note's BOM, kept apart
    k = data.draw(st.integers(min_value=0, max_value=len(lines) - 1))
    text = "".join(c + s for c, s in lines)
    # A CR ending an empty line before an LF reads as one CRLF: not the lines generated.
    assume(len(notetext.NoteText.parse(text).lines) == len(lines) + 1)
    edited = notetext.NoteText.parse(text).editable.split("\n")
    edited[k] = "EDITED"
    expected = "".join(("EDITED" if i == k else c) + s for i, (c, s) in enumerate(lines))
    assert notetext.NoteText.parse(text).rebuild("\n".join(edited)) == expected


_LINES = st.lists(st.sampled_from(["alpha\n", "beta\n", "gamma\n", "\n", "delta\n"]), max_size=8)


@hyp_settings(deadline=None)  # timing varies on a shared machine
@given(base=_LINES, mine=_LINES)
def test_merge_with_one_side_unchanged_takes_the_other(base: list[str], mine: list[str]) -> None:
    b, m = "".join(base), "".join(mine)
    assert notetext.merge3(b, m, b) == notetext.MergeResult(m, 0)
    assert notetext.merge3(b, b, m) == notetext.MergeResult(m, 0)


def test_merge_keeps_both_sides_and_marks_overlaps() -> None:
    base = "".join(f"line {i}\n" for i in range(10))
    mine = base.replace("line 2\n", "line 2 edited by the user\n")
    theirs = base + "agent line\n"
    assert notetext.merge3(base, mine, theirs) == notetext.MergeResult(mine + "agent line\n", 0)
    clash = notetext.merge3(base, base + "mine\n", base + "theirs\n")
    assert clash.conflicts == 1
    assert clash.text.endswith("<<<<<<< yours\nmine\n=======\ntheirs\n>>>>>>> on disk\n")


def _note(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "memory" / "2026-06-01.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


BASE = b"".join(b"line %d\n" % i for i in range(12))
MINE = BASE.replace(b"line 2\n", b"line 2 edited by the user\n")


def _write_during_save(monkeypatch: pytest.MonkeyPatch, path: Path, change: bytes) -> None:
    """Append ``change`` to the note while save_note syncs its temp file: after the
    conflict check, before the rename (the window that once lost agents' lines)."""
    real = os.fsync
    fired = []

    def fsync(fd: int) -> None:
        real(fd)
        if not fired:
            fired.append(True)
            with open(path, "ab") as handle:
                handle.write(change)

    monkeypatch.setattr(workspace.os, "fsync", fsync)


def test_write_between_check_and_rename_is_merged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _note(tmp_path, BASE)
    _write_during_save(monkeypatch, path, b"agent line\n")
    saved = workspace.save_note(path, MINE, expected=workspace.sha256(BASE), base=BASE)
    assert saved.merged and path.read_bytes() == MINE + b"agent line\n" == saved.data


def test_overlapping_write_between_check_and_rename_is_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _note(tmp_path, BASE)
    mine = BASE + b"user line\n"
    _write_during_save(monkeypatch, path, b"agent line\n")
    with pytest.raises(errors.NoteChanged) as caught:
        workspace.save_note(path, mine, expected=workspace.sha256(BASE), base=BASE)
    assert path.read_bytes() == BASE + b"agent line\n"  # theirs is back in place
    assert caught.value.disk.data == BASE + b"agent line\n"  # type: ignore[attr-defined]
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize(
    "change",
    [
        b"caf\xe9 in latin-1\n",
        b"text with a NUL \x00 byte\n",
        "UTF-16 now\n".encode("utf-16"),
        b"x" * (workspace.MAX_NOTE_BYTES + 1),
    ],
    ids=["latin-1", "nul", "utf-16", "11MB"],
)
def test_undecodable_or_huge_change_is_never_overwritten(tmp_path: Path, change: bytes) -> None:
    path = _note(tmp_path, BASE)
    path.write_bytes(change)
    with pytest.raises(errors.NoteChanged):
        workspace.save_note(path, MINE, expected=workspace.sha256(BASE), base=BASE)
    assert path.read_bytes() == change


def test_read_only_note_needs_a_yes(tmp_path: Path) -> None:
    path = _note(tmp_path, BASE)
    path.chmod(0o444)
    with pytest.raises(errors.NoteReadOnly, match="read-only"):
        workspace.save_note(path, MINE, expected=workspace.sha256(BASE), base=BASE)
    assert path.read_bytes() == BASE
    workspace.save_note(path, MINE, expected=workspace.sha256(BASE), base=BASE, overwrite_readonly=True)
    assert path.read_bytes() == MINE and path.stat().st_mode & 0o777 == 0o444


def test_fifo_in_place_of_a_note_is_reported_not_read(tmp_path: Path) -> None:
    path = _note(tmp_path, BASE)
    path.unlink()
    os.mkfifo(path)
    state = workspace.disk_state(path)  # returns at once: O_NONBLOCK
    assert state.exists and state.data is None and "FIFO" in (state.problem or "")
    with pytest.raises(errors.NoteChanged):
        workspace.save_note(path, MINE, expected=workspace.sha256(BASE), base=BASE)


def test_new_note_never_clobbers_one_created_meanwhile(tmp_path: Path) -> None:
    path = _note(tmp_path, b"the agent created it first\n")
    with pytest.raises(errors.NoteChanged):
        workspace.save_note(path, b"mine\n", expected=None, base=None)
    assert path.read_bytes() == b"the agent created it first\n"


def test_a_folder_swapped_for_a_symlink_out_during_a_save_is_not_written_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note's folder is renamed and a symlink to a folder outside put in its place
    after ``confined`` checked the names and before the write (an agent or an attacker
    winning the race: 32 of 2,000 saves did in reliability.py's loop). The write stays
    in the folder that was checked; the same-named file outside keeps its bytes."""
    root = tmp_path / "ws"
    folder = root / "memory" / "projects"
    folder.mkdir(parents=True)
    note = folder / "atlas.md"
    note.write_bytes(BASE)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "atlas.md").write_bytes(BASE)
    held = root / "memory" / ".projects-held"
    real_write_temp = workspace.diskio.write_temp

    def swap_then_write(path: Path, data: bytes, **kwargs: object) -> Path:
        if folder.is_dir() and not folder.is_symlink():
            folder.rename(held)
            folder.symlink_to(outside, target_is_directory=True)
        return real_write_temp(path, data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(workspace.diskio, "write_temp", swap_then_write)
    workspace.save_note(note, MINE, expected=workspace.sha256(BASE), base=BASE, root=root)
    assert sorted(p.name for p in outside.iterdir()) == ["atlas.md"]
    assert (outside / "atlas.md").read_bytes() == BASE
    assert (held / "atlas.md").read_bytes() == MINE  # written where it was checked, inside


def test_an_append_keeps_every_byte_and_follows_the_notes_line_endings(tmp_path: Path) -> None:
    path = _note(tmp_path, b"\xef\xbb\xbfline 1\r\nline 2")
    saved = workspace.append_note(path, b"added\n", root=tmp_path)
    assert path.read_bytes() == b"\xef\xbb\xbfline 1\r\nline 2\r\nadded\r\n" == saved.data
    assert not saved.merged


def test_an_append_refuses_a_read_only_note_and_a_symlink_out(tmp_path: Path) -> None:
    path = _note(tmp_path, BASE)
    path.chmod(0o444)
    with pytest.raises(errors.NoteReadOnly):
        workspace.append_note(path, b"added\n", root=tmp_path)
    assert path.read_bytes() == BASE
    outside = tmp_path.parent / f"{tmp_path.name}-outside.md"
    outside.write_bytes(BASE)
    link = tmp_path / "memory" / "link.md"
    link.symlink_to(outside)
    with pytest.raises((errors.PathNotAllowed, OSError)):
        workspace.append_note(link, b"added\n", root=tmp_path)
    assert outside.read_bytes() == BASE
