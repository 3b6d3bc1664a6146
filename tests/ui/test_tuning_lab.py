"""The tuning lab: relevance ticks saved to the golden set, a live quality
readout that only re-ranks cached pools, and auto-tune in the background with Apply.

Real window, real threads, real SQLite (keyword-only index of the example workspace).
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QThread
from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QPushButton, QSlider, QTableView, QWidget

from memdesk.core import errors
from memdesk.core.eval import golden as eval_golden
from memdesk.core.eval import tune as eval_tune
from memdesk.core.search import settings as settings_mod
from memdesk.qt import models
from memdesk.qt import session as session_mod
from memdesk.ui import tuning_panel
from tests.ui.conftest import REPO, search, wait_idle

EXAMPLE_GOLDEN = REPO / "examples" / "golden.jsonl"
# English queries the keyword index answers, so FTS-only scores are meaningful.
QUERIES = (
    "why did we switch from pgvector to sqlite-vec",
    "what day do we deploy now",
    "who is the Atlas tech lead",
    "deploy freeze over the holidays",
)


def _write_golden(workspace: Path, queries: tuple[str, ...] | None = QUERIES) -> Path:
    lines = EXAMPLE_GOLDEN.read_text(encoding="utf-8").splitlines()
    keep = [line for line in lines if queries is None or json.loads(line)["query"] in queries]
    target = workspace / eval_golden.GOLDEN_REL
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(keep) + "\n", encoding="utf-8")
    return target


def _wait_readout(qtbot, lab, scored: int, timeout: int = 30_000):  # type: ignore[no-untyped-def]
    """Wait until every labelled query has its pool and the readout covers ``scored``."""

    def ready(readout) -> bool:  # type: ignore[no-untyped-def]
        return readout is not None and readout.fetching == 0 and readout.scored == scored

    if not (ready(lab.readout) and not lab.is_fetching):
        with qtbot.waitSignal(lab.readout_changed, timeout=timeout, check_params_cb=ready):
            pass
    return lab.readout


def _count_engine_fetches(monkeypatch, engine) -> list[str]:  # type: ignore[no-untyped-def]
    """Record every ``fetch_candidates`` call (any thread): the only path to SQLite/embedder."""
    calls: list[str] = []
    real = engine.fetch_candidates

    def counting(query, settings, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(query)
        return real(query, settings, **kwargs)

    monkeypatch.setattr(engine, "fetch_candidates", counting)
    return calls


def _check_cell(qtbot, table: QTableView, row: int) -> None:  # type: ignore[no-untyped-def]
    rect = table.visualRect(table.model().index(row, models.column_index("relevant")))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


@pytest.fixture
def fts_window(make_window, workspace: Path):  # type: ignore[no-untyped-def]
    return make_window(workspace, model=None)


@pytest.fixture
def golden_window(make_window, workspace: Path):  # type: ignore[no-untyped-def]
    _write_golden(workspace)
    window = make_window(workspace, model=None)
    # Decay and MMR are off by default; these tests tune their sliders, so switch them on.
    for name in ("decayCheck", "mmrCheck"):
        window.findChild(QCheckBox, name).setChecked(True)
    return window


def test_quality_panel_replaces_placeholder(fts_window) -> None:  # type: ignore[no-untyped-def]
    panel = fts_window.findChild(QWidget, "qualityPanel")
    assert panel is fts_window.quality
    assert panel.findChild(QPushButton, "autoTuneButton") is not None
    assert "No labelled queries" in panel.count_label.text()
    assert not panel.tune_button.isEnabled()  # nothing to tune on yet


def test_tick_hit_writes_golden_label(qtbot, fts_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Ticking a hit saves ``path#Lstart-Lend`` for the query; unticking removes it;
    running the query again shows the tick."""
    query = "Atlas tech lead"
    search(qtbot, fts_window, query)
    table = fts_window.results_table
    model = table.model()
    assert model.rowCount() >= 2
    first, second = model.hit(0), model.hit(1)
    golden_file = workspace / ".memdesk" / "golden.jsonl"
    assert not golden_file.exists()

    with qtbot.waitSignal(fts_window.lab.golden_changed):
        _check_cell(qtbot, table, 0)
    label = f"{first.path}#L{first.start_line}-L{first.end_line}"
    (saved,) = [json.loads(line) for line in golden_file.read_text(encoding="utf-8").splitlines()]
    assert (saved["query"], saved["relevant"]) == (query, [label])
    assert list(saved["anchors"]) == [label]  # the label is tied to the text it labels
    assert eval_golden.load_golden(golden_file)[0].relevant == (eval_golden.Relevant.parse(label),)
    check = models.column_index("relevant")
    assert model.index(0, check).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    assert not list(golden_file.parent.glob(".*.tmp"))  # atomic write left no temp file
    assert fts_window.note_editor.current_rel != first.path  # ticking does not open the note

    with qtbot.waitSignal(fts_window.lab.golden_changed):
        _check_cell(qtbot, table, 1)
    (entry,) = [json.loads(line) for line in golden_file.read_text(encoding="utf-8").splitlines()]
    assert entry["relevant"] == [label, f"{second.path}#L{second.start_line}-L{second.end_line}"]

    with qtbot.waitSignal(fts_window.lab.golden_changed):
        _check_cell(qtbot, table, 1)  # untick
    (entry,) = [json.loads(line) for line in golden_file.read_text(encoding="utf-8").splitlines()]
    assert entry["relevant"] == [label]

    # Another query, then back: the labelled query shows its tick again.
    search(qtbot, fts_window, "deploy")
    assert all(
        model.index(r, check).data(Qt.ItemDataRole.CheckStateRole) != Qt.CheckState.Checked
        for r in range(model.rowCount())
    )
    search(qtbot, fts_window, query)
    row = next(r for r in range(model.rowCount()) if model.hit(r).chunk_id == first.chunk_id)
    assert model.index(row, check).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked

    with qtbot.waitSignal(fts_window.lab.readout_changed, check_params_cb=lambda r: r.labelled == 0):
        _check_cell(qtbot, table, row)  # the last label goes: the query leaves the file
    assert golden_file.read_text(encoding="utf-8") == ""
    assert "No labelled queries" in fts_window.quality.count_label.text()


