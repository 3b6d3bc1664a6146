"""GUI test fixtures: offscreen Qt, a private MEMDESK_HOME, a copy of the example workspace,
and helpers that wait on the window's signals (never on sleeps)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from memdesk.qt import compat
from tests.ui import modal

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
compat.apply_refcount_workaround()  # PySide6 6.12.0 under-counts None/True/False

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "workspace"
SYNC_TIMEOUT_MS = 120_000  # the first hybrid index embeds ~70 chunks on 2 cores


def _copy_example(target: Path) -> Path:
    if EXAMPLE.is_dir():
        shutil.copytree(EXAMPLE, target)
    else:  # the example workspace is written elsewhere; keep the suite runnable without it
        (target / "memory").mkdir(parents=True)
        (target / "MEMORY.md").write_text("# Memory\n\nLin Wei prefers tea.\n", encoding="utf-8")
        (target / "memory" / "2026-06-01.md").write_text(
            "# 2026-06-01\n\nDecided SQLite for the Atlas database.\n", encoding="utf-8"
        )
    return target


@pytest.fixture(autouse=True)
def _no_answer_outlives_its_test() -> object:
    """A dialog answer a test set up and no dialog took must not answer the next
    test's dialog (see ``tests/ui/modal.py``)."""
    yield
    modal.drop_pending()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return _copy_example(tmp_path / "workspace")


@pytest.fixture(scope="session")
def hybrid_index(minilm_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the example workspace embedded once with MiniLM, copied into each test.

    Embedding the workspace takes a minute on a busy 2-core machine; the copies keep
    file mtimes (copytree uses copy2), so each test's first sync finds nothing to redo.
    """
    from memdesk.core import engine

    root = tmp_path_factory.mktemp("hybrid-template")
    ws = _copy_example(root / "workspace")
    # A session fixture is set up before each test's own MEMDESK_HOME (tests/conftest.py):
    # without one of its own, the sync's note history went to the user's data dir.
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MEMDESK_HOME", str(root / "home"))
        eng = engine.Engine.open(ws, model=minilm_path, db_path=root / "index.sqlite")
        try:
            eng.sync()
        finally:
            eng.close()
    return root / "index.sqlite"


@pytest.fixture
def make_window(qtbot, tmp_path: Path) -> Callable[..., object]:  # type: ignore[no-untyped-def]
    """Build a main window with ``app.build_window`` and wait for its first index job."""
    from memdesk import app

    def make(
        workspace: Path,
        *,
        model: object = None,
        wait: bool = True,  # type: ignore[no-untyped-def]
        seed_index: Path | None = None,
    ):
        data_dir = tmp_path / "data"
        if seed_index is not None:
            from memdesk.core import paths

            target = data_dir / "indexes" / paths.index_path_for(workspace).name
            target.parent.mkdir(parents=True, exist_ok=True)
            for suffix in ("", "-wal"):
                if Path(f"{seed_index}{suffix}").exists():
                    shutil.copy2(f"{seed_index}{suffix}", f"{target}{suffix}")
        window = app.build_window(workspace, model=model, data_dir=data_dir)
        # Tests never answer modal prompts: unsaved notes are discarded at teardown.
        window.confirm_unsaved = lambda count: "discard"  # type: ignore[method-assign]
        qtbot.addWidget(window)
        window.resize(1280, 800)
        window.show()
        if wait:
            wait_idle(qtbot, window)
        return window

    return make


def wait_idle(qtbot, window, timeout: int = SYNC_TIMEOUT_MS) -> None:  # type: ignore[no-untyped-def]
    """Wait until the model is loaded (searches are keyword-only before), no index job
    runs or is queued, and the tree shows the result."""
    session = window.session
    if session.is_loading_model:
        with qtbot.waitSignal(
            session.model_loading_changed, timeout=timeout, check_params_cb=lambda loading: not loading
        ):
            pass
    if session.is_syncing:
        with qtbot.waitSignal(session.idle_changed, timeout=timeout, check_params_cb=lambda idle: idle):
            pass
        # Requested when the job ended; older snapshot answers are dropped as stale.
        with qtbot.waitSignal(session.snapshot_changed, timeout=timeout):
            pass


def search(qtbot, window, text: str, timeout: int = 30_000):  # type: ignore[no-untyped-def]
    """Type ``text`` into the query box and wait for its results."""
    with qtbot.waitSignal(
        window.session.results_changed, timeout=timeout, check_params_cb=lambda r: r.query == text
    ):
        window.search_input.setText(text)
    return window.session.results


def wait_synced(qtbot, window, timeout: int = SYNC_TIMEOUT_MS) -> None:  # type: ignore[no-untyped-def]
    """Wait for the next index job to finish and the tree/status to refresh."""
    with qtbot.waitSignal(window.session.sync_finished, timeout=timeout):
        pass
    with qtbot.waitSignal(window.session.snapshot_changed, timeout=timeout):
        pass
