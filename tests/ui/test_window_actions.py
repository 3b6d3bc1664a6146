"""Safe file operations, keyboard navigation, menus and help, driven through the window."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt
from PySide6.QtGui import QDesktopServices, QTextCursor
from PySide6.QtWidgets import QApplication, QMessageBox

from memdesk.qt import models
from memdesk.ui import workspace_tree
from tests.ui.conftest import REPO, wait_idle
from tests.ui.modal import answer_modal


@pytest.fixture
def fts_window(make_window, workspace: Path):  # type: ignore[no-untyped-def]
    return make_window(workspace, model=None)


def _trashed_files(home: Path) -> list[Path]:
    return list((home / "Trash" / "files").glob("*"))


def test_delete_moves_to_trash_and_undo_restores(
    qtbot,
    fts_window,
    workspace: Path,  # type: ignore[no-untyped-def]
    trash_home: Path,
) -> None:
    """Delete sends the note to the system trash (no permanent delete); Undo puts it back."""
    rel = "memory/2026-05-04.md"
    text = (workspace / rel).read_text(encoding="utf-8")
    fts_window.tree.select_note(rel)
    fts_window.tree.setFocus()
    qtbot.keyClick(fts_window.tree, Qt.Key.Key_Delete)
    assert not (workspace / rel).exists()
    trashed = [p for p in _trashed_files(trash_home) if p.name == "2026-05-04.md"]
    assert trashed and trashed[0].read_text(encoding="utf-8") == text
    assert fts_window.undo_button.isVisible() and fts_window.undo_delete_action.isEnabled()
    inode = trashed[0].stat().st_ino
    fts_window.undo_button.click()
    assert (workspace / rel).read_text(encoding="utf-8") == text
    # The very file came back out of the trash (not a copy kept in memory), and the
    # trash holds neither it nor its record any more.
    assert (workspace / rel).stat().st_ino == inode
    assert _trashed_files(trash_home) == []
    assert list((trash_home / "Trash" / "info").glob("*.trashinfo")) == []
    assert not fts_window.undo_button.isVisible()
    assert fts_window.note_editor.current_rel == rel
    wait_idle(qtbot, fts_window)


def test_unsaved_dialog_names_the_files(fts_window) -> None:  # type: ignore[no-untyped-def]
    """The quit question lists every unsaved note, with Save all as the default."""
    box = fts_window.unsaved_box(["MEMORY.md", "memory/2026-05-01.md"])
    assert "MEMORY.md" in box.text() and "memory/2026-05-01.md" in box.text()
    assert box.defaultButton().text().replace("&", "") == "Save all"
    box.deleteLater()


def _unsaved_edit(window, rel: str) -> None:  # type: ignore[no-untyped-def]
    window.open_note(rel)
    window.editor.moveCursor(QTextCursor.MoveOperation.Start)
    window.editor.insertPlainText("unsaved draft line\n")
    assert window.note_editor.current_buffer.modified


def test_quit_with_unsaved_edits_cancel_keeps_and_discard_drops(qtbot, fts_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """File > Quit (Ctrl+Q) with an unsaved edit, answered in the real dialog: Cancel
    keeps the window and the edit; Discard changes closes without writing it."""
    rel = "memory/2026-05-01.md"
    before = (workspace / rel).read_bytes()
    # The menu entry Ctrl+Q triggers (the offscreen platform binds no key to Quit).
    file_menu = fts_window.menuBar().actions()[0].menu()
    quit_action = next(a for a in file_menu.actions() if a.text().replace("&", "") == "Quit")
    del fts_window.confirm_unsaved  # the real question, not the fixture's silent "discard"
    try:
        _unsaved_edit(fts_window, rel)
        seen = answer_modal("Cancel")
        quit_action.trigger()
        assert [s["name"] for s in seen] == ["unsavedDialog"] and seen[0]["default"] == "Save all"
        assert fts_window.isVisible() and fts_window.note_editor.current_buffer.modified
        seen = answer_modal("Discard changes")
        quit_action.trigger()
        assert [s["clicked"] for s in seen] == ["Discard changes"]
        assert not fts_window.isVisible()
        assert not fts_window.note_editor.dirty_buffers()
        assert (workspace / rel).read_bytes() == before
    finally:
        fts_window.confirm_unsaved = lambda names: "discard"


def test_switching_workspace_with_unsaved_edits_discard_switches(
    qtbot, fts_window, workspace: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Opening another workspace asks the same question; Discard changes switches and
    drops the edit, Save all writes it first."""
    other = tmp_path / "other"
    (other / "memory").mkdir(parents=True)
    (other / "MEMORY.md").write_text("# Other\n", encoding="utf-8")
    rel = "memory/2026-05-01.md"
    before = (workspace / rel).read_bytes()
    del fts_window.confirm_unsaved
    try:
        _unsaved_edit(fts_window, rel)
        seen = answer_modal("Discard changes")
        fts_window.open_workspace(other)
        assert [s["clicked"] for s in seen] == ["Discard changes"]
        assert fts_window.session.workspace == other.resolve() or fts_window.session.workspace == other
        assert not fts_window.note_editor.dirty_buffers()
        assert (workspace / rel).read_bytes() == before
        wait_idle(qtbot, fts_window)
        fts_window.open_note("MEMORY.md")
        fts_window.editor.insertPlainText("saved on switch\n")
        seen = answer_modal("Save all")
        fts_window.open_workspace(workspace)
        assert [s["clicked"] for s in seen] == ["Save all"]
        assert (other / "MEMORY.md").read_text(encoding="utf-8") == "saved on switch\n# Other\n"
        wait_idle(qtbot, fts_window)
    finally:
        fts_window.confirm_unsaved = lambda names: "discard"


