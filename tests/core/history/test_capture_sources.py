"""Capture from every source: the index's sync (disk, deleted, baseline), memdesk's own
writes (save, create, rename, trash, restore), ``memory_append`` (mcp); a failing
capture stops neither a sync nor a save."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memdesk.core import engine as engine_mod
from memdesk.core.history import History, shared
from memdesk.core.index import captures, notes, trash, workspace


def _write(root: Path, rel: str, data: bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    _write(ws, "MEMORY.md", b"# Memory\n\n- Ferry owner: Ana\n")
    _write(ws, "memory/2026-11-10.md", b"# Nov 10\r\n\r\nwindows line endings\r\n")
    return ws


@pytest.fixture
def engine(root: Path) -> Iterator[engine_mod.Engine]:
    eng = engine_mod.Engine(root, embedder=None)
    yield eng
    eng.close()


def _history(root: Path) -> History:
    found = shared.for_workspace(root)
    assert found is not None
    return found


def _sources(root: Path, note: str) -> list[str]:
    return [v.source for v in _history(root).timeline(note, git=False)]


def _bump_mtime(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def test_first_sync_keeps_every_note_as_its_baseline(root: Path, engine: engine_mod.Engine) -> None:
    engine.sync()
    history = _history(root)
    assert set(history.notes()) == {"MEMORY.md", "memory/2026-11-10.md"}
    (first,) = history.timeline("memory/2026-11-10.md", git=False)
    assert first.source == "baseline"
    assert history.content(first) == b"# Nov 10\r\n\r\nwindows line endings\r\n"
    engine.sync()  # nothing changed: nothing recorded
    assert _sources(root, "MEMORY.md") == ["baseline"]


def test_baseline_of_a_workspace_indexed_before_history_existed(root: Path) -> None:
    """An index from before the history: its in-place sync reads no file, the baseline does."""
    plain = engine_mod.Engine(root, embedder=None, history=False)
    plain.sync()
    plain.close()
    assert _history(root).needs_baseline()
    eng = engine_mod.Engine(root, embedder=None)
    try:
        eng.sync()
    finally:
        eng.close()
    assert _sources(root, "MEMORY.md") == ["baseline"]


def test_a_change_on_disk_and_a_deletion_are_versions(root: Path, engine: engine_mod.Engine) -> None:
    engine.sync()
    path = _write(root, "MEMORY.md", b"# Memory\n\n- Ferry owner: Bruno\n")
    _bump_mtime(path)
    report = engine.sync(paths=["MEMORY.md"])
    assert report.indexed_paths == ("MEMORY.md",)
    assert _sources(root, "MEMORY.md") == ["disk", "baseline"]
    latest = _history(root).timeline("MEMORY.md", git=False)[0]
    assert _history(root).content(latest) == b"# Memory\n\n- Ferry owner: Bruno\n"
    (root / "memory/2026-11-10.md").unlink()
    engine.sync()
    assert _sources(root, "memory/2026-11-10.md") == ["deleted", "baseline"]
    assert "memory/2026-11-10.md" not in _history(root).at(latest.at.replace(year=2100))


def test_binary_and_huge_files_get_an_entry_without_content(
    root: Path, engine: engine_mod.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.sync()
    monkeypatch.setattr(workspace, "MAX_NOTE_BYTES", 4096)
    _write(root, "memory/blob.md", b"\x00\x01binary" * 10)
    _write(root, "memory/huge.md", b"x" * 5000)
    engine.sync()
    history = _history(root)
    (binary,) = history.timeline("memory/blob.md", git=False)
    assert binary.digest is None and binary.size == 80 and "binary" in str(binary.reason)
    (huge,) = history.timeline("memory/huge.md", git=False)
    assert huge.digest is None and huge.size == 5000 and "limit" in str(huge.reason)
    assert history.content(huge) is None


def test_a_memdesk_save_is_one_version_not_also_a_disk_one(root: Path, engine: engine_mod.Engine) -> None:
    engine.sync()
    path = root / "MEMORY.md"
    before = path.read_bytes()
    workspace.save_note(
        path, before + b"- saved in the editor\n", expected=workspace.sha256(before), base=before, root=root
    )
    assert _sources(root, "MEMORY.md") == ["memdesk", "baseline"]
    engine.sync()  # the sync reads the file memdesk wrote: the same digest
    assert _sources(root, "MEMORY.md") == ["memdesk", "baseline"]


def test_create_rename_trash_and_restore_are_memdesk_versions(
    root: Path, engine: engine_mod.Engine, trash_home: Path
) -> None:
    engine.sync()
    notes.create_note(root, "memory/ideas.md", "# Ideas\n")
    assert _sources(root, "memory/ideas.md") == ["memdesk"]
    notes.rename_note(root, "memory/ideas.md", "memory/plans.md")
    assert _sources(root, "memory/ideas.md") == ["deleted", "memdesk"]
    assert _sources(root, "memory/plans.md") == ["memdesk"]
    item = notes.delete_note(root, "memory/plans.md")
    assert _sources(root, "memory/plans.md") == ["deleted", "memdesk"]
    trash.restore(item)
    history = _history(root)
    back = history.timeline("memory/plans.md", git=False)[0]
    assert back.source == "memdesk" and history.content(back) == b"# Ideas\n"
    engine.sync()
    assert _sources(root, "memory/plans.md") == ["memdesk", "deleted", "memdesk"]


def test_memory_append_is_an_mcp_version(root: Path) -> None:
    from memdesk.mcp.tools import MemoryTools

    tools = MemoryTools(root, model="none", allow_write=True, sync_on_start=False)
    try:
        tools.memory_append("- appended by an agent", path="memory/agent.md")
        assert tools.wait_for_sync(60)
    finally:
        tools.close()
    history = _history(root)
    timeline = history.timeline("memory/agent.md", git=False)
    assert [v.source for v in timeline] == ["mcp", "mcp"]  # created empty, then appended
    assert history.content(timeline[0]) == b"- appended by an agent\n"


def test_a_failing_capture_stops_neither_the_sync_nor_the_save(
    root: Path, engine: engine_mod.Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(self: History, *args: object, **kwargs: object) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(History, "capture", broken)
    report = engine.sync()
    assert report.files == 2 and not report.failures
    path = root / "MEMORY.md"
    before = path.read_bytes()
    saved = workspace.save_note(path, b"new\n", expected=workspace.sha256(before), base=before, root=root)
    assert saved.data == b"new\n" and path.read_bytes() == b"new\n"
    assert "could not keep" in caplog.text


def _sync_before_the_writer_captures(
    monkeypatch: pytest.MonkeyPatch, engine: engine_mod.Engine, path: Path
) -> list[bytes]:
    """Run a whole sync between memdesk's write of a note and its capture of it (the
    watcher's sync winning that race), deterministically: the sync runs inside the
    writer's call to ``captures.saved``. Returns what the sync read."""
    original = captures.saved
    read: list[bytes] = []

    def sync_first(root: Path | None, written: Path, data: bytes, *, source: str = "memdesk") -> None:
        _bump_mtime(path)  # the index must see the file as changed, whatever the clock's grain
        read.append(path.read_bytes())
        engine.sync()
        original(root, written, data, source=source)

    monkeypatch.setattr(captures, "saved", sync_first)
    return read


