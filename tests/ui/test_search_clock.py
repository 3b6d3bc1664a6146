"""The search bar's clock ("as of …", a calendar, kept per workspace), its folder and date
filters, and the line saying what an agent profile's decay hides. Real window, real
index; the notes are from 2023, as a conversation memory written back then."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from PySide6.QtCore import QDate, Qt, QTimer

from memdesk.core.search import filters
from memdesk.qt import preferences
from memdesk.ui import results_summary
from tests.ui.conftest import search


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def old_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "no-openclaw"))  # never the user's agent
    root = tmp_path / "ws"
    _write(root, "MEMORY.md", "# Memory\n\nMelanie is Caroline's friend; they talk every few weeks.\n")
    _write(
        root, "memory/2023-03-12.md", "# 2023-03-12\n\nMelanie went hiking in the mountains with her kids.\n"
    )
    _write(
        root, "memory/2023-05-20.md", "# 2023-05-20\n\nMelanie went hiking to a waterfall near her home.\n"
    )
    _write(root, "memory/2023-07-14.md", "# 2023-07-14\n\nMelanie went hiking by the lake and painted it.\n")
    _write(root, "memory/2023-10-22.md", "# 2023-10-22\n\nMelanie talked about her pottery class.\n")
    _write(root, "memory/people/melanie.md", "# Melanie\n\nLoves hiking, painting and pottery.\n")
    return root


def _pick(qtbot, window, day: dt.date | None) -> None:  # type: ignore[no-untyped-def]
    """Open the clock's popup from the keyboard and pick ``day`` (None: "Follow newest note")."""
    button = window.search_panel.clock_button

    def choose() -> None:
        if day is None:
            button.follow_button.click()
            return
        button.calendar.setSelectedDate(QDate(day.year, day.month, day.day))
        qtbot.keyClick(button.calendar.focusWidget() or button.calendar, Qt.Key.Key_Return)

    QTimer.singleShot(200, choose)
    button.setFocus()
    with qtbot.waitSignal(window.session.results_changed, timeout=30_000):
        qtbot.keyClick(button, Qt.Key.Key_Space)  # the popup's own loop runs until a pick


def test_the_clock_follows_the_newest_note_and_a_picked_day_is_kept_per_workspace(
    qtbot, make_window, old_memory: Path, tmp_path: Path, minilm_path: Path
) -> None:  # type: ignore[no-untyped-def]
    window = make_window(old_memory, model=minilm_path)
    button = window.search_panel.clock_button
    qtbot.waitUntil(lambda: window.session.clock == dt.date(2023, 10, 22), timeout=30_000)
    assert button.full_text() == "as of 2023-10-22 ▾"
    results = search(qtbot, window, "where did Melanie go hiking back in March")
    assert results.clock == dt.date(2023, 10, 22)
    assert results.hits[0].path == "memory/2023-03-12.md" and results.hits[0].date_boost > 0

    # A year later "March" is March 2024, when nothing was written: no date match.
    _pick(qtbot, window, dt.date(2024, 6, 1))
    assert window.session.clock == dt.date(2024, 6, 1) and button.full_text() == "as of 2024-06-01 (set) ▾"
    results = window.session.results
    assert results.clock == dt.date(2024, 6, 1) and not any(h.date_boost for h in results.hits)
    prefs = preferences.Preferences(tmp_path / "data" / "memdesk.ini")
    assert prefs.workspace_clock(old_memory) == dt.date(2024, 6, 1)
    assert prefs.workspace_clock(tmp_path) is None  # another workspace keeps its own

    window.close()
    again = make_window(old_memory, model=minilm_path)
    assert again.session.clock == dt.date(2024, 6, 1)
    assert again.search_panel.clock_button.full_text() == "as of 2024-06-01 (set) ▾"
    search(qtbot, again, "where did Melanie go hiking back in March")
    _pick(qtbot, again, None)  # follow the newest note again
    assert again.session.clock == dt.date(2023, 10, 22)
    assert again.session.results.hits[0].path == "memory/2023-03-12.md"
    assert preferences.Preferences(tmp_path / "data" / "memdesk.ini").workspace_clock(old_memory) is None


