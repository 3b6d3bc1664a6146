"""The History panel: a note's timeline from the real version store, diffs of any two
versions, restores through the safe save (a new version; unsaved edits never lost),
and the tree's badge for notes the agent changed since the user last looked."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from memdesk.core import history as history_mod
from memdesk.qt import models

T0 = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)

V1 = "# Memory\n\n- Owner of Ferry: Ana\n- Tea, not coffee\n- Deploys on Fridays\n"
V2 = "# Memory\n\n- Owner of Ferry: Bo\n- Tea, not coffee\n- Deploys on Fridays\n- Uses SQLite\n"


def _capture(root: Path, note: str, text: str | None, source: str, at: dt.datetime, **kw: object) -> None:
    history = history_mod.open_history(root)
    try:
        data = None if text is None else text.encode("utf-8")
        history.capture(note, data, source=source, at=at, **kw)  # type: ignore[arg-type]
    finally:
        history.close()


def _write(root: Path, note: str, text: str) -> None:
    (root / note).write_bytes(text.encode("utf-8"))


@pytest.fixture
def scripted(workspace: Path) -> Path:
    """MEMORY.md written by memdesk (V1), rewritten by the agent (V2), with an MCP
    append and a binary write whose content was not kept."""
    _write(workspace, "MEMORY.md", V1)
    _capture(workspace, "MEMORY.md", V1, "memdesk", T0)
    _capture(workspace, "MEMORY.md", V2, "disk", T0 + dt.timedelta(hours=1))
    v3 = V2 + "- Appended over MCP\n"
    _capture(workspace, "MEMORY.md", v3, "mcp", T0 + dt.timedelta(hours=2))
    _capture(
        workspace, "MEMORY.md", None, "disk", T0 + dt.timedelta(hours=3), reason="binary file", size=2048
    )
    _capture(workspace, "MEMORY.md", V2, "disk", T0 + dt.timedelta(hours=4))
    _write(workspace, "MEMORY.md", V2)
    return workspace


def _open_panel(qtbot, window, note: str):  # type: ignore[no-untyped-def]
    panel = window.history_ui.panel
    with qtbot.waitSignal(panel.compared, timeout=10_000), qtbot.waitSignal(panel.loaded, timeout=10_000):
        window.history_ui.show_history(note)
    return panel


def _rows(panel) -> list[list[str]]:  # type: ignore[no-untyped-def]
    tree = panel.timeline
    return [[tree.topLevelItem(r).text(c) for c in range(4)] for r in range(tree.topLevelItemCount())]


def test_timeline_lists_every_source_and_diffs_against_the_previous(
    qtbot, make_window, scripted: Path
) -> None:  # type: ignore[no-untyped-def]
    window = make_window(scripted, model=None)
    panel = _open_panel(qtbot, window, "MEMORY.md")
    rows = _rows(panel)
    assert len(rows) == 5  # newest first
    assert [r[1] for r in rows] == ["on disk (agent)", "on disk (agent)", "MCP", "on disk (agent)", "memdesk"]
    assert rows[1][3].startswith("no content: ") and "binary" in rows[1][3]
    # Beside a kept version: the lines it added and removed, as the store counted them.
    agent = panel.versions[3]
    assert agent.added is not None and rows[3][3] == f"+{agent.added} −{agent.removed}"
    assert agent.added >= 2 and agent.removed >= 1  # Bo and SQLite in, Ana out
    assert panel.isVisible() and panel.title_label.text() == "History of MEMORY.md"
    # The newest version is selected; the one before it has no content: no diff, said why.
    assert "binary" in panel.diff.toPlainText()
    # The agent's rewrite against memdesk's version: its two hunks.
    with qtbot.waitSignal(panel.compared, timeout=10_000):
        panel.select_version(3)
    hunks = panel.comparison.hunks
    assert len(hunks) == 2
    shown = panel.diff.toPlainText()
    assert "- - Owner of Ferry: Ana" in shown and "+ - Owner of Ferry: Bo" in shown
    assert "+ - Uses SQLite" in shown


def test_any_two_versions_and_the_note_now(qtbot, make_window, scripted: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(scripted, model=None)
    panel = _open_panel(qtbot, window, "MEMORY.md")
    with qtbot.waitSignal(panel.compared, timeout=10_000):
        panel.select_version(4, also=2)  # memdesk's V1 against the MCP append
    assert panel.comparison.old.version.source == "memdesk"
    assert panel.comparison.new.version.source == "mcp"
    assert "+ - Appended over MCP" in panel.diff.toPlainText()
    with qtbot.waitSignal(panel.compared, timeout=10_000):
        panel.select_version(4)
    with qtbot.waitSignal(panel.compared, timeout=10_000):
        panel.set_compare_to_now(True)
    assert panel.comparison.new.version is None  # the note on disk now
    assert panel.comparison.new.text == V2
    assert "→ the note now" in panel.diff_label.text()


def _versions(root: Path, note: str) -> list[history_mod.Version]:
    history = history_mod.open_history(root)
    try:
        return history.timeline(note, git=False)
    finally:
        history.close()


def test_restore_a_version_is_a_new_version(qtbot, make_window, scripted: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(scripted, model=None)
    panel = _open_panel(qtbot, window, "MEMORY.md")
    before = _versions(scripted, "MEMORY.md")
    with qtbot.waitSignal(panel.compared, timeout=10_000):
        panel.select_version(4)  # memdesk's V1
    with qtbot.waitSignal(window.history_ui.restorer.restored, timeout=10_000):
        assert panel.restore_version()
    assert (scripted / "MEMORY.md").read_text("utf-8") == V1
    after = _versions(scripted, "MEMORY.md")
    assert len(after) == len(before) + 1
    assert after[0].source == "memdesk"
    assert {v.id for v in before} <= {v.id for v in after}  # nothing destroyed


def test_revert_one_hunk_keeps_every_other_byte(qtbot, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    # CRLF endings, a BOM, a no-break space and no newline at the end: all must survive.
    old = "\ufeff" + V1.replace("\n", "\r\n").replace("Tea,", "Tea,\u00a0") + "last line"
    new = "\ufeff" + V2.replace("\n", "\r\n").replace("Tea,", "Tea,\u00a0") + "last line"
    _capture(workspace, "MEMORY.md", old, "memdesk", T0)
    _capture(workspace, "MEMORY.md", new, "disk", T0 + dt.timedelta(hours=1))
    (workspace / "MEMORY.md").write_bytes(new.encode("utf-8"))
    window = make_window(workspace, model=None)
    panel = _open_panel(qtbot, window, "MEMORY.md")  # the agent's version against the one before
    assert panel.comparison.new.version.source == "disk"
    hunks = panel.comparison.hunks
    assert len(hunks) == 2
    owner = next(i for i, h in enumerate(hunks) if any("Ana" in x for x in h.old_lines))
    panel.diff.go_to_hunk(owner)
    with qtbot.waitSignal(window.history_ui.restorer.restored, timeout=10_000):
        assert panel.revert_hunk()
    expected = new.replace("Owner of Ferry: Bo", "Owner of Ferry: Ana")
    assert (workspace / "MEMORY.md").read_bytes() == expected.encode("utf-8")
    versions = _versions(workspace, "MEMORY.md")
    assert versions[0].source == "memdesk" and len(versions) == 3


def test_restore_with_unsaved_edits_loses_nothing(qtbot, make_window, scripted: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(scripted, model=None)
    assert window.open_note("MEMORY.md")
    editor = window.note_editor
    edit = window.editor
    edit.moveCursor(edit.textCursor().MoveOperation.End)
    qtbot.keyClicks(edit, "- typed, not saved")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    typed = editor.full_text("MEMORY.md")
    assert typed is not None and "typed, not saved" in typed
    panel = _open_panel(qtbot, window, "MEMORY.md")
    with qtbot.waitSignal(panel.compared, timeout=10_000):
        panel.select_version(4)  # memdesk's V1
    with qtbot.waitSignal(window.history_ui.restorer.into_editor, timeout=10_000):
        panel.restore_version()
    # Nothing was written under the edits: the disk keeps V2, the buffer holds V1, unsaved.
    assert (scripted / "MEMORY.md").read_text("utf-8") == V2
    assert editor.full_text("MEMORY.md") == V1
    assert editor.buffer("MEMORY.md").modified
    edit.undo()  # the restore was one step: the typed line is back
    assert editor.full_text("MEMORY.md") == typed


def test_badge_marks_agent_changes_until_the_note_is_opened(qtbot, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    note = "memory/2026-05-01.md"
    window = make_window(workspace, model=None)
    tree_model = window.tree.tree_model
    _capture(workspace, note, "agent wrote this\n", "disk", dt.datetime.now(dt.UTC))
    _capture(workspace, "MEMORY.md", "memdesk wrote this\n", "memdesk", dt.datetime.now(dt.UTC))
    with qtbot.waitSignal(window.session.sync_finished, timeout=60_000):
        window.session.request_sync()
    qtbot.waitUntil(lambda: note in tree_model.unseen, timeout=10_000)
    assert "MEMORY.md" not in tree_model.unseen  # the user's own save is no badge
    index = tree_model.index_of(note)
    assert index.data(models.UnseenRole) is True
    assert "Changed by the agent" in index.data(Qt.ItemDataRole.ToolTipRole)
    assert tree_model.index_of("MEMORY.md").data(models.UnseenRole) is False
    assert window.open_note(note)
    assert note not in tree_model.unseen
    qtbot.waitUntil(lambda: note not in _unseen(workspace), timeout=10_000)


def _unseen(root: Path) -> set[str]:
    history = history_mod.open_history(root)
    try:
        return history.unseen_agent_changes()
    finally:
        history.close()


def test_esc_closes_the_panel_and_gives_the_note_its_keys_back(qtbot, make_window, scripted: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(scripted, model=None)
    assert window.open_note("MEMORY.md")
    panel = _open_panel(qtbot, window, "MEMORY.md")
    window.activateWindow()
    qtbot.waitUntil(lambda: panel.timeline.hasFocus(), timeout=5_000)
    toggle = panel.toggleViewAction()
    assert toggle.isChecked()
    qtbot.keyClick(panel.timeline, Qt.Key.Key_Escape)
    assert not panel.isVisible() and not toggle.isChecked()
    qtbot.waitUntil(lambda: window.editor.hasFocus(), timeout=5_000)
    # From the diff too, once shown again.
    panel = _open_panel(qtbot, window, "MEMORY.md")
    panel.diff.setFocus()
    qtbot.waitUntil(lambda: panel.diff.hasFocus(), timeout=5_000)
    qtbot.keyClick(panel.diff, Qt.Key.Key_Escape)
    assert not panel.isVisible()
    # Esc in the editor is the editor's: it does not touch the panel shown beside it.
    panel = _open_panel(qtbot, window, "MEMORY.md")
    window.editor.setFocus()
    qtbot.waitUntil(lambda: window.editor.hasFocus(), timeout=5_000)
    qtbot.keyClick(window.editor, Qt.Key.Key_Escape)
    assert panel.isVisible()
