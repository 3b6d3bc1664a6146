"""The tree's "New topic note" names the file as the folder's notes are named and
keeps the typed title as the note's heading."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QInputDialog

from tests.ui.conftest import wait_idle


def test_new_topic_note_is_named_like_its_neighbours(
    qtbot, make_window, workspace: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    window = make_window(workspace, model=None)
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *_a, **_k: ("Q1 budget ideas", True)))
    window._on_tree_new_note("memory/projects")
    made = workspace / "memory" / "projects" / "q1-budget-ideas.md"
    assert made.read_text(encoding="utf-8") == "# Q1 budget ideas\n\n"
    assert made.stat().st_mode == (workspace / "memory" / "projects" / "atlas.md").stat().st_mode
    assert not (workspace / "memory" / "projects" / "Q1 budget ideas.md").exists()
    wait_idle(qtbot, window)
