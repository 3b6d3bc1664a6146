"""OpenClaw 2026.9's annotations in the results: a badge per hit with the multiplier it
applied, the same multiplier in the explanation pane, and the sliders 2026.9 has no key
for disabled with the reason. Real window, real index, the generated parity workspace."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSlider, QSpinBox

from memdesk.core.search import settings as settings_mod
from memdesk.qt import models
from tests.ui.conftest import search

GENERATED = Path(__file__).resolve().parents[1] / "fixtures" / "openclaw" / "workspaces" / "generated"


@pytest.fixture
def annotated_window(make_window, tmp_path: Path):  # type: ignore[no-untyped-def]
    workspace = tmp_path / "generated"
    shutil.copytree(GENERATED, workspace)
    return make_window(workspace, model=None)


def _use_profile(qtbot, window, profile: str) -> None:  # type: ignore[no-untyped-def]
    combo = window.tuning.profile_combo
    with qtbot.waitSignal(window.session.results_changed, timeout=30_000):
        combo.setCurrentIndex(combo.findData(profile))


def _row(results, path: str, line: int) -> int:  # type: ignore[no-untyped-def]
    return next(i for i, h in enumerate(results.hits) if h.path == path and h.start_line == line)


def test_importance_badge_and_explanation(qtbot, annotated_window) -> None:  # type: ignore[no-untyped-def]
    """``- Jonas Becker leads Atlas … <!-- importance: 7 -->`` is one MEMORY.md entry
    under 2026.9: its badge and the pane both say ×1.10 (0.75 + 0.05 × 7)."""
    window = annotated_window
    search(qtbot, window, "Jonas Becker")
    _use_profile(qtbot, window, settings_mod.OPENCLAW_2026_9)
    results = window.session.results
    assert results.settings.profile == settings_mod.OPENCLAW_2026_9
    row = _row(results, "MEMORY.md", 8)
    hit = results.hits[row]
    assert (hit.importance, round(hit.importance_multiplier, 6)) == (7, 1.1)
    model = window.search_panel.model
    location = model.index(row, models.column_index("location"))
    assert location.data(models.BadgesRole) == ["★7 ×1.10"]
    assert "multiplied by 1.10" in location.data(Qt.ItemDataRole.ToolTipRole)
    # A hit without annotations carries no badge.
    plain = next(i for i, h in enumerate(results.hits) if h.importance is None and h.project_key is None)
    assert model.index(plain, models.column_index("location")).data(models.BadgesRole) == []
    window.search_panel.table.selectRow(row)
    qtbot.waitUntil(lambda: "Importance ×1.10" in window.search_panel.detail.toPlainText())
    text = window.search_panel.detail.toPlainText()
    assert "<!-- importance: 7 -->" in text
    assert "× importance 1.10" in text  # in the final formula
    # The memdesk profile reads no annotations: no badges at all.
    _use_profile(qtbot, window, "memdesk")
    assert all(
        not model.index(i, models.column_index("location")).data(models.BadgesRole)
        for i in range(model.rowCount())
    )


def test_sliders_2026_9_cannot_take_are_disabled_with_the_reason(qtbot, annotated_window) -> None:  # type: ignore[no-untyped-def]
    window = annotated_window
    tuning = window.tuning
    names = {
        "vector_weight": "vectorWeightSlider",
        "text_weight": "textWeightSlider",
        "candidate_multiplier": "candidateMultiplierSlider",
        "half_life_days": "halfLifeSlider",
        "mmr_lambda": "mmrLambdaSlider",
    }
    tuning.profile_combo.setCurrentIndex(tuning.profile_combo.findData(settings_mod.OPENCLAW_2026_9))
    for object_name in names.values():
        slider = window.findChild(QSlider, object_name)
        assert not slider.isEnabled(), object_name
        assert "OpenClaw 2026.9 fixes this" in slider.toolTip()
    assert not window.findChild(QSpinBox, "halfLifeSliderSpin").isEnabled()
    assert not tuning.decay_check.isEnabled() and not tuning.mmr_check.isEnabled()
    assert "always applies" in tuning.decay_check.toolTip()
    # What 2026.9 does take stays adjustable.
    assert window.findChild(QSlider, "maxResultsSlider").isEnabled()
    assert window.findChild(QSlider, "minScoreSlider").isEnabled()
    # Back to 2026.4, which has keys for all of them.
    tuning.profile_combo.setCurrentIndex(tuning.profile_combo.findData(settings_mod.OPENCLAW_2026_4))
    for name in ("vector_weight", "text_weight", "candidate_multiplier"):
        slider = window.findChild(QSlider, names[name])
        assert slider.isEnabled(), name
        assert "OpenClaw 2026.9" not in slider.toolTip()
    assert tuning.decay_check.isEnabled() and tuning.mmr_check.isEnabled()
