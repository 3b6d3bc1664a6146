"""A save costs what changed: one path is looked up with discovery's own rule, not by
listing the workspace, and that rule agrees with the listing on every path."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memdesk.core import engine, errors
from memdesk.core.index import workspace
from memdesk.core.search.settings import SearchSettings


def _touch(path: Path, text: str = "# note\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _hostile_workspace(root: Path, outside: Path) -> list[str]:
    """Every kind of path discovery lists or passes over; returns the extra paths."""
    _touch(root / "MEMORY.md")
    os.symlink(root / "MEMORY.md", root / "memory.md")  # a root note as a symlink: skipped
    _touch(root / "memory" / "2026-01-01.md")
    _touch(root / "memory" / "sub" / "deep" / "x.md")
    _touch(root / "memory" / "notes.txt")
    _touch(root / "memory" / "UPPER.MD")
    _touch(root / "memory" / ".git" / "x.md")
    _touch(root / "memory" / "a" / "node_modules" / "y.md")
    _touch(root / "memory" / "a" / "kept.md")
    (root / "memory" / "folder.md").mkdir()
    _touch(root / "memory" / "folder.md" / "inner.md")
    os.mkfifo(root / "memory" / "fifo.md")
    _touch(outside / "secret.md")
    _touch(outside / "dir" / "s.md")
    os.symlink(outside / "secret.md", root / "memory" / "link-out.md")
    os.symlink(outside / "dir", root / "memory" / "dir-out")
    os.symlink(root / "memory", root / "memory" / "sub" / "loop")
    bad = os.fsdecode(b"bad-\xff.md")
    _touch(root / "memory" / bad)
    _touch(root / "extra" / "e.md")
    _touch(root / "extra" / "node_modules" / "z.md")
    _touch(outside / "far" / "f.md")
    # Reached twice: memory/sub again as an extra path (the first listing wins), and
    # a folder outside the workspace.
    return ["extra", "memory/sub", str(outside / "far"), str(root / "extra" / "e.md"), "missing"]


def _every_path(*tops: Path) -> Iterator[Path]:
    """Every path under ``tops``, through symlinks too (once), and some that do not exist."""
    seen: set[str] = set()
    for top in tops:
        for folder, dirs, files in os.walk(top, followlinks=True):
            if os.path.realpath(folder) in seen and os.path.islink(folder):
                dirs.clear()
                continue
            seen.add(os.path.realpath(folder))
            for name in [*dirs, *files, "absent.md"]:
                yield Path(folder) / name


def test_note_at_says_of_every_path_what_the_listing_says(tmp_path: Path) -> None:
    """The one rule, applied down one path, names the note the listing names (symlinks
    in or out, ignored folders, non-regular files, undecodable names, a folder named
    like a note, notes reached twice) and nothing else."""
    root, outside = tmp_path / "ws", tmp_path / "outside"
    extra = _hostile_workspace(root, outside)
    listed = workspace.list_memory_files(root, extra)
    assert {workspace.rel_path(root, p) for p in listed} == {
        "MEMORY.md",
        "memory/2026-01-01.md",
        "memory/a/kept.md",
        "memory/folder.md/inner.md",
        "memory/sub/deep/x.md",
        "extra/e.md",
        "../outside/far/f.md",
    }
    checked = 0
    for path in _every_path(root, outside):
        for asked in (path, workspace.rel_path(root, path)):
            expected = path if path in listed else None
            assert workspace.note_at(root, asked, extra) == expected, asked
        checked += 1
    assert checked > 40


def _counting(monkeypatch: pytest.MonkeyPatch, under: Path) -> dict[str, list[str]]:
    """Calls of os.stat / os.lstat / os.scandir on paths under ``under``, by name."""
    calls: dict[str, list[str]] = {"stat": [], "lstat": [], "scandir": []}
    prefix = str(under) + os.sep
    for name in calls:
        real = getattr(os, name)

        def counted(path: object = ".", *args: object, _real=real, _name=name, **kwargs: object) -> object:
            text = os.fsdecode(path) if isinstance(path, str | bytes | os.PathLike) else ""
            if text.startswith(prefix):
                calls[_name].append(text)
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(os, name, counted)
    return calls


# What looking up one note under memory/ may touch besides it: the root's two notes and
# the memory folder (discovery's sources), never another note.
_FOLDERS_ON_THE_WAY = {"MEMORY.md", "memory.md", "memory"}


def _no_listing(*args: object, **kwargs: object) -> workspace.Scan:
    raise AssertionError("the workspace was listed")


def _notes(root: Path, count: int) -> list[Path]:
    return [
        _touch(
            root / "memory" / f"2020-{1 + i // 28:02}-{1 + i % 28:02}.md",
            f"# day {i}\n\nwent to market {i}\n",
        )
        for i in range(count)
    ]


def test_a_sync_of_one_changed_note_looks_at_no_other_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sync after a save (or the watcher's event) used to list the workspace and
    stat every note to find the one named: 20,000 notes, 250 ms of CPU a save."""
    root = tmp_path / "ws"
    notes = _notes(root, 300)
    eng = engine.Engine(root, embedder=None, db_path=tmp_path / "index.sqlite", history=False)
    try:
        eng.sync()
        changed = notes[123]
        changed.write_text(changed.read_text(encoding="utf-8") + "bought figs\n", encoding="utf-8")
        rel = workspace.rel_path(root, changed)
        calls = _counting(monkeypatch, root)
        monkeypatch.setattr(workspace, "scan_memory_files", _no_listing)
        report = eng.sync(paths=[rel])
        monkeypatch.undo()
        assert report.indexed_paths == (rel,)
        assert calls["scandir"] == []
        looked_at = {os.path.basename(p) for p in calls["stat"] + calls["lstat"]}
        assert looked_at <= {changed.name, *_FOLDERS_ON_THE_WAY}, sorted(looked_at)
        assert [h.path for h in eng.search("figs", SearchSettings()).hits] == [rel]
    finally:
        eng.close()


