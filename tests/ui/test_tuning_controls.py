"""Sliders and profiles: a logarithmic half-life with a spin box, tuned values kept per
profile, and colours that stay readable in light and dark palettes."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QComboBox, QSlider, QSpinBox

from memdesk.core.search import settings as settings_mod
from memdesk.ui import theme, tuning_panel
from tests.ui.conftest import search, wait_idle


@pytest.fixture
def fts_window(make_window, workspace: Path):  # type: ignore[no-untyped-def]
    return make_window(workspace, model=None)


def test_half_life_slider_is_logarithmic_with_a_spin_box(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """The slider's middle is ~60 days, not ~1,800; the spin box sets exact days."""
    fts_window.tuning.decay_check.setChecked(True)
    slider = fts_window.findChild(QSlider, "halfLifeSlider")
    spin = fts_window.findChild(QSpinBox, "halfLifeSliderSpin")
    field = settings_mod.FIELDS["half_life_days"]
    assert (spin.minimum(), spin.maximum()) == (field.minimum, field.maximum)
    slider.setValue((slider.minimum() + slider.maximum()) // 2)
    assert 50 <= fts_window.tuning.settings.half_life_days <= 70
    assert spin.value() == fts_window.tuning.settings.half_life_days
    spin.setValue(45)
    assert fts_window.tuning.settings.half_life_days == 45
    assert slider.value() == tuning_panel.to_slider(field, 45)
    slider.setValue(slider.maximum())
    assert fts_window.tuning.settings.half_life_days == field.maximum
    # Every day from 1 to 30 is reachable by the slider itself (fine steps at the low end).
    reachable = {tuning_panel.from_slider(field, p) for p in range(slider.maximum() + 1)}
    assert set(range(1, 31)) <= reachable


def test_each_profile_keeps_its_tuned_values(qtbot, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Switching profile and back restores the tuned values; Reset gives the defaults;
    both profiles' values survive a restart."""
    window = make_window(workspace, model=None)
    combo = window.findChild(QComboBox, "profileCombo")
    lam = window.findChild(QSlider, "mmrLambdaSlider")
    lam.setValue(lam.value() - 5)
    tuned = window.tuning.settings
    assert tuned != settings_mod.SearchSettings.defaults("memdesk")
    combo.setCurrentIndex(combo.findData("openclaw"))
    assert window.tuning.settings == settings_mod.SearchSettings.defaults("openclaw")
    window.findChild(QSlider, "maxResultsSlider").setValue(9)
    openclaw_tuned = window.tuning.settings
    combo.setCurrentIndex(combo.findData("memdesk"))
    assert window.tuning.settings == tuned
    combo.setCurrentIndex(combo.findData("openclaw"))
    assert window.tuning.settings == openclaw_tuned
    window.close()
    again = make_window(workspace, model=None, wait=False)
    assert again.tuning.settings == openclaw_tuned
    again_combo = again.findChild(QComboBox, "profileCombo")
    again_combo.setCurrentIndex(again_combo.findData("memdesk"))
    assert again.tuning.settings == tuned
    again.tuning.reset_button.click()
    assert again.tuning.settings == settings_mod.SearchSettings.defaults("memdesk")
    again_combo.setCurrentIndex(again_combo.findData("openclaw"))
    assert again.tuning.settings == openclaw_tuned  # Reset touched only the current profile
    wait_idle(qtbot, again)


@pytest.mark.parametrize("dark", [False, True])
def test_highlight_colours_follow_the_palette(qtbot, fts_window, dark: bool) -> None:  # type: ignore[no-untyped-def]
    """Matched-term, matched-line and score-bar colours keep text readable (WCAG 4.5:1)."""
    app = QApplication.instance()
    old = app.palette()
    palette = theme.dark_palette() if dark else app.style().standardPalette()
    app.setPalette(palette)
    try:
        qtbot.waitUntil(lambda: theme.is_dark(fts_window.palette()) == dark, timeout=5000)
        text = palette.color(QPalette.ColorRole.Text)
        for color in (
            theme.match_background(palette),
            theme.matched_line_background(palette),
            theme.hit_lines_background(palette),
            theme.find_background(palette),
        ):
            assert theme.contrast(color, text) >= 4.5, color.name()
        search(qtbot, fts_window, "deploy freeze")
        fts_window.results_table.selectRow(0)
        fts_window.search_panel.hit_activated.emit(fts_window.search_panel.current_hit())
        selections = fts_window.editor.extraSelections()
        assert selections
        background = selections[0].format.background().color()
        assert theme.contrast(background, text) >= 4.5
        # The editor's Markdown colours switched to the set made for this palette.
        highlighter = fts_window.note_editor.highlighter_for(fts_window.note_editor.current_rel)
        assert highlighter is not None and highlighter.dark == dark
    finally:
        app.setPalette(old)


def test_recency_check_box_sets_recency_and_keeps_the_half_life_live(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """Recency is on by default (memdesk); its half-life slider stays usable with decay off."""
    tuning = fts_window.tuning
    slider = fts_window.findChild(QSlider, "halfLifeSlider")
    assert tuning.settings.recency and not tuning.settings.decay
    assert tuning.recency_check.isChecked() and slider.isEnabled()
    tuning.recency_check.setChecked(False)
    assert tuning.settings.recency is False and not slider.isEnabled()
    tuning.recency_check.setChecked(True)
    assert tuning.settings.recency is True and slider.isEnabled()
    tuning.profile_combo.setCurrentIndex(tuning.profile_combo.findData("openclaw"))
    assert not tuning.recency_check.isEnabled()  # OpenClaw has no recency


def test_recency_weight_slider_reranks_and_rewords_the_explanation(qtbot, fts_window) -> None:  # type: ignore[no-untyped-def]
    """The recency weight has its own slider: moving it re-ranks the shown hits at once
    and the explanation's bonus and its "at most" follow; it is off with recency off."""
    tuning = fts_window.tuning
    slider = fts_window.findChild(QSlider, "recencyWeightSlider")
    field = settings_mod.FIELDS["recency_weight"]
    assert slider.value() == tuning_panel.to_slider(field, tuning.settings.recency_weight)
    weight = tuning.settings.recency_weight
    search(qtbot, fts_window, "what day do we deploy now")
    before = fts_window.session.results.hits
    assert any(h.recency > 0 for h in before)
    with qtbot.waitSignal(fts_window.session.results_changed, timeout=10_000) as shown:
        slider.setValue(tuning_panel.to_slider(field, 0.3))
    results = shown.args[0]
    assert results.settings.recency_weight == pytest.approx(0.3) and results.reranked
    top = max(before, key=lambda h: h.recency)
    after = next(h for h in results.hits if h.chunk_id == top.chunk_id)
    assert after.recency == pytest.approx(top.recency * 0.3 / weight)
    row = next(i for i, h in enumerate(results.hits) if h.chunk_id == top.chunk_id)
    fts_window.results_table.selectRow(row)
    text = fts_window.search_panel.detail.toPlainText()
    assert f"Recency +{after.recency:.3f}" in text and "(at most +0.30)" in text
    tuning.recency_check.setChecked(False)
    assert not slider.isEnabled()
    tuning.recency_check.setChecked(True)
    assert slider.isEnabled()
    tuning.profile_combo.setCurrentIndex(tuning.profile_combo.findData("openclaw"))
    assert not slider.isEnabled()  # OpenClaw has no recency
