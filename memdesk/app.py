"""Composition root of the desktop app: builds engine, session, preferences and window.

No module-level state: ``build_window`` assembles everything for one workspace and
``run_gui`` is the ``memdesk gui`` entry point (QApplication, logging, screenshot mode).
"""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from memdesk.core import engine as engine_mod
from memdesk.core import errors, paths
from memdesk.core.embed.loader import parse_model_spec
from memdesk.core.eval import tuned as eval_tuned
from memdesk.qt import assets, collector, compat, logs, translations
from memdesk.qt import preferences as prefs_mod
from memdesk.qt import session as session_mod
from memdesk.ui import main_window as window_mod
from memdesk.ui import theme as ui_theme

log = logging.getLogger(__name__)

SCREENSHOT_SIZE = (1280, 800)
SCREENSHOT_TIMEOUT_MS = 15 * 60 * 1000  # a first index with a model can take minutes


def _db_path(workspace: Path, data_dir: Path | None) -> Path | None:
    if data_dir is None:
        return None  # the engine's default: one index per workspace in paths.data_dir()
    folder = Path(data_dir) / "indexes"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder / paths.index_path_for(workspace).name


def _default_model_builder() -> Callable[[Callable[[object], None]], Path]:
    def build(progress: Callable[[object], None]) -> Path:
        from memdesk.core.embed.models import registry

        # As `memdesk model build`: the F16 file and this CPU's format, which then loads.
        return registry.build_default_model(paths.models_dir(), progress=lambda message: progress(message))

    return build


def _packaged_build_needed() -> bool:
    """A desktop bundle's default model files are not all built: its first start, or a
    later one after a start was killed while building them (the F16 file built, this
    CPU's not). They are built from the source it ships, in the background, without
    asking (nothing to download, nothing to install)."""
    try:
        from memdesk.core.embed.models import registry
    except ImportError:
        return False
    return bool(registry.missing_packaged_formats(paths.models_dir()))


def _default_model_missing() -> bool:
    try:
        from memdesk.core.embed.models import registry
    except ImportError:
        return False
    return registry.find_default_model(paths.models_dir()) is None


def build_window(
    workspace: Path, *, model: Path | str | None = None, data_dir: Path | None = None, watch: bool = True
) -> window_mod.MainWindow:
    """The ready main window over ``workspace``; its first index job is already running.

    ``model``: a GGUF path, ``"auto"`` (the default built model; when there is none the
    window offers to build it) or None/``"none"`` for keyword-only search.
    ``data_dir`` holds preferences and the index (default: ``paths.data_dir()``).
    """
    compat.apply_refcount_workaround()
    collector.install()
    app = QApplication.instance()
    if isinstance(app, QApplication):
        ui_theme.install_indicator_style(app)
    data = Path(data_dir) if data_dir is not None else paths.data_dir()
    data.mkdir(parents=True, exist_ok=True, mode=0o700)
    prefs = prefs_mod.Preferences(data / "memdesk.ini")
    prefs_mod.keep_qt_settings_in(data)  # the Open dialog's history, not in ~/.config

    def open_session(path: Path) -> session_mod.Session:
        engine = engine_mod.Engine.open(Path(path), model=model, db_path=_db_path(Path(path), data_dir))
        return session_mod.Session(
            engine,
            settings=eval_tuned.current_settings(Path(path)),  # the workspace's own
            scope=prefs.scope(),
            watch=watch,
            # Its model load and first sync wait for the window's first frame.
            hold_background=True,
        )

    session = open_session(Path(workspace))
    offer = model == "auto" and session.engine.embedder is None and _default_model_missing()
    window = window_mod.MainWindow(
        session,
        prefs,
        open_session=open_session,
        build_default_model=_default_model_builder(),
        offer_model_build=offer,
        log_file=logs.log_path(data),
    )
    if model == "auto" and _packaged_build_needed():
        # The banner follows it; search is keyword-only meanwhile at the first start, on
        # the F16 file at a later one, and switches to the built file when it is ready.
        window.start_model_build()
    prefs.remember_workspace(session.workspace)
    # Everything built so far (modules, Qt wrappers, the window) lives as long as the
    # app: keep it out of the cyclic collector's full passes. A full pass over it took
    # ~55 ms, holding the GIL from whichever thread triggered it (mostly the indexer's),
    # so the window froze that long while notes were being indexed. Once per process:
    # a later window's predecessors may be garbage, which frozen would never be freed.
    if gc.get_freeze_count() == 0:
        gc.freeze()
    session.request_sync()
    return window