def test_a_sync_of_named_paths_indexes_adds_and_removes_as_a_full_sync_would(tmp_path: Path) -> None:
    """Named paths: a new note, a deleted one, one turned into a symlink out of the
    workspace, one in an ignored folder; the index ends as a full sync leaves it."""
    root, outside = tmp_path / "ws", tmp_path / "outside"
    notes = _notes(root, 5)
    eng = engine.Engine(root, embedder=None, db_path=tmp_path / "index.sqlite", history=False)
    try:
        eng.sync()
        _touch(root / "memory" / "new.md", "# new\n")
        notes[0].unlink()
        notes[1].unlink()
        _touch(outside / "away.md", "# away\n")
        os.symlink(outside / "away.md", notes[1])
        _touch(root / "memory" / "node_modules" / "pkg.md", "# pkg\n")
        named = [workspace.rel_path(root, p) for p in notes[:2]] + [
            "memory/new.md",
            "memory/node_modules/pkg.md",
        ]
        report = eng.sync(paths=named)
        assert set(report.removed_paths) == {workspace.rel_path(root, p) for p in notes[:2]}
        assert report.indexed_paths == ("memory/new.md",)
        partial = eng.file_states()
        full = engine.Engine(root, embedder=None, db_path=tmp_path / "full.sqlite", history=False)
        try:
            full.sync()
            assert partial == full.file_states()
        finally:
            full.close()
    finally:
        eng.close()


