"""The tuning lab counts what the user ticked, shows no phantom ticks, keeps labels on
their text across edits, and warns when auto-tune rests on too few queries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox

from memdesk.core.eval import golden as eval_golden
from memdesk.qt import models
from tests.ui.conftest import search, wait_synced

LONG_NOTE = "memory/topics/zephyr-rollout.md"


def _long_note(workspace: Path) -> None:
    """A note long enough to be cut into several overlapping chunks, each naming zephyr."""
    lines = ["# Zephyr rollout", ""]
    for i in range(60):
        lines.append(
            f"- step {i}: the zephyr rollout needs check {i} of the staging "
            f"cluster signed off by someone on call that week number {i}"
        )
    (workspace / LONG_NOTE).write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def long_window(make_window, workspace: Path):  # type: ignore[no-untyped-def]
    _long_note(workspace)
    return make_window(workspace, model=None)


def _tick(qtbot, window, row: int) -> None:  # type: ignore[no-untyped-def]
    table = window.results_table
    rect = table.visualRect(table.model().index(row, models.column_index("relevant")))
    with qtbot.waitSignal(window.lab.golden_changed):
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def _wait_scored(qtbot, lab, scored: int):  # type: ignore[no-untyped-def]
    def ready(readout) -> bool:  # type: ignore[no-untyped-def]
        return readout is not None and readout.fetching == 0 and readout.scored == scored

    if not ready(lab.readout):
        with qtbot.waitSignal(lab.readout_changed, timeout=30_000, check_params_cb=ready):
            pass
    return lab.readout


def _overlapping_rows(window) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    hits = window.search_panel.model.hits
    rows = [i for i, h in enumerate(hits) if h.path == LONG_NOTE]
    for a in rows:
        for b in rows:
            if a < b and hits[a].start_line <= hits[b].end_line and hits[b].start_line <= hits[a].end_line:
                return a, b
    pytest.fail(
        f"no overlapping chunks of {LONG_NOTE}: {[(hits[r].start_line, hits[r].end_line) for r in rows]}"
    )


def test_ticking_overlapping_chunks_counts_each(qtbot, long_window) -> None:  # type: ignore[no-untyped-def]
    """Two ticked, overlapping chunks of one note are two relevant items, both found."""
    search(qtbot, long_window, "zephyr rollout staging")
    a, b = _overlapping_rows(long_window)
    _tick(qtbot, long_window, a)
    check = models.column_index("relevant")
    model = long_window.search_panel.model
    # No phantom: the overlapping row was never clicked and shows no tick of any kind.
    assert model.index(b, check).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Unchecked
    _tick(qtbot, long_window, b)
    for row in (a, b):
        assert model.index(row, check).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    readout = _wait_scored(qtbot, long_window.lab, 1)
    assert readout.items == 2
    assert readout.scores.recall10 == pytest.approx(1.0)  # both ticked chunks are in the top 10


def test_labels_follow_their_text_and_lost_ones_are_flagged(qtbot, long_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Lines added above a labelled chunk move its label; deleting its text flags it."""
    results = search(qtbot, long_window, "zephyr rollout staging")
    row = next(i for i, h in enumerate(results.hits) if h.path == LONG_NOTE and h.start_line > 3)
    hit = results.hits[row]
    _tick(qtbot, long_window, row)
    golden_file = workspace / eval_golden.GOLDEN_REL
    path = workspace / LONG_NOTE
    text = path.read_text(encoding="utf-8")
    path.write_text("# Zephyr rollout\n\nthree\nnew\nlines\n" + text.split("\n", 2)[2], encoding="utf-8")
    long_window.session.request_sync([LONG_NOTE])
    wait_synced(qtbot, long_window)
    (entry,) = [json.loads(line) for line in golden_file.read_text(encoding="utf-8").splitlines()]
    assert entry["relevant"] == [f"{LONG_NOTE}#L{hit.start_line + 3}-L{hit.end_line + 3}"]
    assert long_window.lab.golden.lost == ()
    path.write_text("# Zephyr rollout\n\nall rewritten\n", encoding="utf-8")
    long_window.session.request_sync([LONG_NOTE])
    wait_synced(qtbot, long_window)
    assert [item.path for _q, item in long_window.lab.golden.lost] == [LONG_NOTE]
    readout = long_window.lab.score_now()
    assert readout.lost and "lost their text" in long_window.quality.status.text()


def test_auto_tune_shows_per_query_table_and_few_queries_warning(qtbot, long_window) -> None:  # type: ignore[no-untyped-def]
    """Auto-tune on two labelled queries lists each query before/after and warns."""
    for name in ("decayCheck", "mmrCheck"):
        long_window.findChild(QCheckBox, name).setChecked(True)
    for query in ("zephyr rollout staging", "deploy freeze"):
        search(qtbot, long_window, query)
        _tick(qtbot, long_window, 0)
    _wait_scored(qtbot, long_window.lab, 2)
    panel = long_window.quality
    with qtbot.waitSignal(long_window.lab.tune_finished, timeout=120_000):
        panel.tune_button.click()
    rows = panel.tune_rows()
    assert sorted(r[0] for r in rows) == ["deploy freeze", "zephyr rollout staging"]
    for _query, before, after, diff in rows:
        assert float(after) - float(before) == pytest.approx(float(diff), abs=0.0011)
    assert panel.warning_label.isVisibleTo(panel)
    assert "Only 2 labelled queries" in panel.warning_label.text()
