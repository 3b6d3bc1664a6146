"""The watchdog bridge: real file events arrive on the GUI thread, debounced into one signal."""

from __future__ import annotations

from pathlib import Path

from memdesk.qt import watcher


def test_burst_of_changes_is_one_signal(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Several writes within the debounce window arrive as one sorted list of notes."""
    (tmp_path / "memory").mkdir()
    bridge = watcher.WatchBridge(tmp_path, debounce_ms=150)
    bridge.start()
    try:
        with qtbot.waitSignal(bridge.paths_changed, timeout=10_000) as blocker:
            (tmp_path / "memory" / "b.md").write_text("b", encoding="utf-8")
            (tmp_path / "MEMORY.md").write_text("m", encoding="utf-8")
            (tmp_path / "notes.txt").write_text("ignored", encoding="utf-8")
            (tmp_path / "memory" / ".b.md.x.tmp").write_text("temp", encoding="utf-8")
        assert blocker.args == [["MEMORY.md", "memory/b.md"]]
        with qtbot.waitSignal(bridge.paths_changed, timeout=10_000) as blocker:
            (tmp_path / "memory" / "b.md").unlink()
        assert blocker.args == [["memory/b.md"]]
    finally:
        bridge.stop()


def test_watched_paths() -> None:
    """Only memory notes count: root memory files and Markdown under memory/."""
    assert watcher.is_watched_rel("MEMORY.md")
    assert watcher.is_watched_rel("memory/2026/x.md")
    assert not watcher.is_watched_rel("README.md")
    assert not watcher.is_watched_rel("memory/.x.md.abc.tmp")
    assert watcher.is_watched_rel("memory/topics/")
    assert not watcher.is_watched_rel("other/")


def test_folder_delete_is_reported(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Deleting a folder of notes reports the folder, so the session rescans everything."""
    import shutil

    (tmp_path / "memory" / "topics").mkdir(parents=True)
    (tmp_path / "memory" / "topics" / "a.md").write_text("a", encoding="utf-8")
    bridge = watcher.WatchBridge(tmp_path, debounce_ms=150)
    bridge.start()
    try:
        with qtbot.waitSignal(
            bridge.paths_changed, timeout=10_000, check_params_cb=lambda p: "memory/topics/" in p
        ) as blocker:
            shutil.rmtree(tmp_path / "memory" / "topics")
        assert "memory/topics/a.md" in blocker.args[0]
    finally:
        bridge.stop()
