"""The status bar says what indexing is doing, with live counts, and never cuts a word."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel

from memdesk.core import engine as engine_mod
from memdesk.ui.fitted_label import ELLIPSIS, fit_text


@pytest.fixture
def fts_window(make_window, workspace: Path):  # type: ignore[no-untyped-def]
    return make_window(workspace, model=None)


LINE = "Embedding 340 / 2,000 chunks · keyword search ready · about 4 min left"


def test_fit_text_drops_whole_parts_then_whole_words(qapp) -> None:  # type: ignore[no-untyped-def]
    metrics = QLabel().fontMetrics()
    full = metrics.horizontalAdvance(LINE)
    words = LINE.split(" ")
    seen = set()
    for width in range(0, full + 20, 3):
        shown = fit_text(LINE, width, metrics)
        assert metrics.horizontalAdvance(shown) <= width or shown == ""
        seen.add(shown)
        if shown in ("", LINE):
            continue
        assert shown.endswith(ELLIPSIS)
        kept = shown.removesuffix(ELLIPSIS).split(" ")
        assert kept == words[: len(kept)], shown  # a prefix of whole words
    assert LINE in seen and "Embedding 340 / 2,000 chunks · keyword search ready…" in seen
    assert "" in seen


def test_embedding_progress_line(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """Live counts and "keyword search ready" while vectors are computed; narrow, still whole words."""
    window = fts_window
    label = window.freshness_label
    window.session.sync_progress.emit(engine_mod.SyncProgress(2000, 2000, 2000, "", "embed", 340, 2000))
    assert label.full_text() == "Embedding 340 / 2,000 chunks · keyword search ready"
    assert window.progress.format() == "340 / 2,000 chunks"
    # 785 px: as narrow as the window went while the Ranking column held it (it folds now,
    # and narrower the label gives its room to the progress bar, which says the counts).
    window.resize(785, 800)
    qtbot.waitUntil(lambda: label.text() != label.full_text(), timeout=5000)
    shown = label.text().removesuffix(ELLIPSIS)
    assert label.full_text().startswith(shown) and label.full_text()[len(shown)] in " ·"


def test_refining_passages_line_once_every_chunk_has_its_vector(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """The second phase (passage windows) has a short line of its own that no longer says
    the notes are being embedded or that search is keyword-only."""
    window = fts_window
    label = window.freshness_label
    window.session.sync_progress.emit(engine_mod.SyncProgress(2000, 2000, 2000, "", "embed", 2000, 2000))
    window.session.sync_progress.emit(engine_mod.SyncProgress(2000, 2000, 2000, "", "windows", 800, 2000))
    assert label.full_text() == "Refining passages · 40 %"
    assert window.progress.format() == "40 %" and window.progress.value() == 800
    assert "mbedding" not in label.full_text() and "keyword" not in label.full_text().lower()
    assert not window.status._embedding_notes


def test_a_real_sync_reports_keyword_search_ready_first(
    qtbot, make_window, workspace: Path, minilm_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """With a model, the keyword index is ready (and said so) before the vectors are done."""
    window = make_window(workspace, model=minilm_path, wait=False)
    session = window.session
    with qtbot.waitSignal(session.keyword_ready, timeout=120_000):
        pass
    # "Keyword search ready · embedding next", or already "Embedding 0 / 67 chunks · keyword
    # search ready" when the first embed report was queued right behind it.
    assert "keyword search ready" in window.freshness_label.full_text().lower()
    with qtbot.waitSignal(session.sync_finished, timeout=300_000) as finished:
        pass
    assert finished.args[0].mode == "hybrid" and finished.args[0].embedded > 0


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_status_bar_text_is_never_clipped(qtbot, fts_window, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """With large counts and a fallback reason, every status-bar text fits its widget: the
    progress bar is as wide as its text, labels get their width, and the one line that
    must give way shortens by whole words."""
    window = fts_window
    window.resize(*size)
    window.session.sync_progress.emit(
        engine_mod.SyncProgress(12000, 12000, 12000, "", "embed", 1_234, 12_345)
    )
    window.progress.setVisible(True)
    window.cancel_button.setVisible(True)
    bar = window.progress
    qtbot.waitUntil(lambda: bar.isVisible() and bar.width() > 0, timeout=5000)
    qtbot.waitUntil(lambda: bar.width() >= bar.fontMetrics().horizontalAdvance(bar.text()) + 8, timeout=5000)
    for label in (window.mode_label, window.model_label, window.counts_label):
        assert label.width() >= label.fontMetrics().horizontalAdvance(label.text()), label.objectName()
        assert not label.text().endswith("…") or label.text()[-2] != " ", label.text()
    fresh = window.freshness_label
    assert fresh.full_text().startswith(fresh.text().removesuffix(ELLIPSIS))
    assert fresh.fontMetrics().horizontalAdvance(fresh.text()) <= fresh.contentsRect().width()
    if size[0] >= 1920:
        assert fresh.text() == fresh.full_text()  # room for all of it


def test_fallback_reason_is_shortened_by_whole_words(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """The mode's reason never ends mid-word; the tooltip has all of it."""
    window = fts_window
    reason = "model unusable: the embedding of a probe sentence had non-finite values (NaN weights?)"
    window.mode_label.setText("")
    window.show_mode("fts", reason)
    text = window.mode_label.text()
    assert reason in window.mode_label.toolTip()
    words = set(reason.replace("(", " ").replace(")", " ").split())
    shown = text.split("(", 1)[1].rstrip(")").removesuffix("…").split()
    assert shown and all(word in words for word in shown), text


