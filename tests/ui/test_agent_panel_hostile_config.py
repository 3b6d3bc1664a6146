"""The agent panel shows a hostile ``openclaw.json``'s one line, on a real event loop (issue 22)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memdesk.qt.agent import AgentController
from memdesk.ui.agent_panel import AgentPanel

TIMEOUT = 30_000


def _panel(qtbot, home: Path) -> tuple[AgentController, AgentPanel]:  # type: ignore[no-untyped-def]
    controller = AgentController(env={"HOME": str(home)})
    widget = AgentPanel(controller)
    qtbot.addWidget(widget)
    widget.resize(700, 700)
    widget.show()
    return controller, widget


@pytest.mark.parametrize(
    "case, needle",
    [("min_score", "memory.search.query.minScore"), ("fifo", "a FIFO")],
)
def test_panel_shows_the_one_line(qtbot, tmp_path: Path, case: str, needle: str) -> None:  # type: ignore[no-untyped-def]
    state = tmp_path / ".openclaw"
    state.mkdir()
    cfg = state / "openclaw.json"
    if case == "min_score":
        cfg.write_text(json.dumps({"memory": {"search": {"query": {"minScore": "high"}}}}))
        named = cfg
    else:
        os.mkfifo(state / "pipe.json5")
        cfg.write_text(json.dumps({"memory": {"$include": "./pipe.json5"}}))
        named = state / "pipe.json5"
    controller, widget = _panel(qtbot, tmp_path)
    try:
        with qtbot.waitSignal(controller.failed, timeout=TIMEOUT) as blocker:
            widget.reload()
        assert blocker.args[0] == "setup"
        text = widget.config_label.text()
        assert "\n" not in text and str(named) in text and needle in text, text
    finally:
        widget.close_panel()
