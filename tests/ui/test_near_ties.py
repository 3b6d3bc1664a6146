"""Near-ties in the results: a mark on both rows and a line in the explanation pane.

Real OpenClaw 2026.4.12 returned ``memory/2026-10/2026-10-10.md`` and
``memory/daily/2026-11-12-standup.md`` for ``OAuth`` 1.9e-5 apart (generated-minilm.json);
memdesk's openclaw-2026.4 profile ranks them 4th and 5th, 7.9e-5 apart, both far
inside the agent's own jitter. Real window, real MiniLM index of the generated workspace.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from memdesk.qt import models
from tests.ui.conftest import search

pytestmark = pytest.mark.model

GENERATED = Path(__file__).resolve().parents[1] / "fixtures" / "openclaw" / "workspaces" / "generated"
PAIR = ("memory/2026-10/2026-10-10.md", "memory/daily/2026-11-12-standup.md")


@pytest.fixture
def hybrid_generated(make_window, minilm_path: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    workspace = tmp_path / "generated"
    shutil.copytree(GENERATED, workspace)
    return make_window(workspace, model=minilm_path)


def _use_profile(qtbot, window, profile: str) -> None:  # type: ignore[no-untyped-def]
    combo = window.tuning.profile_combo
    with qtbot.waitSignal(window.session.results_changed, timeout=30_000):
        combo.setCurrentIndex(combo.findData(profile))
    # An OpenClaw profile's own index is built in the background first, its results
    # keyword-only meanwhile; the search runs again when the index is ready.
    qtbot.waitUntil(lambda: window.session.results.pool.mode == "hybrid", timeout=120_000)


def test_near_tie_rows_are_marked_and_explained(qtbot, hybrid_generated) -> None:  # type: ignore[no-untyped-def]
    window = hybrid_generated
    search(qtbot, window, "OAuth")
    model = window.search_panel.model
    location = models.column_index("location")

    def marks() -> dict[str, list[str]]:
        return {
            model.hit(row).path: [b for b in model.index(row, location).data(models.BadgesRole) if "≈" in b]
            for row in range(model.rowCount())
        }

    assert not any(marks().values())  # memdesk's own profile: no agent jitter to speak of
    _use_profile(qtbot, window, "openclaw-2026.4")
    ranks = {model.hit(row).path: model.hit(row).rank for row in range(model.rowCount())}
    assert ranks[PAIR[0]] == 4 and ranks[PAIR[1]] == 5
    assert {path: m for path, m in marks().items() if m} == {PAIR[0]: ["≈#5"], PAIR[1]: ["≈#4"]}
    row = next(r for r in range(model.rowCount()) if model.hit(r).path == PAIR[1])
    tooltip = model.index(row, location).data(Qt.ItemDataRole.ToolTipRole)
    assert "Near-tie with #4" in tooltip and "either way" in tooltip
    window.results_table.selectRow(row)
    pane = window.search_panel.detail.toPlainText()
    assert "Near-tie ≈#4" in pane and "either order" in pane
    window.results_table.selectRow(0)
    assert "Near-tie" not in window.search_panel.detail.toPlainText()