def test_a_sync_reading_memdesks_save_before_its_capture_records_it_as_memdesks(
    root: Path, engine: engine_mod.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.sync()
    path = root / "MEMORY.md"
    before = path.read_bytes()
    after = before + b"- saved in the editor\n"
    read = _sync_before_the_writer_captures(monkeypatch, engine, path)
    workspace.save_note(path, after, expected=workspace.sha256(before), base=before, root=root)
    assert read == [after]  # the sync did read memdesk's bytes before memdesk captured them
    assert _sources(root, "MEMORY.md") == ["memdesk", "baseline"]
    # The announcement is used up: the agent writing those bytes again later is the disk's.
    path.write_bytes(before)
    engine.sync()
    path.write_bytes(after)
    _bump_mtime(path)
    engine.sync()
    assert _sources(root, "MEMORY.md") == ["disk", "disk", "memdesk", "baseline"]


def test_a_created_note_read_by_a_sync_first_is_memdesks_too(
    root: Path, engine: engine_mod.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.sync()
    _sync_before_the_writer_captures(monkeypatch, engine, root / "memory" / "ideas.md")
    notes.create_note(root, "memory/ideas.md", "# Ideas\n")
    assert _sources(root, "memory/ideas.md") == ["memdesk"]


def test_a_failed_save_leaves_no_announcement_behind(
    root: Path, engine: engine_mod.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.sync()
    path = root / "MEMORY.md"
    before = path.read_bytes()

    def disk_full(*args: object, **kwargs: object) -> Path:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch, pytest.raises(OSError):
        patch.setattr(workspace.diskio, "write_temp", disk_full)
        workspace.save_note(path, b"mine\n", expected=workspace.sha256(before), base=before, root=root)
    path.write_bytes(b"mine\n")  # then the agent happens to write those very bytes
    _bump_mtime(path)
    engine.sync()
    assert _sources(root, "MEMORY.md") == ["disk", "baseline"]
