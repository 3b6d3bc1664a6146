"""Search as of a day in the window: the date picker, the banner, the marks, back to now."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import QDate, Qt

from memdesk.qt import models
from memdesk.ui import asof_banner
from tests.core.asof import scripted
from tests.ui.conftest import search

FERRY_QUERY = "who owns the ferry project"


def _window(qtbot, make_window, tmp_path: Path, minilm_path: Path):  # type: ignore[no-untyped-def]
    ws = tmp_path / "ws"
    ws.mkdir()
    scripted.scripted(ws)
    window = make_window(ws, model=minilm_path)
    search(qtbot, window, FERRY_QUERY)
    return window


def _choose_day(qtbot, window, day: QDate, *, hybrid: bool = True):  # type: ignore[no-untyped-def]
    """Search > Search as of a day…, pick ``day``, OK; wait for the snapshot's results
    (``hybrid``: those asked again once the day's changed chunks have their vectors)."""
    window.menus.as_of_action.trigger()
    dialog = window.findChild(asof_banner.AsOfDialog)
    assert dialog is not None and dialog.isVisible()
    dialog.date_edit.setDate(day)
    answers: list = []
    window.as_of.search.results.connect(answers.append)
    with qtbot.waitSignal(window.as_of.search.results, timeout=120_000):
        dialog.accept()
        # The index is built as a job: the banner says so while the window stays live.
        assert window.as_of.banner.isVisible()
        assert "Reading memory as it was on 2026-11-03" in window.as_of.banner.label.text()
    if hybrid:
        qtbot.waitUntil(lambda: answers[-1][1].result.pool.mode == "hybrid", timeout=120_000)
    window.as_of.search.results.disconnect(answers.append)
    return window.search_panel.model


def _rows(model: models.ResultsModel) -> dict[str, int]:
    rows: dict[str, int] = {}
    for i, hit in enumerate(model.hits):
        rows.setdefault(hit.path, i)
    return rows


def _badges(model: models.ResultsModel, row: int) -> list[str]:
    return model.index(row, models.column_index("location")).data(models.BadgesRole) or []


def test_as_of_banner_marks_and_esc_back_to_now(qtbot, make_window, tmp_path, minilm_path) -> None:  # type: ignore[no-untyped-def]
    window = _window(qtbot, make_window, tmp_path, minilm_path)
    assert "Marcus" in next(h for h in window.search_panel.model.hits if h.path == scripted.FERRY).text
    model = _choose_day(qtbot, window, QDate(2026, 11, 3))

    banner = window.as_of.banner
    assert banner.isVisible()
    assert banner.label.text() == "Memory as it was on 2026-11-03 · 2 notes differ now"
    rows = _rows(model)
    ferry = model.hits[rows[scripted.FERRY]]
    assert "Dana Whitfield" in ferry.text
    assert "changed since" in _badges(model, rows[scripted.FERRY])
    assert "MEMORY.md" in rows and _badges(model, rows["MEMORY.md"]) == []
    # The explanation says which version, and that the note changed since.
    window.results_table.selectRow(rows[scripted.FERRY])
    detail = window.search_panel.detail.toPlainText()
    assert "As it was on 2026-11-03: version" in detail and "Changed since" in detail

    assert "as they read then" in detail and "Dana Whitfield" in detail
    # Opened, the note is shown as it is now, without the old version's lines marked.
    qtbot.keyClick(window.results_table, Qt.Key.Key_Return)
    assert window.note_editor.current_rel == scripted.FERRY and window.note_editor.hit_lines is None
    assert "Marcus" in window.editor.toPlainText()

    # A slider move re-ranks the snapshot's hits, not the live ones.
    settings = window.session.settings
    with qtbot.waitSignal(window.as_of.search.results, timeout=30_000):
        window.session.set_settings(dataclasses.replace(settings, vector_weight=0.6, text_weight=0.4))
    assert "Dana Whitfield" in next(h for h in model.hits if h.path == scripted.FERRY).text

    # A new query is answered from the snapshot too: the note deleted on day 7 is there.
    with qtbot.waitSignal(
        window.as_of.search.results,
        timeout=30_000,
        check_params_cb=lambda a: a[0].query == "lighthouse migration",
    ):
        window.search_input.setText("lighthouse migration")
    rows = _rows(model)
    assert scripted.GONE in rows and _badges(model, rows[scripted.GONE]) == ["deleted since"]

    # The deleted note is not opened (an empty editor of its name would bring it back on save).
    window.results_table.selectRow(rows[scripted.GONE])
    qtbot.keyClick(window.results_table, Qt.Key.Key_Return)
    assert window.note_editor.current_rel != scripted.GONE
    gone_detail = window.search_panel.detail.toPlainText()
    assert "Deleted since" in gone_detail and "lighthouse migration" in gone_detail

    # Esc in the query box: back to now.
    window.search_input.setFocus()
    qtbot.keyClick(window.search_input, Qt.Key.Key_Escape)
    assert not banner.isVisible()
    qtbot.waitUntil(lambda: model.hits and scripted.GONE not in _rows(model), timeout=30_000)
    assert all(_badges(model, r) == [] for r in range(model.rowCount()))


def test_back_to_now_button(qtbot, make_window, tmp_path, minilm_path) -> None:  # type: ignore[no-untyped-def]
    window = _window(qtbot, make_window, tmp_path, minilm_path)
    clock = window.search_panel.clock_button
    live_clock = clock.full_text()
    model = _choose_day(qtbot, window, QDate(2026, 11, 3))
    assert "Dana Whitfield" in next(h for h in model.hits if h.path == scripted.FERRY).text
    # One clock on screen: the search bar's shows the day searched, and cannot be set then.
    assert clock.full_text() == "as of 2026-11-03" and not clock.isEnabled()
    qtbot.mouseClick(window.as_of.banner.back_button, Qt.MouseButton.LeftButton)
    assert not window.as_of.banner.isVisible() and not window.as_of.active
    assert clock.full_text() == live_clock and clock.isEnabled()
    qtbot.waitUntil(
        lambda: "Marcus" in next((h.text for h in model.hits if h.path == scripted.FERRY), ""), timeout=30_000
    )
    # Typing on searches memory as it is now.
    search(qtbot, window, "lighthouse migration")
    assert scripted.GONE not in _rows(model)


def test_banner_counts_again_when_notes_change(qtbot, make_window, tmp_path, minilm_path) -> None:  # type: ignore[no-untyped-def]
    """The agent rewrites MEMORY.md while a day is shown: the banner's count and the
    hit's mark follow (they were counted once, when the day opened)."""
    window = _window(qtbot, make_window, tmp_path, minilm_path)
    model = _choose_day(qtbot, window, QDate(2026, 11, 3))
    banner = window.as_of.banner
    assert banner.label.text() == "Memory as it was on 2026-11-03 · 2 notes differ now"
    assert _badges(model, _rows(model)["MEMORY.md"]) == []
    memory = window.session.workspace / "MEMORY.md"
    memory.write_text(scripted.MEMORY + "- The ferry project moved to Marcus.\n", encoding="utf-8")
    with qtbot.waitSignal(window.as_of.search.results, timeout=60_000):
        window.session.request_sync(["MEMORY.md"])
    qtbot.waitUntil(
        lambda: banner.label.text() == "Memory as it was on 2026-11-03 · 3 notes differ now", timeout=30_000
    )
    assert "MEMORY.md" in banner.label.toolTip()
    qtbot.waitUntil(lambda: "changed since" in _badges(model, _rows(model)["MEMORY.md"]), timeout=30_000)


def test_notes_the_history_had_not_seen_are_not_new_since(qtbot, make_window, tmp_path, minilm_path) -> None:  # type: ignore[no-untyped-def]
    """A note already in the workspace when memdesk first kept its history (today) was
    not seen on a past day: the banner does not count it as differing, it says from
    when the history knows it; on a day before any version it says where the history starts."""
    import datetime as dt

    ws = tmp_path / "ws"
    ws.mkdir()
    scripted.scripted(ws)
    scripted.write(ws, "memory/people/ana.md", "# Ana\n\nAna runs the ferry's pontoon tests.\n")
    window = make_window(ws, model=minilm_path)  # its first look keeps ana.md as first seen today
    search(qtbot, window, FERRY_QUERY)
    today = dt.date.today().isoformat()
    _choose_day(qtbot, window, QDate(2026, 11, 3))
    banner = window.as_of.banner
    assert banner.label.text() == (
        f"Memory as it was on 2026-11-03 · 2 notes differ now · 1 notes memdesk first saw on {today} "
        "are not known then"
    )
    tip = banner.label.toolTip()
    assert "first seen later): memory/people/ana.md" in tip and "New since: memory/people/ana.md" not in tip

    # Before the history's first version: it says where the history starts.
    window.as_of.back_to_now()
    window.menus.as_of_action.trigger()
    dialog = window.findChild(asof_banner.AsOfDialog)
    dialog.date_edit.setDate(QDate(2026, 10, 1))
    with qtbot.waitSignal(window.as_of.search.results, timeout=120_000):
        dialog.accept()
    assert banner.label.text() == (
        "Memory as it was on 2026-10-01 · memdesk's history of this workspace starts on "
        f"{scripted.BEFORE.astimezone().date().isoformat()}: it keeps no version from that day or before"
    )


def test_a_new_day_answers_keyword_first_then_hybrid(qtbot, make_window, tmp_path, minilm_path) -> None:  # type: ignore[no-untyped-def]
    """Day 3's ferry text was never embedded by the live index: the first answer does not
    wait for it (keyword-only, the banner says so), and the search is asked again, hybrid,
    once the day's changed chunks have their vectors."""
    window = _window(qtbot, make_window, tmp_path, minilm_path)
    answers: list = []
    window.as_of.search.results.connect(answers.append)
    # The embedding waits for the model's lock while the test holds it: the keyword-first
    # answer is seen before the changed chunks' vectors, however fast the machine.
    lock = window.session.engine.embed_lock
    lock.acquire()
    try:
        _choose_day(qtbot, window, QDate(2026, 11, 3), hybrid=False)
        first = answers[0][1]
        assert first.result.pool.mode == "fts"
        assert any("Dana Whitfield" in h.hit.text for h in first.hits if h.hit.path == scripted.FERRY)
        assert window.as_of.search.embedding_changes
        assert window.as_of.banner.label.text() == (
            "Memory as it was on 2026-11-03 · 2 notes differ now · "
            "keyword-only while 2 changed passages are embedded"
        )
    finally:
        lock.release()
    qtbot.waitUntil(lambda: answers[-1][1].result.pool.mode == "hybrid", timeout=120_000)
    assert answers[-1][0].query == FERRY_QUERY
    assert window.as_of.banner.label.text() == "Memory as it was on 2026-11-03 · 2 notes differ now"
    assert not window.as_of.search.embedding_changes
    window.as_of.search.results.disconnect(answers.append)