def test_resolving_a_note_lists_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening a note checked its path against a listing of the whole workspace."""
    root = tmp_path / "ws"
    notes = _notes(root, 200)
    calls = _counting(monkeypatch, root)
    monkeypatch.setattr(workspace, "scan_memory_files", _no_listing)
    assert workspace.resolve_note(root, "memory/../" + workspace.rel_path(root, notes[7])) == notes[7]
    monkeypatch.undo()
    assert calls["scandir"] == []
    looked_at = {os.path.basename(p) for p in calls["stat"] + calls["lstat"]}
    assert looked_at <= {notes[7].name, *_FOLDERS_ON_THE_WAY}, sorted(looked_at)


def _answers(eng: engine.Engine) -> tuple[object, ...]:
    status = eng.status()
    return (
        sorted(eng.listed_rels()),
        eng.file_states(),
        status.dirty_files,
        status.files,
        [f.path for f in status.skipped],
        eng.default_clock(),
    )


def test_a_watched_engine_reads_status_states_and_clock_after_a_save_without_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a watcher names every change, the read after each save (the tree's states,
    the status line, the clock) keeps the listing instead of listing and stat'ing every
    note, and answers as an engine that lists: new, deleted and newest-dated notes."""
    root = tmp_path / "ws"
    notes = _notes(root, 300)  # 2020-01-01 … 2020-11-20
    eng = engine.Engine(root, embedder=None, db_path=tmp_path / "index.sqlite", history=False)
    eng.watched = True
    try:
        eng.sync()
        _answers(eng)  # the first read after the full sync lists once
        steps: list[tuple[list[str], Callable[[], None]]] = [
            (["memory/2020-11-30.md"], lambda: _touch(root / "memory" / "2020-11-30.md", "# later\n")),
            (
                [workspace.rel_path(root, notes[4])],
                lambda: notes[4].write_text("# edited\n", encoding="utf-8"),
            ),
            (["memory/2020-11-30.md"], lambda: (root / "memory" / "2020-11-30.md").unlink()),
            ([workspace.rel_path(root, notes[-1])], lambda: notes[-1].unlink()),  # the newest dated note
            (["memory/node_modules/x.md"], lambda: _touch(root / "memory" / "node_modules" / "x.md")),
        ]
        for named, change in steps:
            change()
            eng.sync(paths=named)
            calls = _counting(monkeypatch, root)
            monkeypatch.setattr(workspace, "scan_memory_files", _no_listing)
            kept = _answers(eng)
            monkeypatch.undo()
            assert calls["scandir"] == [] and calls["stat"] == [], named
            listing = engine.Engine(root, embedder=None, db_path=tmp_path / "index.sqlite", history=False)
            try:
                assert kept == _answers(listing), named
            finally:
                listing.close()
        assert kept[-1] == dt.date(2020, 11, 19)  # type: ignore[index]
    finally:
        eng.close()


def test_an_unwatched_engine_still_sees_a_change_nobody_named(tmp_path: Path) -> None:
    """Without a watcher (the CLI, MCP) the status stats every note as before: a change
    made behind the engine's back is not indexed yet, and says so."""
    root = tmp_path / "ws"
    notes = _notes(root, 5)
    eng = engine.Engine(root, embedder=None, db_path=tmp_path / "index.sqlite", history=False)
    try:
        eng.sync()
        eng.status()
        notes[2].write_text("# changed behind its back\n", encoding="utf-8")
        rel = workspace.rel_path(root, notes[2])
        assert eng.status().dirty_files == (rel,)
        assert eng.file_states()[rel][0] == "pending"
    finally:
        eng.close()


def test_after_a_stopped_sync_a_watched_engine_stats_every_note_again(tmp_path: Path) -> None:
    """A sync cancelled before it read the saved note leaves the index behind the kept
    listing: until a full sync completes, the status finds that by stat'ing, as before."""
    root = tmp_path / "ws"
    notes = _notes(root, 5)
    eng = engine.Engine(root, embedder=None, db_path=tmp_path / "index.sqlite", history=False)
    eng.watched = True
    try:
        eng.sync()
        assert eng.status().dirty_files == ()
        notes[1].write_text("# saved, never indexed\n", encoding="utf-8")
        rel = workspace.rel_path(root, notes[1])
        with pytest.raises(errors.Cancelled):
            eng.sync(paths=[rel], cancelled=lambda: True)
        assert eng.status().dirty_files == (rel,)
        assert eng.file_states()[rel][0] == "pending"
        eng.sync()
        assert eng.status().dirty_files == () and eng.file_states()[rel][0] == "indexed"
    finally:
        eng.close()
