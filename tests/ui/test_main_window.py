"""The issue-4 scenarios, driven through the real window, threads, SQLite and GGUF model."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSlider,
    QTableView,
    QTreeView,
)

from memdesk.qt import models
from tests.ui.conftest import search, wait_idle, wait_synced

OBJECT_NAMES = {
    "workspaceTree": QTreeView,
    "editor": QPlainTextEdit,
    "searchInput": QLineEdit,
    "resultsTable": QTableView,
    "vectorWeightSlider": QSlider,
    "textWeightSlider": QSlider,
    "minScoreSlider": QSlider,
    "halfLifeSlider": QSlider,
    "mmrLambdaSlider": QSlider,
    "profileCombo": QComboBox,
}


@pytest.fixture
def hybrid_window(
    make_window,
    workspace: Path,
    minilm_path: Path,  # type: ignore[no-untyped-def]
    hybrid_index: Path,
):
    return make_window(workspace, model=minilm_path, seed_index=hybrid_index)


@pytest.fixture
def fts_window(make_window, workspace: Path):  # type: ignore[no-untyped-def]
    return make_window(workspace, model=None)


def _click_row(qtbot, table: QTableView, row: int, column: int = 1) -> None:  # type: ignore[no-untyped-def]
    rect = table.visualRect(table.model().index(row, column))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_object_names_present(fts_window) -> None:  # type: ignore[no-untyped-def]
    """Every widget automation relies on is findable by its objectName."""
    for name, kind in OBJECT_NAMES.items():
        assert fts_window.findChild(kind, name) is not None, name
    assert fts_window.findChild(object, "qualityPanel") is not None


def test_query_fills_every_column(qtbot, hybrid_window) -> None:  # type: ignore[no-untyped-def]
    """Typing a query shows hits with every score component filled in, in hybrid mode."""
    results = search(qtbot, hybrid_window, "which database did we choose for Atlas")
    assert results.pool.mode == "hybrid"
    table = hybrid_window.results_table
    assert table.model().rowCount() > 0
    for column in range(table.model().columnCount()):
        text = table.model().index(0, column).data()
        assert text not in (None, "", "—"), models.COLUMNS[column].key
    assert hybrid_window.mode_label.text().startswith("Hybrid")


def test_vector_weight_slider_reranks_without_query(qtbot, hybrid_window) -> None:  # type: ignore[no-untyped-def]
    """Moving the vector-weight slider re-orders the cached pool; no new database query."""
    search(qtbot, hybrid_window, "time zone overlap for Berlin and Shanghai meetings")
    before = [h.chunk_id for h in hybrid_window.search_panel.model.hits]
    fetches = hybrid_window.session.fetch_count
    vector = hybrid_window.findChild(QSlider, "vectorWeightSlider")
    text = hybrid_window.findChild(QSlider, "textWeightSlider")
    with qtbot.waitSignal(hybrid_window.session.results_changed, check_params_cb=lambda r: r.reranked):
        text.setValue(text.minimum())
    with qtbot.waitSignal(hybrid_window.session.results_changed, check_params_cb=lambda r: r.reranked):
        vector.setValue(vector.maximum())
    vector_only = [h.chunk_id for h in hybrid_window.search_panel.model.hits]
    with qtbot.waitSignal(hybrid_window.session.results_changed, check_params_cb=lambda r: r.reranked):
        vector.setValue(vector.minimum())
    with qtbot.waitSignal(hybrid_window.session.results_changed, check_params_cb=lambda r: r.reranked):
        text.setValue(text.maximum())
    text_only = [h.chunk_id for h in hybrid_window.search_panel.model.hits]
    assert hybrid_window.session.fetch_count == fetches  # no SQLite, no embedder
    assert before and vector_only != text_only
    assert "re-ranked in memory" in hybrid_window.search_panel.summary.text()


def test_decay_slider_reranks_without_query_fts(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """Even keyword-only, tuning re-ranks the cached pool: half-life changes decay at once."""
    decay_check = fts_window.findChild(QCheckBox, "decayCheck")
    if not decay_check.isChecked():  # decay is off by default in the memdesk profile
        decay_check.setChecked(True)
    search(qtbot, fts_window, "Atlas")
    decays = [h.decay for h in fts_window.search_panel.model.hits]
    fetches = fts_window.session.fetch_count
    slider = fts_window.findChild(QSlider, "halfLifeSlider")
    with qtbot.waitSignal(fts_window.session.results_changed, check_params_cb=lambda r: r.reranked):
        slider.setValue(slider.minimum())
    assert fts_window.session.fetch_count == fetches
    assert [h.decay for h in fts_window.search_panel.model.hits] != decays


def test_click_hit_lands_on_its_lines(qtbot, hybrid_window) -> None:  # type: ignore[no-untyped-def]
    """Clicking a hit opens its note scrolled to its lines: the chunk's range is marked in
    the gutter and the lines in it that hold the query's words are highlighted."""
    search(qtbot, hybrid_window, "on-call rota owner")
    table = hybrid_window.results_table
    row = max(
        range(table.model().rowCount()),
        key=lambda r: table.model().index(r, 0).data(models.HitRole).start_line,
    )
    hit = table.model().index(row, 0).data(models.HitRole)
    assert hybrid_window.note_editor.current_rel != hit.path  # so opening it must signal
    with qtbot.waitSignal(hybrid_window.note_editor.current_changed, timeout=5000):
        _click_row(qtbot, table, row)
    assert hybrid_window.note_editor.current_rel == hit.path
    editor = hybrid_window.editor
    assert editor.marked_lines == (hit.start_line, hit.end_line)
    lines = hybrid_window.note_editor.matched_line_numbers()
    assert lines and all(hit.start_line <= n <= hit.end_line for n in lines)
    assert editor.textCursor().blockNumber() + 1 == lines[0]
    cursor_rect = editor.cursorRect()
    assert editor.viewport().rect().contains(cursor_rect.center())
    assert "Combined" in hybrid_window.search_panel.detail.toPlainText()


