"""The tree keeps the open note selected: a just-created note once the listing has it,
and any note while notes come and go around it (a new file rebuilds the tree)."""

from __future__ import annotations

from pathlib import Path

from memdesk.qt import models
from tests.ui.conftest import wait_synced


def _selected(window) -> str:  # type: ignore[no-untyped-def]
    index = window.tree.currentIndex()
    return str(index.data(models.PathRole)) if index.isValid() else ""


def test_todays_note_is_selected_once_the_tree_lists_it(qtbot, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(workspace)
    window.open_note("memory/projects/atlas.md")
    window.tree.select_note("memory/projects/atlas.md")
    assert _selected(window) == "memory/projects/atlas.md"
    with qtbot.waitSignal(window.note_editor.current_changed, timeout=30_000) as opened:
        window.open_today_note()
    today = str(opened.args[0])
    assert today.startswith("memory/") and (workspace / today).is_file()
    qtbot.waitUntil(lambda: window.tree.tree_model.index_of(today).isValid(), timeout=30_000)
    assert _selected(window) == today


def test_the_open_note_stays_selected_when_the_agent_adds_a_note(qtbot, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(workspace)
    rel = "memory/projects/atlas.md"
    window.open_note(rel)
    window.tree.select_note(rel)
    (workspace / "memory" / "2026-12-01.md").write_text(
        "# 2026-12-01\n\nAgent wrote this.\n", encoding="utf-8"
    )
    wait_synced(qtbot, window)
    qtbot.waitUntil(lambda: window.tree.tree_model.index_of("memory/2026-12-01.md").isValid(), timeout=30_000)
    assert _selected(window) == rel