def test_mode_says_keyword_only_while_the_profiles_own_index_is_built(
    qtbot, make_window, workspace: Path, tmp_path: Path, minilm_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """An OpenClaw profile's searches are keyword-only while its own index is built in the
    background: the mode says so, with the build's progress, then "Hybrid" once it is ready."""
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "no-openclaw"))  # never the user's agent
    window = make_window(workspace, model=minilm_path)
    session = window.session
    mode = window.status.mode_label
    assert mode.text() == "Hybrid"
    shown: list[str] = []
    session.profile_index_progress.connect(lambda *_a: shown.append(mode.text()))
    combo = window.tuning.profile_combo
    with qtbot.waitSignal(session.profile_index_finished, timeout=300_000):
        combo.setCurrentIndex(combo.findData("openclaw-2026.4"))
        assert session.engine.preparing("openclaw-2026.4")
        assert mode.text().startswith("FTS-only (OpenClaw 2026.4 index"), mode.text()
        assert "keyword-only until its own index is ready" in mode.toolTip()
    assert all(t.startswith("FTS-only") and "%" in t for t in shown), shown
    # Built, but empty: 2026.4 cannot index the example with a 512-token model (a
    # 523-token chunk, as the real agent fails), so its searches find nothing, not "Hybrid".
    qtbot.waitUntil(lambda: mode.text().startswith("No search (OpenClaw 2026.4"), timeout=10_000)
    # Back to memdesk's own profile while another build runs: hybrid at once.
    combo.setCurrentIndex(combo.findData("memdesk"))
    assert mode.text() == "Hybrid"


def test_switching_workspace_mid_sync_does_not_say_indexing_cancelled(
    qtbot, make_window, workspace: Path, tmp_path: Path, minilm_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """The old workspace's sync, cancelled by the switch, reports after the new one is
    attached: its "Indexing cancelled" (and its idle) were shown for the new workspace."""
    window = make_window(workspace, model=minilm_path, wait=False)
    qtbot.waitUntil(lambda: window.session.is_syncing, timeout=30_000)
    old = window.session
    other = tmp_path / "other"
    (other / "memory").mkdir(parents=True)
    (other / "MEMORY.md").write_text("# Memory\n\nA second workspace.\n", encoding="utf-8")
    cancelled: list[object] = []
    old.sync_failed.connect(cancelled.append)
    with qtbot.waitSignal(window.session_replaced):
        window.open_workspace(other)
    qtbot.waitUntil(lambda: bool(cancelled), timeout=30_000)  # the old sync's report came
    qtbot.wait(50)
    assert window.statusBar().currentMessage() != "Indexing cancelled"
    if window.session.is_syncing:  # the new workspace's index: its progress stays shown
        assert window.status.progress.isVisible()


def test_mode_says_no_search_when_the_profiles_reindex_fails(
    qtbot, make_window, workspace: Path, tmp_path: Path, minilm_path: Path, hybrid_index: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """OpenClaw 2026.9 cannot index the example workspace with a 512-token model (a chunk
    over the context; the real agent's reindex fails the same way): its index is empty and
    its searches find nothing. The mode line and the results' summary say "No search" and
    why, in English and in Chinese, never "Hybrid"; memdesk's own profile is hybrid again."""
    from memdesk.qt import translations
    from tests.ui.conftest import search

    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "no-openclaw"))  # never the user's agent
    window = make_window(workspace, model=minilm_path, seed_index=hybrid_index)
    session = window.session
    mode = window.status.mode_label
    # The seeded index needs no embedding, so the first sync can end before the model
    # has loaded: the mode says so meanwhile ("FTS-only (loading the embedding model)").
    qtbot.waitUntil(lambda: mode.text() == "Hybrid", timeout=60_000)
    combo = window.tuning.profile_combo
    with qtbot.waitSignal(session.profile_index_finished, timeout=300_000):
        combo.setCurrentIndex(combo.findData("openclaw-2026.9"))
    failure = session.engine.profile_failure("openclaw-2026.9")
    assert failure is not None and failure.context == 512
    qtbot.waitUntil(lambda: mode.text() == "No search (OpenClaw 2026.9 cannot index)", timeout=10_000)
    assert f"a chunk is {failure.tokens} tokens" in mode.toolTip()
    results = search(qtbot, window, "deploy window")
    assert not results.hits
    summary = window.search_panel.summary.text()
    assert "· No search ·" in summary and "Hybrid" not in summary, summary
    try:
        window.set_language("zh_CN")
        assert translations.current_language() == "zh_CN"
        assert mode.text() == "未检索 (OpenClaw 2026.9 无法建立索引)", mode.text()
        assert "有一个片段长" in mode.toolTip()  # the whole reason, translated
        assert "混合检索" not in mode.text() and "混合检索" not in window.search_panel.summary.text()
        assert "未检索" in window.search_panel.summary.text()
    finally:
        window.set_language("en")
    combo.setCurrentIndex(combo.findData("memdesk"))
    assert mode.text() == "Hybrid"