def test_empty_workspace_offers_a_start(qtbot, make_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """An empty folder shows how to start; Create MEMORY.md makes and opens it."""
    empty = tmp_path / "empty"
    empty.mkdir()
    window = make_window(empty, model=None)
    assert window.left.currentWidget() is window.empty_state
    assert "no memory notes yet" in window.empty_state.message.text()
    with qtbot.waitSignal(
        window.session.snapshot_changed, timeout=30_000, check_params_cb=lambda snap: bool(snap.files)
    ):
        window.empty_state.memory_button.click()
    assert (empty / "MEMORY.md").is_file()
    assert window.left.currentWidget() is not window.empty_state
    assert window.note_editor.current_rel == "MEMORY.md"
    wait_idle(qtbot, window)


def test_today_from_empty_state(qtbot, make_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Create today's note from the empty state."""
    empty = tmp_path / "empty2"
    empty.mkdir()
    window = make_window(empty, model=None)
    window.empty_state.today_button.click()
    assert (empty / "memory" / f"{dt.date.today().isoformat()}.md").is_file()
    wait_idle(qtbot, window)


def test_quick_open_by_file_name(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """Ctrl+P, type part of a name, Enter: the note opens."""
    fts_window.activateWindow()
    qtbot.keyClick(fts_window, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
    dialog = fts_window._quick_open
    assert dialog.isVisible()
    qtbot.keyClicks(dialog.input, "cadence")
    assert dialog.shown_paths()[0] == "memory/decisions/deploy-cadence.md"
    qtbot.keyClick(dialog.input, Qt.Key.Key_Return)
    assert fts_window.note_editor.current_rel == "memory/decisions/deploy-cadence.md"
    assert fts_window.tree.current_note() == "memory/decisions/deploy-cadence.md"
    qtbot.waitUntil(fts_window.editor.hasFocus, timeout=2000)


def test_tree_filter(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """Typing in the filter box leaves only matching notes; clearing brings all back."""
    model = fts_window.tree.tree_model
    everything = set(model.shown_files)
    qtbot.keyClicks(fts_window.tree_filter, "2026-06")
    shown = model.shown_files
    assert shown and all("2026-06" in rel for rel in shown)
    assert set(shown) < everything
    qtbot.keyClick(fts_window.tree_filter, Qt.Key.Key_Down)
    assert fts_window.tree.hasFocus() and fts_window.tree.current_note() == shown[0]
    fts_window.tree_filter.clear()
    assert set(model.shown_files) == everything


def test_many_dated_notes_group_by_year_and_month(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """Hundreds of daily notes appear under year and month folders, newest first."""
    model = fts_window.tree.tree_model
    days = [dt.date(2025, 1, 1) + dt.timedelta(days=i) for i in range(400)]
    model.set_files(["MEMORY.md", "memory/topics/x.md"] + [f"memory/{d.isoformat()}.md" for d in days])
    memory = model.index_of("memory")
    names = [model.index(r, 0, memory).data() for r in range(model.rowCount(memory))]
    assert names == ["topics", "2026", "2025"]
    year = model.index(1, 0, memory)
    months = [model.index(r, 0, year).data() for r in range(model.rowCount(year))]
    assert months == ["2026-02", "2026-01"]
    assert year.data(models.FolderRole) == "memory"  # a new note made here goes to memory/
    feb = model.index(0, 0, year)
    assert model.index(0, 0, feb).data() == "2026-02-04.md"
    assert model.index_of("memory/2025-03-05.md").isValid()


def test_daily_notes_in_a_narrow_tree_keep_their_day(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """In a tree too narrow for a grouped daily note's whole name, each note still
    shows its day (its year is the group above), so a month's notes stay apart."""
    tree = fts_window.tree
    model = tree.tree_model
    days = [dt.date(2025, 11, 1) + dt.timedelta(days=i) for i in range(150)]
    model.set_files(["MEMORY.md"] + [f"memory/{d.isoformat()}.md" for d in days])
    november = model.index_of("memory/2025-11-08.md").parent()
    index = model.index_of("memory/2025-11-08.md")
    metrics = tree.fontMetrics()
    # Two digits short of the whole name, as in the default window's tree at this depth.
    width = metrics.horizontalAdvance("2025-11-08.md") - metrics.horizontalAdvance("20")
    shown = {
        workspace_tree.fit_name(model.index(r, 0, november).data(), width, metrics)
        for r in range(model.rowCount(november))
    }
    assert len(shown) == model.rowCount(november) == 30  # every day tells apart
    assert workspace_tree.fit_name(index.data(), width, metrics) == "11-08.md"
    assert workspace_tree.fit_name("deploy-cadence.md", 10_000, metrics) == "deploy-cadence.md"


def test_tree_repaints_child_states(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """A state change reaches rows inside folders, not only top-level ones."""
    model = fts_window.tree.tree_model
    changed: list[QModelIndex] = []
    model.dataChanged.connect(lambda first, _last, _roles=(): changed.append(first.parent()))
    states = dict.fromkeys(model.files, ("pending", ""))
    model.set_states(states)
    parents = {p.data(models.PathRole) for p in changed if p.isValid()}
    assert {"memory", "memory/decisions", "memory/topics"} <= parents


def test_tree_shows_new_states_without_a_signal_per_folder(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """The tree takes thousands of state changes with one repaint, not a dataChanged per
    folder (each one costs the tree view a walk of the model on the GUI thread)."""
    tree = fts_window.tree
    model = tree.tree_model
    files = tuple(model.files)
    changed: list[object] = []
    model.dataChanged.connect(lambda *args: changed.append(args))
    painted: list[bool] = []

    class PaintSpy(QObject):
        def eventFilter(self, _obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                painted.append(True)
            return False

    spy = PaintSpy(tree)
    tree.viewport().installEventFilter(spy)
    painted.clear()
    tree.set_files(files, dict.fromkeys(files, ("failed", "binary")))
    assert changed == []
    assert model.index_of("MEMORY.md").data(models.StateRole) == "failed"
    qtbot.waitUntil(lambda: bool(painted))
    # The same states again: nothing to repaint.
    painted.clear()
    tree.set_files(files, dict.fromkeys(files, ("failed", "binary")))
    assert changed == [] and not model.set_states(dict.fromkeys(files, ("failed", "binary")))


def test_menus_shortcuts_about_and_log(qtbot, fts_window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Edit, View and Help menus exist; Help lists shortcuts, says what runs, opens the log."""
    titles = [a.text().replace("&", "") for a in fts_window.menuBar().actions()]
    assert {"File", "Edit", "View", "Help"} <= set(titles)
    dialog = fts_window.show_shortcuts()
    rows = {what: keys for keys, what in dialog.rows()}
    assert rows["Open note by name"] == "Ctrl+P"
    assert "Ctrl+F" in rows["Find in note"] and "Ctrl+K" in rows["Find in memory"]
    assert any("Down" in keys for keys in rows.values())
    dialog.close()
    about = fts_window.show_about()
    text = about.label.text()
    assert str(fts_window.session.engine.db_path) in text
    assert "Data folder" in text and "Version" in text and "keyword search only" in text
    about.close()
    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    assert fts_window.open_log()
    assert opened == [str(fts_window._log_file)] and Path(opened[0]).exists()


def test_gui_is_quiet_by_default(tmp_path: Path, workspace: Path) -> None:
    """``memdesk gui`` prints no INFO lines (e.g. schema migrations) without -v."""
    env = dict(
        os.environ, MEMDESK_HOME=str(tmp_path / "home"), QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO)
    )
    env.pop("MEMDESK_LOG_TO_STDERR", None)
    out = tmp_path / "shot.png"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "memdesk.cli.main",
            "gui",
            "--workspace",
            str(workspace),
            "--model",
            "none",
            "--screenshot",
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.is_file()
    assert "INFO" not in proc.stderr and "migrated" not in proc.stderr
    log = (tmp_path / "home" / "logs" / "memdesk.log").read_text(encoding="utf-8")
    assert "migrated" in log  # still recorded, in the log file


def test_first_window_fits_a_scaled_screen(tmp_path: Path, workspace: Path) -> None:
    """With QT_SCALE_FACTOR=2 the first window is no larger than the available screen."""
    script = (
        "import sys; from pathlib import Path\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication(sys.argv[:1])\n"
        "from memdesk import app as app_mod\n"
        f"w = app_mod.build_window(Path({str(workspace)!r}), model=None, "
        f"data_dir=Path({str(tmp_path / 'data')!r}), watch=False)\n"
        "w.show(); app.processEvents()\n"
        "g = w.screen().availableGeometry()\n"
        "print(w.width(), w.height(), g.width(), g.height())\n"
        "w.session.close()\n"
    )
    screens = tmp_path / "screens.json"  # a 1920x1080 screen: 960x540 at scale factor 2
    screens.write_text(
        '{"screens": [{"name": "s", "x": 0, "y": 0, "width": 1920, '
        '"height": 1080, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}',
        encoding="utf-8",
    )
    env = dict(
        os.environ,
        QT_SCALE_FACTOR="2",
        QT_QPA_PLATFORM=f"offscreen:configfile={screens}",
        MEMDESK_HOME=str(tmp_path / "home"),
        PYTHONPATH=str(REPO),
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    width, height, avail_w, avail_h = map(int, proc.stdout.split()[-4:])
    assert width <= avail_w and height <= avail_h
    assert (avail_w, avail_h) == (960, 540)  # the scale factor halved the logical screen


def test_delete_with_unsaved_edits_asks_first(
    qtbot,
    fts_window,
    workspace: Path,  # type: ignore[no-untyped-def]
    trash_home: Path,
    monkeypatch,
) -> None:
    """A note with unsaved edits is not trashed without asking (Cancel is the default)."""
    rel = "memory/2026-05-06.md"
    fts_window.open_note(rel)
    fts_window.editor.insertPlainText("unsaved\n")
    asked: list[str] = []
    monkeypatch.setattr(
        QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Cancel
    )
    fts_window._on_tree_delete_requested(rel)
    assert asked and rel in asked[0] and (workspace / rel).exists()
    assert QApplication.instance() is not None