def test_edit_save_then_find_new_text(qtbot, fts_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Ctrl+S writes the note atomically and indexes it at once; search finds the new text."""
    fts_window.open_note("memory/2026-06-03.md")
    editor = fts_window.editor
    editor.moveCursor(editor.textCursor().MoveOperation.End)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "The quokkaphone prototype ships Friday.")
    assert fts_window.note_editor.current_buffer.modified
    with qtbot.waitSignal(fts_window.note_editor.saved, timeout=5000):
        qtbot.keyClick(editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert "quokkaphone" in (workspace / "memory/2026-06-03.md").read_text(encoding="utf-8")
    assert not list((workspace / "memory").glob(".*.tmp"))  # no temp file left behind
    wait_synced(qtbot, fts_window)
    results = search(qtbot, fts_window, "quokkaphone")
    assert [h.path for h in results.hits] == ["memory/2026-06-03.md"]


def test_change_behind_editor_asks_reload(qtbot, fts_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """A file changed on disk under unsaved edits asks: reload / keep mine / compare."""
    rel = "memory/2026-06-05.md"
    fts_window.open_note(rel)
    fts_window.editor.insertPlainText("my unsaved line\n")
    with qtbot.waitSignal(fts_window.note_editor.conflict_detected, timeout=10_000) as blocker:
        (workspace / rel).write_text("# rewritten elsewhere\n", encoding="utf-8")
    assert blocker.args == [rel]
    dialog = fts_window.note_editor.open_dialog(rel)
    assert dialog is not None and dialog.isVisible()
    dialog.compare_button.click()
    assert "my unsaved line" in dialog.findChild(QPlainTextEdit, "conflictDiff").toPlainText()
    with qtbot.waitSignal(fts_window.note_editor.conflict_resolved) as resolved:
        dialog.reload_button.click()
    assert resolved.args == [rel, "reload"]
    assert fts_window.editor.toPlainText() == "# rewritten elsewhere\n"
    assert not fts_window.note_editor.current_buffer.modified


def test_keep_mine_then_save_overwrites_deliberately(qtbot, fts_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Saving over a file changed on disk asks first; "keep mine" then completes that
    save (no second Ctrl+S needed)."""
    rel = "memory/2026-06-08.md"
    fts_window.open_note(rel)
    fts_window.editor.insertPlainText("mine\n")
    (workspace / rel).write_text("theirs\n", encoding="utf-8")
    fts_window.activateWindow()
    with qtbot.waitSignal(fts_window.note_editor.conflict_detected, timeout=10_000):
        qtbot.keyClick(fts_window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert (workspace / rel).read_text(encoding="utf-8") == "theirs\n"  # nothing silently overwritten
    dialog = fts_window.note_editor.open_dialog(rel)
    with qtbot.waitSignal(fts_window.note_editor.saved, timeout=10_000):
        dialog.keep_button.click()
    assert (workspace / rel).read_text(encoding="utf-8").startswith("mine\n")
    assert not fts_window.note_editor.current_buffer.modified


def test_merge_conflicts_resolved_from_the_keyboard_then_saved(qtbot, fts_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Merge marks the overlap; in the window Alt+1 takes mine (an Edit menu entry too),
    the conflict bar, the highlight and the status line's "resolve, then save" go
    with the last marker, and Ctrl+S writes a note without markers."""
    rel = "memory/2026-06-08.md"
    path = workspace / rel
    fts_window.open_note(rel)
    first = fts_window.editor.document().firstBlock()
    cursor = QTextCursor(first)
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
    cursor.insertText("# my title")
    disk = path.read_text(encoding="utf-8").split("\n", 1)
    with qtbot.waitSignal(fts_window.note_editor.conflict_detected, timeout=10_000):
        path.write_text("# their title\n" + disk[1], encoding="utf-8")
    with qtbot.waitSignal(fts_window.note_editor.conflicts_changed, timeout=5000):
        fts_window.note_editor.open_dialog(rel).merge_button.click()
    assert "<<<<<<<" in fts_window.statusBar().currentMessage()
    assert fts_window.note_editor.conflict_bar.isVisible()
    edit_menu = fts_window.menuBar().actions()[1].menu()
    assert fts_window.note_editor.take_mine_action in edit_menu.actions()
    fts_window.activateWindow()
    with qtbot.waitSignal(fts_window.note_editor.conflicts_changed, timeout=5000) as changed:
        qtbot.keyClick(fts_window.editor, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)
    assert changed.args == [0]
    assert not fts_window.note_editor.conflict_bar.isVisible() and fts_window.editor.extraSelections() == []
    assert "<<<<<<<" not in fts_window.statusBar().currentMessage()
    with qtbot.waitSignal(fts_window.note_editor.saved, timeout=5000):
        qtbot.keyClick(fts_window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert path.read_text(encoding="utf-8") == "# my title\n" + disk[1]


def test_delete_on_disk_leaves_tree_and_results(qtbot, fts_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Deleting a note on disk removes it from the tree and from the current results."""
    rel = "memory/2026-05-04.md"
    text = (workspace / rel).read_text(encoding="utf-8")
    word = max((w for w in text.split() if w.isalpha()), key=len)
    results = search(qtbot, fts_window, word)
    assert rel in {h.path for h in results.hits}
    assert fts_window.tree.tree_model.index_of(rel).isValid()
    with qtbot.waitSignal(
        fts_window.session.results_changed,
        timeout=20_000,
        check_params_cb=lambda r: rel not in {h.path for h in r.hits},
    ):
        os.remove(workspace / rel)
    wait_idle(qtbot, fts_window)
    if fts_window.tree.tree_model.index_of(rel).isValid():
        with qtbot.waitSignal(fts_window.session.snapshot_changed, timeout=20_000):
            pass
    assert not fts_window.tree.tree_model.index_of(rel).isValid()
    assert rel not in {h.path for h in fts_window.search_panel.model.hits}


def test_typing_right_after_launch_goes_to_the_search_box(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """The search box has the focus when the window opens (not the tree's filter box)."""
    assert fts_window.focusWidget() is fts_window.search_input
    fts_window.activateWindow()
    qtbot.keyClicks(fts_window.focusWidget(), "deploy")
    assert fts_window.search_input.text() == "deploy" and fts_window.tree_filter.text() == ""


def test_shortcuts_ctrl_k_and_ctrl_n(qtbot, fts_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Ctrl+K focuses the query box; Ctrl+N creates and opens today's daily note."""
    fts_window.activateWindow()
    fts_window.editor.setFocus()
    qtbot.keyClick(fts_window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: fts_window.search_input.hasFocus(), timeout=2000)
    today = f"memory/{dt.date.today().isoformat()}.md"
    qtbot.keyClick(fts_window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert (workspace / today).is_file()
    assert fts_window.note_editor.current_rel == today


def test_unsaved_buffers_survive_switching_and_prompt_on_quit(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """Edits stay in their buffer when another note is opened; quitting asks about them."""
    fts_window.open_note("MEMORY.md")
    fts_window.editor.insertPlainText("draft line\n")
    fts_window.open_note("memory/2026-05-01.md")
    assert not fts_window.note_editor.current_buffer.modified
    fts_window.open_note("MEMORY.md")
    assert fts_window.editor.toPlainText().startswith("draft line\n")
    asked: list[list[str]] = []

    def confirm(names: list[str]) -> str:
        asked.append(names)
        return "cancel"

    fts_window.confirm_unsaved = confirm
    fts_window.close()
    assert asked == [["MEMORY.md"]] and fts_window.isVisible()  # cancel keeps window and edits
    fts_window.confirm_unsaved = lambda count: "discard"


def test_settings_persist_as_overrides(qtbot, make_window, workspace: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Tuned settings survive a restart; only non-default values are stored, in the
    workspace (beside its golden set), not in the user's preferences."""
    window = make_window(workspace)
    slider = window.findChild(QSlider, "mmrLambdaSlider")
    slider.setValue(slider.value() - 4)
    expected = window.tuning.settings
    window.close()
    stored = (workspace / ".memdesk" / "tuned.json").read_text(encoding="utf-8")
    assert "mmr_lambda" in stored and "vector_weight" not in stored
    assert "mmr_lambda" not in (tmp_path / "data" / "memdesk.ini").read_text(encoding="utf-8")
    again = make_window(workspace, wait=False)
    assert again.tuning.settings == expected
    assert again.findChild(QSlider, "mmrLambdaSlider").value() == slider.value()
    wait_idle(qtbot, again)


def test_profile_switch_and_apply_to_openclaw(qtbot, fts_window, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The openclaw profile loads OpenClaw's defaults; "Apply to OpenClaw…" writes only what differs."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("OPENCLAW_STATE_DIR", raising=False)
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH", raising=False)
    config_path = tmp_path / ".openclaw" / "openclaw.json"
    config_path.parent.mkdir()
    config_path.write_text(
        json.dumps({"agents": {"defaults": {"memorySearch": {"query": {"maxResults": 3}}}}}, indent=2)
    )
    combo = fts_window.findChild(QComboBox, "profileCombo")
    combo.setCurrentIndex(combo.findData("openclaw"))
    assert fts_window.tuning.settings.profile == "openclaw-2026.9"  # the alias names the newest
    assert combo.currentData() == "openclaw-2026.9"
    assert fts_window.tuning.settings.min_score == pytest.approx(0.35)
    # The config is in 2026.4's layout: apply the profile of that release, whose defaults
    # the agent already runs with (2026.9's always-on decay and MMR would differ from them).
    combo.setCurrentIndex(combo.findData("openclaw-2026.4"))
    assert fts_window.tuning.settings.profile == "openclaw-2026.4"
    fts_window.findChild(QPushButton, "applyOpenClawButton").click()
    dialog = fts_window.agent_dock.dialog
    assert dialog is not None and dialog.isVisible()
    diff = dialog.diff_view.toPlainText()
    assert '-          "maxResults": 3' in diff and '+          "maxResults": 6' in diff
    assert "vectorWeight" not in diff  # 0.7 is what the agent already runs with
    with qtbot.waitSignal(dialog.applied, timeout=10_000):
        dialog.apply_button.click()
    written = json.loads(config_path.read_text())
    assert written["agents"]["defaults"]["memorySearch"]["query"] == {"maxResults": 6}
    assert len(list(config_path.parent.glob("openclaw.json.memdesk-*.bak"))) == 1
    assert "openclaw.json" in fts_window.statusBar().currentMessage()


def test_scope_shared_excludes_curated_memory(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """The group-chat scope searches without MEMORY.md, as the agent would."""
    results = search(qtbot, fts_window, "Tidewater Labs team")
    assert "MEMORY.md" in {h.path for h in results.hits}
    with qtbot.waitSignal(fts_window.session.results_changed):
        fts_window.search_panel.set_scope("shared")
    assert "MEMORY.md" not in {h.path for h in fts_window.session.results.hits}


def test_first_run_builds_model_then_goes_hybrid(
    qtbot, make_window, workspace: Path, minilm_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Without a built model the window opens FTS-only and offers the build; afterwards hybrid."""
    window = make_window(workspace, model="auto")
    assert window.model_banner.isVisibleTo(window)
    assert window.session.engine.mode == "fts"
    window._build_default_model = lambda progress: (progress("copying"), minilm_path)[1]
    with qtbot.waitSignal(window.session.model_build_finished, timeout=30_000):
        window.build_model_button.click()
    wait_synced(qtbot, window)
    assert window.session.engine.mode == "hybrid"
    assert window.mode_label.text().startswith("Hybrid")
    results = search(qtbot, window, "database decision")
    assert results.pool.mode == "hybrid"
    assert any(h.vector_score is not None for h in results.hits)


def test_tree_marks_index_states(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """After the first index every listed note is marked indexed, with tooltips."""
    model = fts_window.tree.tree_model
    assert model.files
    assert {model.state(rel)[0] for rel in model.files} == {"indexed"}
    index = model.index_of("MEMORY.md")
    assert "indexed" in index.data(Qt.ItemDataRole.ToolTipRole)