def test_folder_and_date_filters_from_the_popup(qtbot, make_window, old_memory: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(old_memory, model=None)
    button = window.search_panel.filter_button
    qtbot.waitUntil(lambda: button.folder_list.count() > 0, timeout=30_000)
    assert [button.folder_list.item(i).text() for i in range(button.folder_list.count())] == [
        "memory/",
        "memory/people/",
    ]
    everything = search(qtbot, window, "Melanie hiking")
    assert {"MEMORY.md", "memory/people/melanie.md", "memory/2023-03-12.md"} <= {
        h.path for h in everything.hits
    }

    with qtbot.waitSignal(window.session.results_changed, timeout=30_000):
        button.folder_list.item(1).setCheckState(Qt.CheckState.Checked)
    assert {h.path for h in window.session.results.hits} == {"memory/people/melanie.md"}
    assert button.full_text() == "Filter · 1 ▾"

    with qtbot.waitSignal(window.session.results_changed, timeout=30_000):
        button.folder_list.item(1).setCheckState(Qt.CheckState.Unchecked)
    button.since_edit.setDate(QDate(2023, 5, 1))
    button.until_edit.setDate(QDate(2023, 7, 31))
    with qtbot.waitSignal(window.session.results_changed, timeout=30_000):
        button.since_check.setChecked(True)
    with qtbot.waitSignal(window.session.results_changed, timeout=30_000):
        button.until_check.setChecked(True)
    assert window.session.filters == filters.SearchFilter.build(
        since=dt.date(2023, 5, 1), until=dt.date(2023, 7, 31)
    )
    assert {h.path for h in window.session.results.hits} == {"memory/2023-05-20.md", "memory/2023-07-14.md"}
    with qtbot.waitSignal(window.session.results_changed, timeout=30_000):
        button.clear_button.click()
    assert not window.session.filters.active and button.full_text() == "Filter ▾"


def test_an_agent_profile_says_what_its_decay_hides(
    qtbot, make_window, old_memory: Path, minilm_path: Path
) -> None:  # type: ignore[no-untyped-def]
    window = make_window(old_memory, model=minilm_path)
    search(qtbot, window, "where did Melanie go hiking")
    assert not window.search_panel.decay_note.isVisibleTo(window)  # memdesk's own profile
    with qtbot.waitSignal(
        window.session.results_changed, timeout=60_000, check_params_cb=lambda r: not r.reranked
    ):
        window.tuning.profile_combo.setCurrentIndex(window.tuning.profile_combo.findData("openclaw-2026.9"))
    # Its own index is built in the background first (keyword-only results meanwhile);
    # the search runs again when it is ready.
    qtbot.waitUntil(lambda: window.session.results.pool.mode == "hybrid", timeout=120_000)
    results = window.session.results
    assert results.settings.profile == "openclaw-2026.9"
    gap = results.decay_gap
    assert gap is not None and len(gap.hidden) >= 2
    line = window.search_panel.decay_note.text()
    assert line == results_summary.decay_line(results)
    assert line.startswith(
        f"Your agent's 30-day decay and minimum score 0.35 hide {len(gap.hidden)} older notes"
    )
    assert window.search_panel.decay_note.isVisibleTo(window)
    # Memory measured from the day after the March note: nothing older to hide there.
    _pick(qtbot, window, dt.date(2023, 3, 13))
    fresh = window.session.results.decay_gap
    assert fresh is not None and "memory/2023-03-12.md" not in fresh.hidden


def test_the_clock_and_filter_buttons_give_way_in_a_narrow_window(
    qtbot, make_window, old_memory: Path
) -> None:  # type: ignore[no-untyped-def]
    """Whole at 1280 px; in a narrow window they shrink to their ▾ instead of raising the
    window's minimum width (their whole texts made it 924 px)."""
    window = make_window(old_memory, model=None)
    clock, flt = window.search_panel.clock_button, window.search_panel.filter_button
    qtbot.waitUntil(lambda: window.session.clock == dt.date(2023, 10, 22), timeout=30_000)
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: clock.text() == clock.full_text() == "as of 2023-10-22 ▾", timeout=5_000)
    assert flt.text() == "Filter ▾"
    assert window.minimumSizeHint().width() <= 800
    window.resize(400, 800)
    qtbot.waitUntil(lambda: clock.text() == "▾" and flt.text() == "▾", timeout=5_000)
    assert clock.full_text() == "as of 2023-10-22 ▾"  # still said whole by the tooltip's owner


def test_a_typed_filter_date_searches_once_committed(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Typing 2023-07-14 into the From box passes through other valid days: no search
    runs for them; one runs with the whole date on Return, and one after a pause."""
    from memdesk.ui import search_filters

    button = search_filters.FilterButton()
    qtbot.addWidget(button)
    emitted: list[filters.SearchFilter] = []
    button.filters_changed.connect(emitted.append)
    button.since_edit.setDate(QDate(2020, 1, 1))
    button.since_check.setChecked(True)
    assert [f.since for f in emitted] == [dt.date(2020, 1, 1)]
    edit = button.since_edit
    edit.show()
    qtbot.waitExposed(edit)
    edit.setFocus()
    edit.setSelectedSection(edit.Section.YearSection)
    qtbot.keyClicks(edit, "2023")
    qtbot.keyClick(edit, Qt.Key.Key_Right)
    edit.setSelectedSection(edit.Section.MonthSection)
    qtbot.keyClicks(edit, "07")
    edit.setSelectedSection(edit.Section.DaySection)
    qtbot.keyClicks(edit, "14")
    assert edit.date() == QDate(2023, 7, 14)
    assert len(emitted) == 1, [f.since for f in emitted]  # none while typing
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert [f.since for f in emitted] == [dt.date(2020, 1, 1), dt.date(2023, 7, 14)]

    # Typed, then left alone: the date is taken after a moment, once.
    edit.setSelectedSection(edit.Section.DaySection)
    qtbot.keyClicks(edit, "20")
    assert len(emitted) == 2
    qtbot.waitUntil(lambda: len(emitted) == 3, timeout=search_filters.DATE_SETTLE_MS * 3)
    assert emitted[-1].since == dt.date(2023, 7, 20)
    qtbot.wait(search_filters.DATE_SETTLE_MS + 200)
    assert len(emitted) == 3


def test_the_filter_popup_is_usable_from_the_keyboard(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Tab goes from the folders to From, its date, To…: the menu took the focus and the
    date boxes could not be reached without a mouse."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication

    from memdesk.ui import search_filters

    button = search_filters.FilterButton()
    qtbot.addWidget(button)
    button.set_folders(["memory", "memory/people"])
    button.show()
    qtbot.waitExposed(button)
    emitted: list[filters.SearchFilter] = []
    button.filters_changed.connect(emitted.append)
    button.popup.popup(button.mapToGlobal(QPoint(0, button.height())))
    qtbot.waitUntil(lambda: QApplication.focusWidget() is button.folder_list, timeout=2000)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is button.since_check
    qtbot.keyClick(button.since_check, Qt.Key.Key_Space)
    assert button.since_check.isChecked() and emitted and emitted[-1].since is not None
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is button.since_edit
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Backtab)
    assert QApplication.focusWidget() is button.since_check
    button.popup.close()
