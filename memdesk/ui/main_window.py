"""The main window: workspace tree | search + editor | tuning, over one ``Session``."""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from memdesk.core import engine as engine_mod
from memdesk.core import errors
from memdesk.core.index import workspace as workspace_mod
from memdesk.qt import golden as golden_mod
from memdesk.qt import preferences as prefs_mod
from memdesk.qt import session as session_mod
from memdesk.qt import workers
from memdesk.ui import editor as editor_mod
from memdesk.ui import errors as ui_errors
from memdesk.ui import quality_panel as quality_mod
from memdesk.ui import search_panel as search_mod
from memdesk.ui import tuning_panel as tuning_mod
from memdesk.ui import workspace_tree as tree_mod

log = logging.getLogger(__name__)

MODE_LABELS = {"hybrid": "Hybrid", "fts": "FTS-only", "vector": "Vector-only"}
SessionFactory = Callable[[Path], session_mod.Session]
_NOTE_NAME = re.compile(r"[^\w\- .]+", re.UNICODE)


class MainWindow(QMainWindow):
    """memdesk's window. Owns no threads itself: the ``Session`` does.

    Signals:
        session_replaced(object): another workspace was opened (the new ``Session``).
    """

    session_replaced = Signal(object)

    def __init__(
        self,
        session: session_mod.Session,
        prefs: prefs_mod.Preferences,
        *,
        open_session: SessionFactory | None = None,
        build_default_model: Callable[[Callable[[object], None]], Path] | None = None,
        offer_model_build: bool = False,
        log_file: Path | None = None,
    ) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.session = session
        self.prefs = prefs
        self._open_session = open_session
        self._build_default_model = build_default_model
        self._log_file = log_file
        self._closing_confirmed = False

        self.tree = tree_mod.WorkspaceTree()
        self.search_panel = search_mod.SearchPanel()
        self.note_editor = editor_mod.NoteEditor(session.workspace)
        self.tuning = tuning_mod.TuningPanel(session.settings)
        self.quality = quality_mod.QualityPanel()
        self.lab: golden_mod.TuningLab | None = None
        self._shown_query = ""  # the query whose hits the table shows (labels go to it)

        # Convenience handles for tests and automation (objectNames per issue 4).
        self.search_input = self.search_panel.search_input
        self.results_table = self.search_panel.table
        self.editor = self.note_editor.text_edit

        self.model_banner = self._make_model_banner()
        self.model_banner.setVisible(offer_model_build and build_default_model is not None)

        center = QSplitter(Qt.Orientation.Vertical)
        center.setObjectName("centerSplitter")
        center.addWidget(self.search_panel)
        center.addWidget(self.note_editor)
        center.setStretchFactor(0, 1)
        center.setStretchFactor(1, 1)
        center.setSizes([380, 320])
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.tuning)
        right_layout.addWidget(self.quality)
        right_layout.addStretch(1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.addWidget(self.tree)
        self.splitter.addWidget(center)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([180, 830, 270])
        self.center_splitter = center

        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        body_layout.setSpacing(0)
        body_layout.addWidget(self.model_banner)
        body_layout.addWidget(self.splitter, 1)
        self.setCentralWidget(body)

        self._make_status_bar()
        self._make_actions()
        self.search_panel.set_scope(session.scope)
        self._wire_static()
        self._attach(session)
        self.resize(1280, 800)
        geometry = prefs.geometry("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        splitter_state = prefs.geometry("splitter")
        if splitter_state is not None:
            self.splitter.restoreState(splitter_state)

    # construction --------------------------------------------------------------------
    def _make_model_banner(self) -> QFrame:
        banner = QFrame()
        banner.setObjectName("modelBanner")
        banner.setStyleSheet("#modelBanner { background: #fff4ce; border-bottom: 1px solid #e0c97a; }")
        layout = QHBoxLayout(banner)
        layout.setContentsMargins(8, 4, 8, 4)
        self.banner_label = QLabel(
            "No embedding model yet: searching by keywords only (FTS). "
            "Build the default model (runs offline in the background) "
            "to switch to hybrid search."
        )
        self.banner_label.setWordWrap(True)
        self.build_model_button = QPushButton("Build default model")
        self.build_model_button.setObjectName("buildModelButton")
        self.build_model_button.clicked.connect(self.start_model_build)
        dismiss = QPushButton("Not now")
        dismiss.setObjectName("dismissBannerButton")
        dismiss.clicked.connect(lambda: banner.setVisible(False))
        layout.addWidget(self.banner_label, 1)
        layout.addWidget(self.build_model_button)
        layout.addWidget(dismiss)
        return banner

    def _make_status_bar(self) -> None:
        bar = self.statusBar()
        self.mode_label = QLabel()
        self.mode_label.setObjectName("modeLabel")
        self.model_label = QLabel()
        self.model_label.setObjectName("modelLabel")
        self.counts_label = QLabel()
        self.counts_label.setObjectName("countsLabel")
        self.freshness_label = QLabel()
        self.freshness_label.setObjectName("freshnessLabel")
        self.progress = QProgressBar()
        self.progress.setObjectName("indexProgress")
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(True)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("cancelIndexButton")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self._on_cancel_button_clicked)
        for widget in (self.mode_label, self.model_label, self.counts_label, self.freshness_label):
            bar.addWidget(widget)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)

    def _make_actions(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.open_action = self._action(
            file_menu, "&Open workspace…", self._on_open_action, QKeySequence.StandardKey.Open
        )
        self.recent_menu = file_menu.addMenu("Recent workspaces")
        self.recent_menu.aboutToShow.connect(self._on_recent_menu_about_to_show)
        file_menu.addSeparator()
        self.today_action = self._action(
            file_menu, "&Today's note", self.open_today_note, QKeySequence("Ctrl+N")
        )
        self._action(
            file_menu,
            "New &topic note…",
            lambda: self._on_tree_new_note("memory"),
            QKeySequence("Ctrl+Shift+N"),
        )
        self.save_action = self._action(
            file_menu, "&Save", self.note_editor.save, QKeySequence.StandardKey.Save
        )
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        index_menu = self.menuBar().addMenu("&Index")
        self._action(index_menu, "&Sync now", lambda: self.session.request_sync(), QKeySequence("F5"))
        self._action(index_menu, "&Rebuild index", lambda: self.session.request_sync(rebuild=True))
        self._action(index_menu, "&Cancel indexing", lambda: self.session.cancel_sync())
        index_menu.addSeparator()
        self._action(index_menu, "Choose &embedding model (GGUF)…", self._on_choose_model_action)
        self._action(index_menu, "Build &default model", self.start_model_build)
        self._action(index_menu, "Use &no model (FTS-only)", lambda: self._switch_model("none"))

        search_menu = self.menuBar().addMenu("&Search")
        self.focus_search_action = self._action(
            search_menu, "&Find in memory", self.focus_search, QKeySequence("Ctrl+K")
        )

    def _action(
        self,
        menu,
        text: str,
        slot: Callable[[], object],  # type: ignore[no-untyped-def]
        shortcut: QKeySequence | QKeySequence.StandardKey | None = None,
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
            # Window-wide, so Ctrl+K works while typing in the editor too.
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        self.addAction(action)
        return action

    def _wire_static(self) -> None:
        self.tree.note_activated.connect(self._on_tree_note_activated)
        self.tree.new_note_requested.connect(self._on_tree_new_note)
        self.tree.rename_requested.connect(self._on_tree_rename_requested)
        self.tree.delete_requested.connect(self._on_tree_delete_requested)
        self.search_panel.query_changed.connect(self._on_search_panel_query_changed)
        self.search_panel.scope_changed.connect(self._on_search_panel_scope_changed)
        self.search_panel.hit_activated.connect(self._on_search_panel_hit_activated)
        self.search_panel.relevance_toggled.connect(self._on_search_panel_relevance_toggled)
        self.tuning.settings_changed.connect(self._on_tuning_settings_changed)
        self.quality.apply_requested.connect(self._on_quality_apply_requested)
        self.note_editor.saved.connect(self._on_editor_saved)
        self.note_editor.current_changed.connect(self._on_editor_current_changed)

    def _attach(self, session: session_mod.Session) -> None:
        self.session = session
        session.results_changed.connect(self._on_session_results_changed)
        session.search_failed.connect(self._on_session_search_failed)
        session.sync_started.connect(self._on_session_sync_started)
        session.sync_progress.connect(self._on_session_sync_progress)
        session.sync_failed.connect(self._on_session_sync_failed)
        session.idle_changed.connect(self._on_session_idle_changed)
        session.snapshot_changed.connect(self._on_session_snapshot_changed)
        session.files_changed.connect(self.note_editor.on_files_changed)
        session.model_build_progress.connect(self._on_session_model_build_progress)
        session.model_build_finished.connect(self._on_session_model_build_finished)
        session.model_build_failed.connect(self._on_session_model_build_failed)
        self.setWindowTitle(f"memdesk — {session.workspace}")
        self.mode_label.setText(MODE_LABELS.get(session.engine.mode, session.engine.mode))
        self._attach_lab(session)
        session.request_snapshot()

    def _attach_lab(self, session: session_mod.Session) -> None:
        """A tuning lab (golden labels, pools, auto-tune) for ``session``'s workspace."""
        lab = golden_mod.TuningLab(session, self.tuning.settings, self)
        lab.golden_changed.connect(self._on_lab_golden_changed)
        lab.failed.connect(self._on_lab_failed)
        self.lab = lab
        self.quality.set_lab(lab)
        self._shown_query = ""

    # public actions ------------------------------------------------------------------
    def focus_search(self) -> None:
        self.search_input.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_input.selectAll()

    def open_note(self, rel: str, *, lines: tuple[int, int] | None = None) -> bool:
        return self.note_editor.open_note(rel, lines=lines)

    def open_today_note(self) -> None:
        """Ctrl+N: open ``memory/YYYY-MM-DD.md``, creating it if it does not exist yet."""
        today = dt.date.today().isoformat()
        rel = f"memory/{today}.md"
        if not (self.session.workspace / rel).exists():
            self.create_note(rel, f"# {today}\n\n")
        self.open_note(rel)
        self.note_editor.text_edit.moveCursor(self.note_editor.text_edit.textCursor().MoveOperation.End)
        self.note_editor.text_edit.setFocus()

    def create_note(self, rel: str, text: str) -> bool:
        path = self.session.workspace / rel
        if path.exists():
            ui_errors.show_error(self, errors.MemdeskError(f"{rel} already exists"))
            return False
        try:
            workspace_mod.write_note_atomic(path, text)
        except OSError as exc:
            ui_errors.show_error(self, errors.MemdeskError(f"Cannot create {rel}: {exc}"))
            return False
        self.session.request_sync([rel])
        self.session.request_snapshot()
        return True

    def rename_note(self, old: str, new: str) -> bool:
        src, dst = self.session.workspace / old, self.session.workspace / new
        if dst.exists():
            ui_errors.show_error(self, errors.MemdeskError(f"{new} already exists"))
            return False
        try:
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.rename(src, dst)
        except OSError as exc:
            ui_errors.show_error(self, errors.MemdeskError(f"Cannot rename {old}: {exc}"))
            return False
        self.note_editor.rename_buffer(old, new)
        self.session.request_sync([old, new])
        return True

    def delete_note(self, rel: str) -> bool:
        try:
            (self.session.workspace / rel).unlink()
        except OSError as exc:
            ui_errors.show_error(self, errors.MemdeskError(f"Cannot delete {rel}: {exc}"))
            return False
        self.note_editor.close_note(rel)
        self.session.request_sync([rel])
        return True

    def start_model_build(self) -> None:
        if self._build_default_model is None or self.session.is_building_model:
            return
        self.build_model_button.setEnabled(False)
        self.banner_label.setText("Building the default embedding model in the background…")
        self.model_banner.setVisible(True)
        self.session.build_model(self._build_default_model)

    def confirm_unsaved(self, count: int) -> str:
        """Ask what to do with ``count`` unsaved notes: "save", "discard" or "cancel"."""
        box = QMessageBox(
            QMessageBox.Icon.Warning, "Unsaved notes", f"{count} note(s) have unsaved edits.", parent=self
        )
        box.setObjectName("unsavedDialog")
        save = box.addButton("Save all", QMessageBox.ButtonRole.AcceptRole)
        discard = box.addButton("Discard", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        clicked = box.clickedButton()
        return "save" if clicked is save else "discard" if clicked is discard else "cancel"

    def open_workspace(self, path: Path) -> None:
        if self._open_session is None:
            return
        if not self._settle_unsaved():
            return
        try:
            session = self._open_session(path)
        except errors.MemdeskError as exc:
            ui_errors.show_error(self, exc)
            return
        old = self.session
        old_lab = self.lab
        if old_lab is not None:
            old_lab.close()
        old.close()
        old.deleteLater()
        if old_lab is not None:
            old_lab.setParent(None)  # freed with its last reference, after the reader stopped
        self.note_editor.reset(session.workspace)
        self.search_panel.model.set_hits(())
        self._attach(session)
        self.prefs.remember_workspace(session.workspace)
        session.request_sync()
        if self.search_input.text().strip():
            session.set_query(self.search_input.text(), immediate=True)
        self.session_replaced.emit(session)

    # slots: tree ---------------------------------------------------------------------
    @Slot(str)
    def _on_tree_note_activated(self, rel: str) -> None:
        self.open_note(rel)

    @Slot(str)
    def _on_tree_new_note(self, folder: str) -> None:
        name, ok = QInputDialog.getText(self, "New topic note", f"Name of the note in {folder}/:")
        name = _NOTE_NAME.sub("-", name).strip(" .-") if ok else ""
        if not name:
            return
        rel = f"{folder}/{name.removesuffix('.md')}.md"
        if self.create_note(rel, f"# {name.removesuffix('.md')}\n\n"):
            self.open_note(rel)

    @Slot(str)
    def _on_tree_rename_requested(self, rel: str) -> None:
        folder, _, name = rel.rpartition("/")
        new_name, ok = QInputDialog.getText(self, "Rename note", "New name:", text=name)
        new_name = _NOTE_NAME.sub("-", new_name).strip(" .-") if ok else ""
        if new_name and new_name != name:
            if not new_name.endswith(".md"):
                new_name += ".md"
            self.rename_note(rel, f"{folder}/{new_name}" if folder else new_name)

    @Slot(str)
    def _on_tree_delete_requested(self, rel: str) -> None:
        answer = QMessageBox.question(self, "Delete note", f"Delete {rel} from disk? This cannot be undone.")
        if answer == QMessageBox.StandardButton.Yes:
            self.delete_note(rel)

    # slots: search and tuning --------------------------------------------------------
    @Slot(str)
    def _on_search_panel_query_changed(self, text: str) -> None:
        self.session.set_query(text)

    @Slot(str)
    def _on_search_panel_scope_changed(self, scope: str) -> None:
        self.session.set_scope(scope)  # type: ignore[arg-type]
        self.prefs.set_scope(scope)

    @Slot(object)
    def _on_search_panel_hit_activated(self, hit: object) -> None:
        self.open_note(hit.path, lines=(hit.start_line, hit.end_line))  # type: ignore[attr-defined]
        self.tree.select_note(hit.path)  # type: ignore[attr-defined]

    @Slot(object)
    def _on_tuning_settings_changed(self, settings: object) -> None:
        self.session.set_settings(settings)  # type: ignore[arg-type]
        self.prefs.set_search_settings(settings)  # type: ignore[arg-type]
        if self.lab is not None:
            self.lab.set_settings(settings)  # type: ignore[arg-type]

    @Slot(object, bool)
    def _on_search_panel_relevance_toggled(self, hit: object, on: bool) -> None:
        if self.lab is not None and self._shown_query.strip():
            self.lab.set_relevant(self._shown_query, hit, on)  # type: ignore[arg-type]

    @Slot(object)
    def _on_quality_apply_requested(self, settings: object) -> None:
        self.tuning.set_settings(settings)  # type: ignore[arg-type]  # emits settings_changed
        self.statusBar().showMessage("Applied the auto-tuned settings", 5000)

    @Slot()
    def _on_lab_golden_changed(self) -> None:
        if self.lab is not None:
            self.search_panel.model.set_relevant(self.lab.relevant_for(self._shown_query))

    @Slot(object)
    def _on_lab_failed(self, exc: BaseException) -> None:
        self.statusBar().showMessage(str(exc), 10_000)

    # slots: editor -------------------------------------------------------------------
    @Slot(str)
    def _on_editor_saved(self, rel: str) -> None:
        self.session.request_sync([rel])  # saves are indexed at once, not after the debounce

    @Slot(str)
    def _on_editor_current_changed(self, rel: str) -> None:
        if rel:
            self.tree.select_note(rel)

    # slots: session ------------------------------------------------------------------
    @Slot(object)
    def _on_session_results_changed(self, results: session_mod.Results) -> None:
        if results.query != self.search_input.text():
            return  # a response to text the box no longer holds
        pool = results.pool
        if not results.query.strip():
            summary = ""
        else:
            mode = MODE_LABELS.get(pool.mode, pool.mode) if pool else "—"
            how = "re-ranked in memory" if results.reranked else f"{results.seconds * 1000:.0f} ms"
            size = len(pool.candidates) if pool else 0
            summary = (
                f"{len(results.hits)} hits from {size} candidates · {mode} · "
                f"{results.settings.profile} profile · {how}"
            )
        self._shown_query = results.query
        relevant = self.lab.relevant_for(results.query) if self.lab is not None else ()
        self.search_panel.show_results(
            results.hits,
            terms=pool.query_terms if pool else (),
            settings=results.settings,
            summary=summary,
            mode=pool.mode if pool else "hybrid",
            relevant=relevant,
        )

    @Slot(object)
    def _on_session_search_failed(self, exc: BaseException) -> None:
        self.search_panel.summary.setText(f"Search failed: {exc}")
        if not isinstance(exc, errors.MemdeskError):
            ui_errors.show_error(self, exc, log_file=self._log_file)

    @Slot()
    def _on_session_sync_started(self) -> None:
        self.progress.setRange(0, 0)  # busy until the first file reports a total
        self.progress.setFormat("Indexing…")
        self.progress.setVisible(True)
        self.cancel_button.setVisible(True)
        self.freshness_label.setText("indexing…")

    @Slot(object)
    def _on_session_sync_progress(self, progress: engine_mod.SyncProgress) -> None:
        if progress.files_total > 0:
            self.progress.setRange(0, progress.files_total)
            self.progress.setValue(progress.files_done)
            self.progress.setFormat(
                f"{progress.files_done}/{progress.files_total} files · {progress.chunks_done} chunks"
            )

    @Slot(object)
    def _on_session_sync_failed(self, exc: BaseException) -> None:
        if isinstance(exc, errors.Cancelled):
            self.statusBar().showMessage("Indexing cancelled", 5000)
        else:
            ui_errors.show_error(self, exc, title="Indexing failed", log_file=self._log_file)

    @Slot(bool)
    def _on_session_idle_changed(self, idle: bool) -> None:
        self.progress.setVisible(not idle)
        self.cancel_button.setVisible(not idle)

    @Slot(object)
    def _on_session_snapshot_changed(self, snapshot: workers.WorkspaceSnapshot) -> None:
        if snapshot.error is not None:
            self.freshness_label.setText(f"status unavailable: {snapshot.error}")
            return
        self.tree.set_files(snapshot.files, snapshot.states)
        status = snapshot.status
        if status is None:
            return
        self.mode_label.setText(MODE_LABELS.get(status.mode, status.mode))
        self.mode_label.setToolTip(status.fallback_reason or "keyword and vector search combined")
        if status.fallback_reason:
            self.mode_label.setText(
                f"{MODE_LABELS.get(status.mode, status.mode)} ({_short(status.fallback_reason)})"
            )
        model = status.embedder.get("model") if status.embedder else None
        self.model_label.setText(f"model: {model}" if model else "model: none")
        self.model_label.setToolTip(str(status.embedder or status.fallback_reason or ""))
        self.counts_label.setText(f"{status.files} files · {status.chunks} chunks")
        failed = len(status.failures)
        if self.session.is_syncing:
            fresh = "indexing…"
        elif status.dirty_files:
            fresh = f"{len(status.dirty_files)} file(s) not indexed yet"
        else:
            when = status.last_sync.astimezone().strftime("%H:%M:%S") if status.last_sync else ""
            fresh = f"index up to date{f' ({when})' if when else ''}"
        if failed:
            fresh += f" · {failed} failed"
        self.freshness_label.setText(fresh)
        if status.mode == "hybrid":
            self.model_banner.setVisible(False)

    @Slot(str)
    def _on_session_model_build_progress(self, message: str) -> None:
        self.banner_label.setText(f"Building the default embedding model: {message}")

    @Slot(object)
    def _on_session_model_build_finished(self, path: object) -> None:
        self.banner_label.setText(f"Model ready ({Path(str(path)).name}); embedding the notes…")
        self.prefs.set_model_choice(None)

    @Slot(object)
    def _on_session_model_build_failed(self, exc: BaseException) -> None:
        self.build_model_button.setEnabled(True)
        self.banner_label.setText("The model could not be built; still searching by keywords.")
        ui_errors.show_error(self, exc, title="Model build failed", log_file=self._log_file)

    @Slot()
    def _on_cancel_button_clicked(self) -> None:
        self.session.cancel_sync()

    @Slot()
    def _on_open_action(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open memory workspace", str(self.session.workspace))
        if folder:
            self.open_workspace(Path(folder))

    @Slot()
    def _on_recent_menu_about_to_show(self) -> None:
        self.recent_menu.clear()
        for path in self.prefs.recent_workspaces():
            self.recent_menu.addAction(str(path), lambda p=path: self.open_workspace(p))

    @Slot()
    def _on_choose_model_action(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Choose a GGUF embedding model", "", "GGUF models (*.gguf);;All files (*)"
        )
        if path:
            self._switch_model(path)

    def _switch_model(self, model: str) -> None:
        self.prefs.set_model_choice(model)
        self.session.set_model(None if model == "none" else Path(model))

    # quitting ------------------------------------------------------------------------
    def _settle_unsaved(self) -> bool:
        dirty = self.note_editor.dirty_buffers()
        if not dirty:
            return True
        choice = self.confirm_unsaved(len(dirty))
        if choice == "save":
            return self.note_editor.save_all()
        if choice == "discard":
            self.note_editor.discard_all()
            return True
        return False

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt override
        if not self._closing_confirmed and not self._settle_unsaved():
            event.ignore()
            return
        self._closing_confirmed = True
        self.prefs.set_geometry("geometry", self.saveGeometry())
        self.prefs.set_geometry("splitter", self.splitter.saveState())
        self.prefs.sync()
        if self.lab is not None:
            self.lab.close()
        self.session.close()
        event.accept()


def _short(reason: str) -> str:
    return reason if len(reason) <= 48 else reason[:45] + "…"
