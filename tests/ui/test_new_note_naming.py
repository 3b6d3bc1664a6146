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


def test_an_emoji_in_a_new_notes_title_stays_in_its_file_name(
    qtbot, make_window, workspace: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Emoji are valid in a file name (and listed and indexed like any note): kept, not
    silently dropped; nothing was replaced, so the status bar has nothing to explain."""
    window = make_window(workspace, model=None)
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *_a, **_k: ("🚀 Launch plan", True)))
    window._on_tree_new_note("memory/projects")
    made = workspace / "memory" / "projects" / "🚀-launch-plan.md"
    assert made.read_text(encoding="utf-8") == "# 🚀 Launch plan\n\n"
    assert "Named the file" not in window.statusBar().currentMessage()
    wait_idle(qtbot, window)


def test_a_slash_in_a_new_name_is_replaced_and_the_user_told(
    qtbot, make_window, workspace: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A "/" cannot be in a file name: the note is named with "-" and the status bar says
    which name was used and why, for a new note and for a rename."""
    window = make_window(workspace, model=None)
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *_a, **_k: ("Budget/people", True)))
    window._on_tree_new_note("memory/projects")
    assert (workspace / "memory" / "projects" / "budget-people.md").is_file()
    assert window.statusBar().currentMessage() == (
        "Named the file budget-people.md: note file names do not use “/”"
    )
    window.statusBar().clearMessage()
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *_a, **_k: ("atlas: v2/old", True)))
    window.note_actions.ask_rename("memory/projects/atlas.md")
    assert (workspace / "memory" / "projects" / "atlas- v2-old.md").is_file()
    assert window.statusBar().currentMessage() == (
        "Named the file atlas- v2-old.md: note file names do not use “:” “/”"
    )
    wait_idle(qtbot, window)
