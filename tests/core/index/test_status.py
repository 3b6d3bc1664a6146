"""A status read: counts, dirty files, skipped paths and per-file states."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memdesk.core import engine
from memdesk.core.index import workspace


def _note(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_a_status_read_lists_the_workspace_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app reads the status and every file's state after each sync: each read listed
    the workspace twice (its dirty files, then its skipped paths or states), at 20,000
    notes about a second of CPU per read before listings got cheaper."""
    ws = tmp_path / "ws"
    for day in range(1, 6):
        _note(ws / "memory" / f"2026-03-0{day}.md", f"# day {day}\n\nnote {day}\n")
    (ws / "elsewhere.md").write_text("# out\n", encoding="utf-8")
    os.symlink(ws / "elsewhere.md", ws / "memory" / "link.md")
    eng = engine.Engine(ws, embedder=None, db_path=tmp_path / "index.sqlite")
    try:
        eng.sync()
        _note(ws / "memory" / "2026-03-02.md", "# day 2\n\nchanged since\n")
        scans: list[Path] = []
        real = workspace.scan_memory_files

        def counting(root: Path, extra_paths: object = ()) -> workspace.Scan:
            scans.append(root)
            return real(root, extra_paths)  # type: ignore[arg-type]

        monkeypatch.setattr(workspace, "scan_memory_files", counting)
        status = eng.status()
        assert len(scans) == 1
        assert status.dirty_files == ("memory/2026-03-02.md",)
        assert [s.path for s in status.skipped] == ["memory/link.md"]
        scans.clear()
        states = eng.file_states()
        assert len(scans) == 1
        assert states["memory/2026-03-02.md"][0] == "pending"
        assert states["memory/2026-03-01.md"] == ("indexed", "")
        assert len(states) == 5
    finally:
        eng.close()