def _pick_workspace(prefs: prefs_mod.Preferences) -> Path:
    last = prefs.last_workspace()
    if last is not None and last.is_dir():
        return last
    default = paths.default_workspace()
    return default if default.is_dir() else Path.cwd()


class _Screenshooter:
    """Saves the window once indexing is done and the query's results are on screen."""

    def __init__(
        self, app: QApplication, window: window_mod.MainWindow, *, query: str | None, out: Path
    ) -> None:
        self._app = app
        self._window = window
        self._query = query or ""
        self._out = out
        self._synced = False
        self._shot = False
        session = window.session
        session.sync_finished.connect(self._on_session_sync_done)
        session.sync_failed.connect(self._on_session_sync_done)
        # A first start's model build: shoot after the notes are embedded with it.
        session.model_build_finished.connect(self._on_model_built)
        for signal in (
            session.idle_changed,
            session.results_changed,
            session.snapshot_changed,
            session.model_loading_changed,
        ):
            signal.connect(self._check)

    def _on_session_sync_done(self, _value: object) -> None:
        self._synced = True

    def _on_model_built(self, _path: object) -> None:
        self._synced = False  # the sync with the new model is still to come

    def _check(self, *_args: object) -> None:
        session = self._window.session
        if self._shot or not self._synced or session.is_syncing or session.snapshot is None:
            return
        if session.is_building_model:
            return
        if session.is_loading_model:
            return  # its results would be keyword-only: shoot the hybrid ones
        if self._query:
            results = session.results
            if session.search_pending or results is None or results.query != self._query:
                return
            if results.pool is not None and results.pool.model_loading:
                return  # keyword-only while the model loaded; the hybrid answer follows
        self._shot = True
        # Let one more event-loop pass lay out and paint the fresh rows first.
        QTimer.singleShot(300, self._shoot)

    def _shoot(self) -> None:
        table = self._window.results_table
        if table.model().rowCount() > 0:
            table.selectRow(0)
            self._window.search_panel.hit_activated.emit(self._window.search_panel.current_hit())
        QTimer.singleShot(200, self._save)

    def _save(self) -> None:
        self._out.parent.mkdir(parents=True, exist_ok=True)
        if QGuiApplication.platformName() == "offscreen":
            image = self._window.grab()
        else:
            # What the display really shows, read back from the screen (X server).
            image = self._window.screen().grabWindow(self._window.winId())
        ok = image.save(str(self._out))
        log.info("screenshot %s -> %s", "saved" if ok else "FAILED", self._out)
        self._window.close()
        self._app.exit(0 if ok else 1)


def run_gui(
    workspace: Path | None,
    model: str | None,
    query: str | None,
    screenshot: Path | None,
    *,
    verbose: bool = False,
    theme: str | None = None,
) -> int:
    """``memdesk gui``: run the app (or, with ``screenshot``, shoot it and exit).

    The caller has checked that Qt can open a window here (``platform_check.prepare``).
    """
    compat.apply_refcount_workaround()
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    app.setApplicationName("memdesk")
    # The desktop entry's name: lets the desktop match the window to its menu entry and icon.
    QGuiApplication.setDesktopFileName(assets.DESKTOP_ID)
    QApplication.setWindowIcon(assets.app_icon())
    data = paths.data_dir()
    log_file = logs.setup_logging(data, verbose=verbose)
    prefs = prefs_mod.Preferences(data / "memdesk.ini")
    # --theme wins for this run; otherwise the theme chosen in the View menu (default: the system's).
    chosen_theme = theme if theme is not None else prefs.theme()
    if chosen_theme != "system":
        ui_theme.apply_theme(app, chosen_theme)
    language = translations.install(app, prefs.language())
    log.info("platform %s, language %s", QGuiApplication.platformName(), language or "en")
    chosen = workspace if workspace is not None else _pick_workspace(prefs)
    model_spec = parse_model_spec(model if model is not None else prefs.model_choice())
    try:
        window = build_window(chosen, model=model_spec)
    except errors.MemdeskError as exc:
        log.error("cannot open %s: %s", chosen, exc)
        sys.stderr.write(f"memdesk: {exc}\n")
        return 2
    log.info("memdesk gui on %s (model %s); log at %s", chosen, model_spec, log_file)
    if screenshot is not None:
        window.set_window_size(*SCREENSHOT_SIZE)
        shooter = _Screenshooter(app, window, query=query, out=Path(screenshot))
        QTimer.singleShot(SCREENSHOT_TIMEOUT_MS, lambda: app.exit(1))
    else:
        shooter = None
    window.show()
    if query:
        window.search_input.setText(query)
    code = app.exec()
    del shooter  # held until here so its slots stay connected
    return code