def test_labelled_query_gets_a_pool_and_a_score(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """The first tick adds the query to the readout once its generous pool arrives."""
    search(qtbot, fts_window, "deploy freeze")
    lab = fts_window.lab
    with qtbot.waitSignal(lab.golden_changed):
        _check_cell(qtbot, fts_window.results_table, 0)
    readout = _wait_readout(qtbot, lab, scored=1)
    assert readout.labelled == 1 and readout.items == 1
    assert readout.scores is not None and readout.scores.ndcg10 > 0
    pool = lab.pools["deploy freeze"]
    assert pool.timings_ms["pool_size"] == 200  # fetched generously, not with the UI's 40
    assert fts_window.quality.ndcg_value.text() == f"{readout.scores.ndcg10:.3f}"


def test_partial_tick_for_file_labels(qtbot, golden_window) -> None:  # type: ignore[no-untyped-def]
    """A hit inside a whole-file label counts as relevant: it shows a partial tick."""
    query = "what day do we deploy now"
    results = search(qtbot, golden_window, query)
    relevant = golden_window.lab.relevant_for(query)
    model = golden_window.search_panel.model
    check = models.column_index("relevant")
    states = {
        h.chunk_id: model.index(r, check).data(Qt.ItemDataRole.CheckStateRole)
        for r, h in enumerate(results.hits)
    }
    inside = [h for h in results.hits if any(r.matches(h) for r in relevant)]
    assert inside
    for hit in results.hits:
        own = eval_golden.hit_item(hit) in relevant
        expected = (
            Qt.CheckState.Checked
            if own
            else Qt.CheckState.PartiallyChecked
            if hit in inside
            else Qt.CheckState.Unchecked
        )
        assert states[hit.chunk_id] == expected


def test_readout_follows_sliders_without_fetching(qtbot, golden_window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Moving a slider re-scores the golden set from cached pools: no reader request, no
    SQLite query, and the shown numbers change."""
    lab = golden_window.lab
    readout = _wait_readout(qtbot, lab, scored=len(QUERIES))
    assert readout.labelled == len(QUERIES) and readout.scores is not None
    panel = golden_window.quality
    assert f"{len(QUERIES)} labelled queries" in panel.count_label.text()
    assert panel.ndcg_value.text() == f"{readout.scores.ndcg10:.3f}"
    assert panel.recall_value.text() == f"{readout.scores.recall10:.3f}"

    engine_calls = _count_engine_fetches(monkeypatch, golden_window.session.engine)
    lab_fetches, session_fetches = lab.fetch_count, golden_window.session.fetch_count
    shown = panel.ndcg_value.text()
    slider = golden_window.findChild(QSlider, "mmrLambdaSlider")
    with qtbot.waitSignal(lab.readout_changed, timeout=5000) as blocker:
        slider.setValue(slider.minimum())  # λ = 0: pure diversity
    after = blocker.args[0]
    assert after.settings.mmr_lambda == 0.0
    assert after.scores.ndcg10 != pytest.approx(readout.scores.ndcg10)
    assert panel.ndcg_value.text() != shown
    assert panel.ndcg_delta.text().startswith("▼")

    half_life = golden_window.findChild(QSlider, "halfLifeSlider")
    with qtbot.waitSignal(lab.readout_changed, timeout=5000) as blocker:
        half_life.setValue(half_life.minimum())
    assert blocker.args[0].settings.half_life_days == 1

    assert engine_calls == []  # nothing reached SQLite or the embedder
    assert lab.fetch_count == lab_fetches
    assert golden_window.session.fetch_count == session_fetches
    # Scored at the search clock (the workspace's newest dated note), as the results are.
    clock = golden_window.session.clock
    expected = eval_golden.score_golden(
        lab.pools, lab.golden.queries, golden_window.tuning.settings, now=clock
    )
    assert lab.readout.scores.ndcg10 == pytest.approx(expected.ndcg10)


def test_profile_switch_and_index_change_refetch_pools(qtbot, golden_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Pools are fetched again, on the reader thread, when the profile or the index changes."""
    lab = golden_window.lab
    _wait_readout(qtbot, lab, scored=len(QUERIES))
    fetches = lab.fetch_count
    threads: set[str] = set()
    lab._fetcher.fetched.connect(
        lambda _r: threads.add(QThread.currentThread().objectName()), Qt.ConnectionType.DirectConnection
    )
    combo = golden_window.findChild(QComboBox, "profileCombo")
    combo.setCurrentIndex(combo.findData("openclaw"))
    readout = _wait_readout(qtbot, lab, scored=len(QUERIES))
    assert lab.fetch_count == fetches + len(QUERIES)
    # "openclaw" is the alias of the newest OpenClaw profile.
    assert {p.profile for p in lab.pools.values()} == {"openclaw-2026.9"}
    assert readout.settings.profile == "openclaw-2026.9"
    assert threads == {session_mod.READER_THREAD_NAME}

    fetches = lab.fetch_count
    with qtbot.waitSignal(
        lab.readout_changed,
        timeout=60_000,
        check_params_cb=lambda r: lab.fetch_count > fetches and r.fetching == 0,
    ):
        (workspace / "memory" / "2026-06-03.md").write_text(
            "# 2026-06-03\n\nThe deploy freeze over the holidays starts Dec 20.\n", encoding="utf-8"
        )
    assert lab.fetch_count == fetches + len(QUERIES)


def test_auto_tune_in_background_then_apply(qtbot, golden_window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Auto-tune runs on its own thread with progress, reports before ≤ after, proposes
    settings and moves the sliders only when Apply is clicked."""
    lab = golden_window.lab
    _wait_readout(qtbot, lab, scored=len(QUERIES))
    poor = golden_window.tuning.settings.replace(mmr_lambda=0.0, half_life_days=3)
    with qtbot.waitSignal(lab.readout_changed):
        golden_window.tuning.set_settings(poor)
    engine_calls = _count_engine_fetches(monkeypatch, golden_window.session.engine)
    panel = golden_window.quality
    threads: set[object] = set()
    progress: list[tuple[int, int]] = []
    lab.tune_progress.connect(lambda n, total: progress.append((n, total)))
    real_auto_tune = eval_tune.auto_tune

    def recording_auto_tune(*args, **kwargs):  # type: ignore[no-untyped-def]
        threads.add(threading.current_thread() is threading.main_thread())
        return real_auto_tune(*args, **kwargs)

    monkeypatch.setattr(eval_tune, "auto_tune", recording_auto_tune)
    assert panel.tune_button.isEnabled()
    with qtbot.waitSignal(lab.tune_finished, timeout=120_000) as blocker:
        panel.tune_button.click()
        assert lab.is_tuning  # click returned while the search runs elsewhere
        assert panel.cancel_button.isVisibleTo(panel)
    result = blocker.args[0]
    assert threads == {False}  # never on the GUI thread
    assert progress and progress[-1][0] == progress[-1][1] == result.tried
    assert result.before.ndcg10 <= result.after.ndcg10
    assert result.before.ndcg10 == pytest.approx(lab.readout.scores.ndcg10)
    assert result.settings != poor  # λ = 0 is never the best here
    assert panel.result_box.isVisibleTo(panel)
    text = panel.result_label.text()
    assert f"{result.before.ndcg10:.3f} → {result.after.ndcg10:.3f}" in text
    assert "MMR lambda 0.00 →" in text
    # Nothing applied yet.
    assert golden_window.tuning.settings == poor
    slider = golden_window.findChild(QSlider, "mmrLambdaSlider")
    assert slider.value() == slider.minimum()

    with qtbot.waitSignal(lab.readout_changed, timeout=5000):
        panel.apply_button.click()
    assert golden_window.tuning.settings == result.settings
    for name, object_name in tuning_panel.SLIDER_NAMES.items():
        field = settings_mod.FIELDS[name]
        assert golden_window.findChild(QSlider, object_name).value() == tuning_panel.to_slider(
            field, getattr(result.settings, name)
        ), name
    assert golden_window.session.settings == result.settings
    assert lab.readout.scores.ndcg10 == pytest.approx(result.after.ndcg10)
    assert not panel.result_box.isVisibleTo(panel)
    assert engine_calls == []  # tuning and applying only re-ranked cached pools


def test_auto_tune_cancel(qtbot, golden_window) -> None:  # type: ignore[no-untyped-def]
    """Cancel stops the grid search; the sliders stay as they were."""
    lab = golden_window.lab
    _wait_readout(qtbot, lab, scored=len(QUERIES))
    before = golden_window.tuning.settings
    panel = golden_window.quality
    with qtbot.waitSignal(lab.tune_failed, timeout=60_000) as blocker:
        panel.tune_button.click()
        panel.cancel_button.click()
    assert isinstance(blocker.args[0], errors.Cancelled)
    assert not lab.is_tuning
    assert "cancelled" in panel.status.text()
    assert not panel.result_box.isVisibleTo(panel)
    assert golden_window.tuning.settings == before
    assert panel.tune_button.isEnabled()


def test_golden_set_survives_reopening(qtbot, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Labels live in the workspace: a new window reads them back and scores them."""
    shutil.rmtree(workspace / ".memdesk", ignore_errors=True)
    window = make_window(workspace, model=None)
    search(qtbot, window, "who is the Atlas tech lead")
    with qtbot.waitSignal(window.lab.golden_changed):
        _check_cell(qtbot, window.results_table, 0)
    window.close()
    again = make_window(workspace, model=None)
    readout = _wait_readout(qtbot, again.lab, scored=1)
    assert readout.labelled == 1
    assert again.lab.relevant_for("who is the Atlas tech lead")


def test_unreadable_golden_file_is_never_overwritten(qtbot, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """A malformed golden file is reported and left alone: ticks are refused, not saved."""
    target = workspace / eval_golden.GOLDEN_REL
    target.parent.mkdir(parents=True)
    target.write_text('{"query": "x", "relevant": ["MEMORY.md"]}\nnot json\n', encoding="utf-8")
    window = make_window(workspace, model=None)
    assert "golden.jsonl:2" in window.quality.status.text()
    search(qtbot, window, "Atlas")
    with qtbot.waitSignal(window.lab.failed):
        _check_cell(qtbot, window.results_table, 0)
    assert target.read_text(encoding="utf-8").endswith("not json\n")
    check = models.column_index("relevant")
    assert (
        window.search_panel.model.index(0, check).data(Qt.ItemDataRole.CheckStateRole)
        == Qt.CheckState.Unchecked
    )


def test_hybrid_readout_follows_vector_weight(
    qtbot,
    make_window,
    workspace: Path,  # type: ignore[no-untyped-def]
    minilm_path: Path,
    hybrid_index: Path,
    monkeypatch,
) -> None:
    """With embeddings, the weights move the readout too, still from cached pools only."""
    golden = _write_golden(workspace, None)  # every example query, Chinese ones included
    count = len(golden.read_text(encoding="utf-8").splitlines())
    window = make_window(workspace, model=minilm_path, seed_index=hybrid_index)
    lab = window.lab
    readout = _wait_readout(qtbot, lab, scored=count, timeout=120_000)
    assert {p.mode for p in lab.pools.values()} == {"hybrid"}
    engine_calls = _count_engine_fetches(monkeypatch, window.session.engine)
    vector = window.findChild(QSlider, "vectorWeightSlider")
    text = window.findChild(QSlider, "textWeightSlider")
    with qtbot.waitSignal(lab.readout_changed, timeout=5000):
        text.setValue(text.minimum())
    with qtbot.waitSignal(lab.readout_changed, timeout=5000) as blocker:
        vector.setValue(vector.maximum())
    vector_only = blocker.args[0].scores
    with qtbot.waitSignal(lab.readout_changed, timeout=5000):
        vector.setValue(vector.minimum())
    with qtbot.waitSignal(lab.readout_changed, timeout=5000) as blocker:
        text.setValue(text.maximum())
    text_only = blocker.args[0].scores
    assert vector_only.ndcg10 != pytest.approx(text_only.ndcg10)
    assert readout.scores is not None
    assert engine_calls == [] and lab.fetch_count == count


def test_opening_another_workspace_swaps_the_lab(qtbot, golden_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The lab follows the workspace: another folder brings its own (empty) golden set."""
    old_lab = golden_window.lab
    _wait_readout(qtbot, old_lab, scored=len(QUERIES))
    other = tmp_path / "other"
    (other / "memory").mkdir(parents=True)
    (other / "MEMORY.md").write_text("# Memory\n\nNothing labelled here.\n", encoding="utf-8")
    with qtbot.waitSignal(golden_window.session_replaced):
        golden_window.open_workspace(other)
    assert not golden_window.session.background_held  # the window has painted: no wait
    assert golden_window.lab is not old_lab
    assert golden_window.quality.lab is golden_window.lab
    readout = _wait_readout(qtbot, golden_window.lab, scored=0)
    assert readout.labelled == 0
    assert "No labelled queries" in golden_window.quality.count_label.text()
    wait_idle(qtbot, golden_window)


def test_tuned_settings_stay_with_their_workspace(
    qtbot, golden_window, workspace: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Auto-tune's applied values are kept beside the workspace's golden set, the panel
    says what they were tuned on, and another workspace starts from its own (defaults),
    also in a window opened later."""
    from memdesk.core.eval import tuned as eval_tuned

    window = golden_window
    lab = window.lab
    _wait_readout(qtbot, lab, scored=len(QUERIES))
    with qtbot.waitSignal(lab.readout_changed):
        window.tuning.set_settings(window.tuning.settings.replace(vector_weight=0.1, text_weight=0.9))
    with qtbot.waitSignal(lab.tune_finished, timeout=120_000) as blocker:
        window.quality.tune_button.click()
    result = blocker.args[0]
    assert result.settings != window.tuning.settings  # something to apply
    window.quality.apply_button.click()
    assert window.tuning.settings == result.settings
    assert window.tuning.status.text() == f"Tuned on {len(QUERIES)} queries of this workspace"
    # Written once the sliders settle (one write per drag, not per step).
    qtbot.waitUntil(lambda: eval_tuned.load_tuning(workspace).current() == result.settings, timeout=5000)
    saved = eval_tuned.load_tuning(workspace)
    assert saved.tuned_queries(result.settings.profile) == len(QUERIES)
    # Not in the user's preferences, which every workspace would read.
    assert "vector_weight" not in (
        window.prefs.path.read_text(encoding="utf-8") if window.prefs.path.exists() else ""
    )

    other = tmp_path / "other"
    (other / "memory").mkdir(parents=True)
    (other / "MEMORY.md").write_text("# Memory\n\nNothing labelled here.\n", encoding="utf-8")
    with qtbot.waitSignal(window.session_replaced):
        window.open_workspace(other)
    defaults = settings_mod.SearchSettings.defaults(result.settings.profile)
    assert window.tuning.settings == defaults
    assert window.session.settings == defaults
    assert window.lab.settings == defaults
    assert window.tuning.status.text() == ""
    wait_idle(qtbot, window)

    with qtbot.waitSignal(window.session_replaced):
        window.open_workspace(workspace)
    assert window.tuning.settings == result.settings
    assert window.tuning.status.text() == f"Tuned on {len(QUERIES)} queries of this workspace"
    # A slider moved by hand: the values stay the workspace's, no longer "tuned on".
    window.tuning.set_settings(result.settings.replace(max_results=3))
    assert window.tuning.status.text() == ""
    wait_idle(qtbot, window)


def test_old_global_settings_do_not_reach_a_workspace(
    qtbot, make_window, workspace: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Values an older memdesk kept for every workspace (preferences' search/tuned/*) are
    not applied to a workspace that has no settings of its own."""
    from memdesk.qt import preferences as prefs_mod

    prefs = prefs_mod.Preferences(tmp_path / "data" / "memdesk.ini")
    prefs.set_search_settings(settings_mod.SearchSettings().replace(vector_weight=0.9, text_weight=0.1))
    prefs.sync()
    window = make_window(workspace, model=None)
    assert window.tuning.settings == settings_mod.SearchSettings()
    assert window.session.settings == settings_mod.SearchSettings()
    assert "not applied here" in window.statusBar().currentMessage()  # said, not silently dropped


def test_auto_tune_from_the_keyboard_keeps_the_focus_in_the_panel(qtbot, golden_window) -> None:  # type: ignore[no-untyped-def]
    """Space on Auto-tune: the focus waits on Cancel, then lands on Apply; it had jumped
    to the notes' filter box when the button it was on was disabled (seen on a display)."""
    window = golden_window
    panel, lab = window.quality, window.lab
    _wait_readout(qtbot, lab, scored=len(QUERIES))
    with qtbot.waitSignal(lab.readout_changed):
        window.tuning.set_settings(window.tuning.settings.replace(mmr=True, mmr_lambda=0.0))
    window.activateWindow()
    panel.tune_button.setFocus()
    qtbot.waitUntil(panel.tune_button.hasFocus)
    with qtbot.waitSignal(lab.tune_finished, timeout=120_000):
        qtbot.keyClick(panel.tune_button, Qt.Key.Key_Space)
        assert panel.cancel_button.hasFocus()
    assert panel.apply_button.isEnabled()
    assert panel.apply_button.hasFocus(), QApplication.focusWidget()
