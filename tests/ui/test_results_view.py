"""The results table shows the match: centred snippets with whole-term highlights, fitted
headers and paths, plain-words explanations, and keyboard flow. Real window, real index."""

from __future__ import annotations

import dataclasses
import itertools
import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QSlider

from memdesk.core.search import highlight
from memdesk.core.search import hits as hits_mod
from memdesk.core.search.settings import SearchSettings
from memdesk.qt import models
from memdesk.ui import result_delegates, search_panel
from tests.ui.conftest import search


@pytest.fixture
def fts_window(make_window, workspace: Path):  # type: ignore[no-untyped-def]
    return make_window(workspace, model=None)


def _snippet(window, row: int) -> tuple[str, list[tuple[int, int]]]:  # type: ignore[no-untyped-def]
    index = window.search_panel.model.index(row, models.column_index("snippet"))
    return index.data(), index.data(models.SpansRole)


def test_snippet_is_centred_on_the_match(qtbot, fts_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """A match deep inside a long chunk is what the snippet shows, highlighted."""
    filler = " ".join(f"filler{i}" for i in range(160))
    (workspace / "memory" / "topics" / "long-note.md").write_text(
        f"# Long note\n\n{filler}\n\nThe quokkaberry rollout moved to March.\n", encoding="utf-8"
    )
    fts_window.session.request_sync(["memory/topics/long-note.md"])
    qtbot.waitUntil(lambda: not fts_window.session.is_syncing, timeout=30_000)
    results = search(qtbot, fts_window, "quokkaberry rollout")
    row = next(i for i, h in enumerate(results.hits) if h.path.endswith("long-note.md"))
    assert results.hits[row].snippet.startswith("# Long note")  # the stored snippet is the start
    text, spans = _snippet(fts_window, row)
    assert text.startswith("… ")
    assert "quokkaberry" in text and "filler0 " not in text
    assert {text[s:e].lower() for s, e in spans} == {"quokkaberry", "rollout"}


def test_highlights_whole_terms_only(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """``deploy`` marks deploy/deploys/deployed, never "holiday"; ``Zhou Hang`` never "Shanghai"."""
    results = search(qtbot, fts_window, "deploy freeze holidays")
    marked: set[str] = set()
    for row in range(len(results.hits)):
        text, spans = _snippet(fts_window, row)
        marked |= {text[s:e].lower() for s, e in spans}
    assert marked and marked <= {
        "deploy",
        "deploys",
        "deployed",
        "deployment",
        "freeze",
        "holiday",
        "holidays",
    }
    search(qtbot, fts_window, "Zhou Hang Shanghai office")
    terms = fts_window.search_panel.model.keyword_terms
    sample = "Zhou Hang flew from Shanghai; hang on."
    marked = [sample[s:e] for s, e in highlight.match_spans(sample, terms)]
    assert marked == ["Zhou", "Hang", "Shanghai", "hang"]
    assert highlight.match_spans("Shanghai", highlight.KeywordTerms.for_query("Zhou Hang")) == []


def test_highlight_marks_exactly_the_terms_the_keyword_leg_searched(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """One list of terms: the keyword leg's. "Atlas" is in more than half of the example's
    chunks, so the leg leaves it out of the match (FTS5 clamps its idf to nothing); no
    snippet marks it, while the words the leg did search for are marked."""
    results = search(qtbot, fts_window, "Atlas database decision")
    assert results.pool is not None
    assert "atlas" not in results.pool.query_terms and "database" in results.pool.query_terms
    assert fts_window.search_panel.model.keyword_terms.terms == results.pool.query_terms
    marked: set[str] = set()
    for row in range(len(results.hits)):
        text, spans = _snippet(fts_window, row)
        marked |= {text[s:e].lower() for s, e in spans}
    assert "atlas" not in marked
    assert marked & {"database", "databases", "decision", "decisions"}


def test_cjk_terms_highlight_as_the_index_matched(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """A two-character Chinese query lights up inside a longer run, as its bigram matched."""
    results = search(qtbot, fts_window, "鉴权")
    assert results.hits
    found = False
    for row in range(len(results.hits)):
        text, spans = _snippet(fts_window, row)
        assert all(text[s:e] in ("鉴权",) for s, e in spans), [text[s:e] for s, e in spans]
        found |= bool(spans)
    assert found


def test_paths_elide_with_tooltip_and_headers_fit(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """Folders elide before the file name; every header's text fits its column."""
    metrics = QFontMetrics(fts_window.results_table.font())
    text = "memory/decisions/deploy-cadence.md:1-20"
    short = result_delegates.elide_location(
        text, metrics.horizontalAdvance("deploy-cadence.md:1-20…/"), metrics
    )
    assert short == "…/deploy-cadence.md:1-20"
    results = search(qtbot, fts_window, "deploy cadence")
    model = fts_window.search_panel.model
    tip = model.index(0, models.column_index("location")).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith(results.hits[0].path)
    header = fts_window.results_table.horizontalHeader()
    header_metrics = header.fontMetrics()
    for i, column in enumerate(models.COLUMNS[:-1]):
        if header.isSectionHidden(i):
            continue
        label = model.headerData(i, Qt.Orientation.Horizontal)
        assert header.sectionSize(i) >= header_metrics.horizontalAdvance(label) + 8, column.key


def test_the_snippet_gets_the_room_columns_with_nothing_to_say_leave(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """At 1280×800 the snippet holds two lines of about 40 characters or more: Decay
    is hidden while decay is off (every row would read 1.000), the MMR ranks while MMR
    is off, and each comes back when its switch is turned on."""
    table = fts_window.results_table
    header = table.horizontalHeader()
    decay, pre_mmr, mmr = (models.column_index(k) for k in ("decay", "pre_mmr", "mmr"))
    snippet = models.column_index("snippet")
    tuning = fts_window.tuning

    def retune(**changes: object) -> None:
        with qtbot.waitSignal(fts_window.session.results_changed, timeout=30_000):
            tuning.set_settings(tuning.settings.replace(**changes))

    search(qtbot, fts_window, "deploy cadence")
    assert not tuning.settings.decay and tuning.settings.mmr  # the memdesk defaults
    assert header.isSectionHidden(decay)
    assert not header.isSectionHidden(pre_mmr) and not header.isSectionHidden(mmr)
    qtbot.waitUntil(lambda: header.sectionSize(snippet) >= table.fontMetrics().averageCharWidth() * 40)
    assert header.sectionSize(snippet) >= 0.35 * table.viewport().width()

    retune(decay=True)
    assert not header.isSectionHidden(decay)
    retune(decay=False, mmr=False)
    assert header.isSectionHidden(decay) and header.isSectionHidden(pre_mmr) and header.isSectionHidden(mmr)
    retune(mmr=True)
    assert not header.isSectionHidden(mmr)


def test_new_results_scroll_to_top(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """After scrolling down, a new query's first row is fully visible at the top."""
    table = fts_window.results_table
    search(qtbot, fts_window, "Atlas")
    bar = table.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=5000)  # laid out: the rows overflow
    bar.setValue(bar.maximum())
    assert bar.value() > 0
    search(qtbot, fts_window, "Atlas database")
    assert table.verticalScrollBar().value() == 0
    assert table.visualRect(table.model().index(0, 1)).top() >= 0


def test_a_change_on_disk_keeps_selection_scroll_explanation_and_editor(
    qtbot, fts_window, workspace: Path
) -> None:  # type: ignore[no-untyped-def]
    """The search runs again when a note changes on disk. Same hits: the selection,
    the table's and the explanation's scroll and the editor stay as they were. The
    selected hit's own note changed inside its lines (a new chunk): it is selected
    again by note and lines, with the same scroll, and the open note is reloaded
    without moving the editor's cursor, scroll or the hit's marks."""
    panel, table, edit = fts_window.search_panel, fts_window.results_table, fts_window.editor
    session = fts_window.session
    results = search(qtbot, fts_window, "Atlas")
    bar, detail_bar = table.verticalScrollBar(), panel.detail.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=5000)
    row = next(
        i for i, h in enumerate(results.hits[:4]) if len((workspace / h.path).read_text().splitlines()) > 30
    )
    table.selectRow(row)
    hit = panel.current_hit()
    panel.hit_activated.emit(hit)  # open it in the editor, its matched lines marked
    bar.setValue(bar.maximum())  # the selected row is out of sight now
    qtbot.waitUntil(lambda: detail_bar.maximum() > 0, timeout=5000)
    detail_bar.setValue(detail_bar.maximum())
    assert bar.value() > 0 and detail_bar.value() > 0 and edit.verticalScrollBar().value() > 0

    def state() -> tuple[object, ...]:
        current = panel.current_hit()
        return (
            (current.path, current.start_line, current.end_line) if current else None,
            bar.value(),
            detail_bar.value(),
            bool(panel.detail.toPlainText()),
            edit.textCursor().blockNumber(),
            edit.verticalScrollBar().value(),
            fts_window.note_editor.matched_line_numbers(),
        )

    answers: list[object] = []
    session.results_changed.connect(answers.append)

    def change_and_wait(path: Path, old: str, new: str) -> None:
        """Change ``path``; wait until a sync indexed it and the search after it answered."""
        rel = path.relative_to(workspace).as_posix()
        synced: list[int] = []

        def on_synced(report: object) -> None:
            if rel in getattr(report, "indexed_paths", ()):
                synced.append(len(answers))

        session.sync_finished.connect(on_synced)
        path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
        qtbot.waitUntil(
            lambda: bool(synced) and len(answers) > synced[0] and not session.is_syncing, timeout=30_000
        )
        session.sync_finished.disconnect(on_synced)

    before = state()
    shown = {h.path for h in results.hits}
    unrelated = next(p for p in sorted((workspace / "memory").glob("*.md")) if p.name not in str(shown))
    change_and_wait(unrelated, "\n", "\nA line about watering the tomatoes.\n")
    assert [h.chunk_id for h in session.results.hits] == [h.chunk_id for h in results.hits]
    assert state() == before

    path = workspace / hit.path
    line = path.read_text(encoding="utf-8").splitlines()[hit.start_line - 1]
    change_and_wait(path, line + "\n", line + " (edited on disk)\n")
    assert hit.chunk_id not in {h.chunk_id for h in session.results.hits}  # a new chunk
    assert edit.document().findBlockByNumber(hit.start_line - 1).text().endswith("(edited on disk)")
    assert state() == before


def test_explanation_in_plain_words(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """The pane says which words matched where, the weights as on the sliders, decay in days,
    and the rank without MMR and without decay."""
    fts_window.tuning.set_settings(fts_window.tuning.settings.replace(decay=True, half_life_days=90))
    results = search(qtbot, fts_window, "deploy freeze")
    fts_window.results_table.selectRow(0)
    text = fts_window.search_panel.detail.toPlainText()
    hit = results.hits[0]
    assert "Words matched" in text and "“" in text and "line" in text
    assert "keyword-only mode" in text  # no model: the weights do not apply, and it says so
    if hit.date is not None:
        assert "days old, half-life 90 days" in text
    assert "without decay: rank" in text and f"without MMR: rank {hit.pre_mmr_rank}" in text


def test_weights_shown_as_on_the_sliders(
    qtbot,
    make_window,
    workspace: Path,
    minilm_path: Path,  # type: ignore[no-untyped-def]
    hybrid_index: Path,
) -> None:
    """In hybrid mode the formula uses the slider values, and their sum when it is not 1."""
    window = make_window(workspace, model=minilm_path, seed_index=hybrid_index)
    window.findChild(QSlider, "vectorWeightSlider").setValue(16)  # 0.80
    window.findChild(QSlider, "textWeightSlider").setValue(8)  # 0.40
    search(qtbot, window, "which database did we choose")
    window.results_table.selectRow(0)
    text = window.search_panel.detail.toPlainText()
    assert "0.80 × vector" in text and "0.40 × text" in text and "÷ 1.20" in text
    assert "how close the meaning is" in text


def test_score_columns_explain_themselves(fts_window) -> None:  # type: ignore[no-untyped-def]
    """Each score column's header tooltip says in words what the number is."""
    model = fts_window.search_panel.model
    words = {
        "vector": "meaning",
        "text": "words match",
        "decay": "Age",
        "final": "MMR order",
        "pre_mmr": "before MMR",
        "mmr": "near-duplicates",
    }
    for key, word in words.items():
        tip = model.headerData(
            models.column_index(key), Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole
        )
        assert word in tip, key


def test_mmr_order_is_explained_in_the_summary(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """When MMR puts a lower final score above a higher one, the summary line says why."""
    settings = fts_window.tuning.settings.replace(mmr=True, mmr_lambda=0.3)
    fts_window.tuning.set_settings(settings)
    for query in ("Atlas deploy", "deploy Wednesday", "Atlas database SQLite", "Mara Lin Wei"):
        results = search(qtbot, fts_window, query)
        scores = [h.score for h in results.hits]
        disordered = any(a < b for a, b in itertools.pairwise(scores))
        assert ("MMR order" in fts_window.search_panel.summary.text()) == disordered
        if disordered:
            return
    pytest.fail("no query produced an MMR re-ordering to check")


def test_keyboard_flow_between_search_and_results(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """Down enters the results, Enter opens the hit even from the ✓ column, Esc goes back."""
    results = search(qtbot, fts_window, "deploy cadence")
    fts_window.activateWindow()
    fts_window.search_input.setFocus()
    qtbot.keyClick(fts_window.search_input, Qt.Key.Key_Down)
    table = fts_window.results_table
    assert table.hasFocus() and table.currentIndex().row() == 0
    table.setCurrentIndex(table.model().index(1, models.column_index("relevant")))
    with qtbot.waitSignal(fts_window.search_panel.hit_activated) as opened:
        qtbot.keyClick(table, Qt.Key.Key_Return)
    assert opened.args[0].chunk_id == results.hits[1].chunk_id
    assert fts_window.note_editor.current_rel == results.hits[1].path
    table.setCurrentIndex(table.model().index(0, models.column_index("final")))
    with qtbot.waitSignal(fts_window.search_panel.relevance_toggled) as ticked:
        qtbot.keyClick(table, Qt.Key.Key_Space)  # ticks from any column
    assert ticked.args == [results.hits[0], True]
    qtbot.keyClick(table, Qt.Key.Key_Escape)
    assert fts_window.search_input.hasFocus()


def test_tab_leaves_the_results_for_the_explanation(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """Tab moves the focus on from the results (whose rows are selected whole) to the
    explanation pane, keeping the selected hit; Shift+Tab comes back."""
    search(qtbot, fts_window, "deploy cadence")
    fts_window.activateWindow()
    fts_window.search_input.setFocus()
    qtbot.keyClick(fts_window.search_input, Qt.Key.Key_Down)
    table = fts_window.results_table
    qtbot.keyClick(table, Qt.Key.Key_Down)
    assert table.hasFocus() and table.currentIndex().row() == 1
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    detail = fts_window.search_panel.detail
    qtbot.waitUntil(detail.hasFocus, timeout=5000)
    assert table.currentIndex().row() == 1
    qtbot.keyClick(detail, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(table.hasFocus, timeout=5000)


def test_enter_right_after_typing_opens_the_new_querys_top_hit(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """Enter pressed before the typed query's results are shown (the debounce has not
    fired) opens that query's top hit, not the top hit still in the table from the
    query before."""
    old = search(qtbot, fts_window, "deploy cadence")
    fts_window.activateWindow()
    fts_window.search_input.setFocus()
    fts_window.search_input.setText("vector store decision")
    with qtbot.waitSignal(fts_window.search_panel.hit_activated, timeout=30_000) as opened:
        qtbot.keyClick(fts_window.search_input, Qt.Key.Key_Return)
    results = fts_window.session.results
    assert results.query == "vector store decision"
    assert opened.args[0].chunk_id == results.hits[0].chunk_id != old.hits[0].chunk_id
    assert fts_window.note_editor.current_rel == results.hits[0].path


def test_explanation_says_what_recency_did(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """A current-state question gets the recency bonus, and the pane shows the rank without it."""
    results = search(qtbot, fts_window, "what day do we deploy now")
    moved = next((i for i, h in enumerate(results.hits) if h.rank_without_recency not in (None, h.rank)), 0)
    fts_window.results_table.selectRow(moved)
    text = fts_window.search_panel.detail.toPlainText()
    hit = results.hits[moved]
    assert hit.recency > 0 and "Recency +" in text and "asks for the current state" in text
    assert f"without recency: rank {hit.rank_without_recency}" in text
    # ... on the pane's first line too, which a short pane shows without scrolling.
    assert text.splitlines()[0].endswith(
        f"rank {hit.rank} · without recency: rank {hit.rank_without_recency}"
    )
    dated = next(i for i, h in enumerate(results.hits) if h.date is not None and h.recency > 0)
    fts_window.results_table.selectRow(dated)
    age = (results.clock - results.hits[dated].date).days  # measured from the search clock
    assert (
        f"{age} days old, half-life 90 days (at most +0.10)" in fts_window.search_panel.detail.toPlainText()
    )
    # A question about history gets none.
    results = search(qtbot, fts_window, "when did we originally decide on PostgreSQL")
    fts_window.results_table.selectRow(0)
    assert all(h.recency == 0 for h in results.hits)
    text = fts_window.search_panel.detail.toPlainText()
    assert re.search(r"Recency \+0(?![.\d])", text)
    assert "does not ask for the current state" in text
    # A question about a past occasion says so too, with recency on.
    results = search(qtbot, fts_window, "what did we end up choosing during the offsite?")
    assert fts_window.tuning.settings.recency and all(h.recency == 0 for h in results.hits)
    fts_window.results_table.selectRow(0)
    assert "does not ask for the current state" in fts_window.search_panel.detail.toPlainText()
    # With recency off there is nothing to explain.
    fts_window.tuning.recency_check.setChecked(False)
    fts_window.results_table.selectRow(0)
    assert "Recency +" not in fts_window.search_panel.detail.toPlainText()


def _hit(rank: int, path: str, *, keyword_only: bool = False) -> hits_mod.Hit:
    return hits_mod.Hit(
        rank=rank,
        chunk_id=f"{path}#{'k' if keyword_only else 'h'}",
        path=path,
        source="memory",
        start_line=1,
        end_line=9,
        snippet="the deploy freeze moved to Thursday",
        text="# Note\n\nthe deploy freeze moved to Thursday\n" * 6,
        vector_score=None if keyword_only else 0.7,
        text_score=0.5,
        merged_score=0.6,
        decay=1.0,
        score=0.6,
        pre_mmr_rank=rank,
        mmr_rank=None,
        date=None,
    )


def test_the_selection_and_scroll_come_back_after_a_shorter_answer(qtbot) -> None:  # type: ignore[no-untyped-def]
    """While a changed note is embedded the same query answers keyword-only (other
    hits, fewer rows); the full answer after it gets the selection, the table's scroll
    and the explanation's back."""
    panel = search_panel.SearchPanel()
    qtbot.addWidget(panel)
    panel.resize(900, 300)
    panel.show()
    panel.detail.resize(400, 150)  # the window lays the explanation out beside the note
    panel.detail.show()
    qtbot.waitExposed(panel)
    settings = SearchSettings.defaults("memdesk")
    full = [_hit(i + 1, f"memory/note-{i}.md") for i in range(10)]
    short = [_hit(i + 1, f"memory/note-{i}.md", keyword_only=True) for i in (4, 7)]

    def show(hits: list[hits_mod.Hit]) -> None:
        panel.show_results(hits, terms=["deploy"], settings=settings, summary="", query="deploy")

    show(full)
    panel.table.selectRow(1)
    bar, detail_bar = panel.table.verticalScrollBar(), panel.detail.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and detail_bar.maximum() > 0, timeout=5000)
    bar.setValue(bar.maximum())
    detail_bar.setValue(detail_bar.maximum())
    before = (bar.value(), detail_bar.value())
    show(short)
    assert panel.current_hit() is None  # not among the keyword-only answer's hits
    show(full)
    assert panel.current_hit() == full[1]
    assert (bar.value(), detail_bar.value()) == before
    # There, but keyword-only: the same note and lines, a shorter explanation.
    show([short[0], _hit(2, "memory/note-1.md", keyword_only=True), short[1]])
    assert panel.current_hit().path == "memory/note-1.md"  # type: ignore[union-attr]
    show(full)
    assert panel.current_hit() == full[1]
    assert (bar.value(), detail_bar.value()) == before
    # A line added above it moved its range: the chunk of that note that shares most
    # of its lines is the one selected again.
    moved = [*full[:1], dataclasses.replace(full[1], chunk_id="moved", start_line=2, end_line=10), *full[2:]]
    show(moved)
    assert panel.current_hit() is moved[1]
    # Once the user scrolls on their own, theirs is the place kept.
    bar.setValue(0)
    show(short)
    show(full)
    assert bar.value() == 0
