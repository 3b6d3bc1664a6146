"""Start-up: the window does not wait for the embedding model, and keyword search answers
while the model loads in the background (benchmarks/startup.py measures the times)."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from PySide6.QtCore import QEvent, QObject

from memdesk import app
from memdesk.core import paths
from memdesk.core.embed import gguf_embedder
from tests.ui.conftest import search, wait_idle

LOAD_GATE_S = 120.0


class _ShowSpy(QObject):
    """Records, at the window's Show event, whether the model was loaded then."""

    def __init__(self, window) -> None:  # type: ignore[no-untyped-def]
        super().__init__(window)
        self.window = window
        self.at_show: dict[str, bool] = {}

    def eventFilter(self, obj, event) -> bool:  # type: ignore[no-untyped-def]  # Qt override
        if obj is self.window and event.type() == QEvent.Type.Show and not self.at_show:
            session = self.window.session
            self.at_show = {"loaded": session.engine.embedder.loaded, "loading": session.is_loading_model}
        return False


def test_window_shows_before_the_model_loads_and_keyword_search_works_meanwhile(
    qtbot,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    workspace: Path,
    minilm_path: Path,
    hybrid_index: Path,
    monkeypatch,
) -> None:
    """The model's load is held back (as a slow disk or a large model would): the window
    still shows at once, says the model is loading, and a query gets keyword results;
    when the load finishes the same query turns hybrid without retyping."""
    gate = threading.Event()
    real_load = gguf_embedder.GgufEmbedder.load

    def held_load(self: gguf_embedder.GgufEmbedder) -> None:
        gate.wait(LOAD_GATE_S)
        real_load(self)

    monkeypatch.setattr(gguf_embedder.GgufEmbedder, "load", held_load)
    data_dir = tmp_path / "data"
    target = data_dir / "indexes" / paths.index_path_for(workspace).name
    target.parent.mkdir(parents=True)
    for suffix in ("", "-wal"):  # the example already embedded: this test is about loading
        if Path(f"{hybrid_index}{suffix}").exists():
            shutil.copy2(f"{hybrid_index}{suffix}", f"{target}{suffix}")
    try:
        window = app.build_window(workspace, model=minilm_path, data_dir=data_dir)
        window.confirm_unsaved = lambda names: "discard"  # type: ignore[method-assign]
        qtbot.addWidget(window)
        spy = _ShowSpy(window)
        window.installEventFilter(spy)
        window.resize(1280, 800)
        window.show()
        qtbot.waitExposed(window)
        assert spy.at_show == {"loaded": False, "loading": True}
        session = window.session
        assert session.is_loading_model and not session.engine.embedder.loaded

        results = search(qtbot, window, "Atlas database decision")
        assert results.hits, "keyword search must answer while the model loads"
        assert results.pool is not None and results.pool.mode == "fts"
        assert not session.engine.embedder.loaded  # the search did not wait for the model
        assert "keyword-only while the model loads" in window.search_panel.summary.text()
        # The status bar's mode says what searches do now, not what the index could do.
        qtbot.waitUntil(lambda: window.mode_label.text().startswith("FTS-only"))
        assert "loading the embedding model" in window.mode_label.text()

        with qtbot.waitSignal(
            session.model_loading_changed, timeout=int(LOAD_GATE_S * 1000), check_params_cb=lambda on: not on
        ):
            gate.set()
        qtbot.waitUntil(
            lambda: (
                session.results is not None
                and session.results.pool is not None
                and session.results.pool.mode == "hybrid"
            ),
            timeout=60_000,
        )
        assert session.results.query == "Atlas database decision" and session.results.hits
        wait_idle(qtbot, window)
        qtbot.waitUntil(lambda: window.mode_label.text() == "Hybrid", timeout=10_000)
    finally:
        gate.set()  # never leave a loader thread parked behind the gate


def test_the_first_window_keeps_startup_objects_out_of_full_collections(make_window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A full pass of the cyclic collector over the app's startup objects froze the
    window while indexing (the indexer's thread held the GIL through it): they are
    frozen once the first window is built, and only then."""
    import gc

    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text("# MEMORY.md\n\n- tea\n", encoding="utf-8")
    make_window(workspace)
    frozen = gc.get_freeze_count()
    assert frozen > 0
    make_window(workspace, wait=False)
    assert gc.get_freeze_count() == frozen  # a second window does not freeze again


class _PaintSpy(QObject):
    """Records, at each of the window's own Paint events, whether its session's
    background work was still held back."""

    def __init__(self, window) -> None:  # type: ignore[no-untyped-def]
        super().__init__(window)
        self.window = window
        self.held_at_paint: list[bool] = []

    def eventFilter(self, obj, event) -> bool:  # type: ignore[no-untyped-def]  # Qt override
        if obj is self.window and event.type() == QEvent.Type.Paint:
            self.held_at_paint.append(self.window.session.background_held)
        return False


def test_the_first_frame_is_painted_before_the_first_index_starts_its_work(
    qtbot, tmp_path: Path, workspace: Path
) -> None:  # type: ignore[no-untyped-def]
    """The model load and the first sync start with the window (the status bar says so)
    but wait for its first frame, which would otherwise be drawn while they take the
    GIL and the cores; once it is painted they go ahead."""
    window = app.build_window(workspace, model=None, data_dir=tmp_path / "data")
    window.confirm_unsaved = lambda names: "discard"  # type: ignore[method-assign]
    qtbot.addWidget(window)
    session = window.session
    assert session.is_syncing and session.background_held
    spy = _PaintSpy(window)
    window.installEventFilter(spy)  # called before the window's own first-frame filter
    window.resize(1280, 800)
    window.show()
    qtbot.waitUntil(lambda: not session.background_held, timeout=5_000)
    assert spy.held_at_paint[:1] == [True]  # the first frame came while the work waited
    wait_idle(qtbot, window)
    assert session.snapshot is not None and session.snapshot.status is not None
    assert session.snapshot.status.files > 0
