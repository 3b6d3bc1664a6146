"""An index found damaged when the window opens: the window still answers from the
notes and says, in one line, that the index was rebuilt."""

from __future__ import annotations

import random
from pathlib import Path

import apsw

from memdesk.core import engine
from tests.ui.conftest import wait_idle

QUERY = "which database did we choose for Atlas"


def _damaged_index(workspace: Path, db: Path) -> Path:
    db.parent.mkdir(parents=True, exist_ok=True)
    eng = engine.Engine.open(workspace, model=None, db_path=db)
    try:
        eng.sync()
    finally:
        eng.close()
    conn = apsw.Connection(str(db))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with open(db, "r+b") as handle:  # the schema, on page 1 after the file header
        handle.seek(100)
        handle.write(random.Random(3).randbytes(4096 - 100))
    return db


def test_damage_found_at_open_answers_and_says_so(
    qtbot, make_window, workspace: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    seed = _damaged_index(workspace, tmp_path / "seed" / "index.sqlite")
    window = make_window(workspace, model=None, seed_index=seed, wait=False)
    session = window.session
    with qtbot.waitSignal(session.sync_finished, timeout=120_000) as finished:
        window.search_input.setText(QUERY)
    assert finished.args[0].repaired  # the sync says it rebuilt a damaged index
    assert "damaged" in window.statusBar().currentMessage()
    qtbot.waitUntil(
        lambda: session.results is not None and session.results.query == QUERY and bool(session.results.hits),
        timeout=60_000,
    )
    assert any("database.md" in h.path for h in session.results.hits)
    wait_idle(qtbot, window)
