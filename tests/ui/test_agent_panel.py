"""The "Your agent" panel and the Apply-to-OpenClaw dialog on a real event loop."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memdesk.core.search.settings import SearchSettings
from memdesk.qt.agent import AgentController
from memdesk.ui.agent_panel import AgentPanel
from memdesk.ui.apply_dialog import ApplyToOpenClawDialog

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 30_000


@pytest.fixture
def openclaw_home(tmp_path: Path) -> dict[str, str]:
    """Two agents in the 2026.9 layout, one with a copy of the example workspace and sessions."""
    state = tmp_path / ".openclaw"
    shutil.copytree(REPO / "examples" / "workspace", state / "workspace")
    (state / "ops-ws" / "memory").mkdir(parents=True)
    (state / "ops-ws" / "MEMORY.md").write_text("# Ops\n")
    (state / "openclaw.json").write_text(
        json.dumps(
            {
                "memory": {"search": {"provider": "none", "query": {"maxResults": 5}}},
                "agents": {
                    "entries": {"main": {"default": True}, "ops": {"workspace": str(state / "ops-ws")}}
                },
            }
        )
    )
    sessions = state / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    lines = [json.dumps({"type": "session", "id": "dm"})]
    for i in range(30):
        role = "user" if i % 2 == 0 else "assistant"
        text = "Where is the Atlas rollback plan?" if i == 25 else f"small talk {i}"
        lines.append(
            json.dumps(
                {
                    "type": "message",
                    "timestamp": 1764000000 + i,
                    "message": {"role": role, "content": [{"type": "text", "text": text}]},
                }
            )
        )
    # Retained archives: OpenClaw 2026.9 reads those from their files (live transcripts
    # live in its database; a legacy live .jsonl waits for `openclaw doctor` to import it).
    (sessions / "dm.jsonl.reset.2026-11-20T10-00-00.000Z").write_text("\n".join(lines) + "\n")
    (sessions / "grp.jsonl.deleted.2026-11-21T10-00-00.000Z").write_text(
        json.dumps(
            {"type": "message", "message": {"role": "user", "content": "group Atlas rollback chatter"}}
        )
        + "\n"
    )
    (sessions / "sessions.json").write_text(
        json.dumps(
            {
                "agent:main:main": {"sessionId": "dm", "chatType": "direct"},
                "agent:main:discord:group:7": {"sessionId": "grp"},
            }
        )
    )
    return {"HOME": str(tmp_path)}


@pytest.fixture
def panel(qtbot, openclaw_home: dict[str, str]):  # type: ignore[no-untyped-def]
    controller = AgentController(env=openclaw_home)
    widget = AgentPanel(controller)
    qtbot.addWidget(widget)
    widget.resize(700, 700)
    widget.show()
    with qtbot.waitSignals(
        [controller.setup_loaded, controller.overview_ready, controller.sessions_ready], timeout=TIMEOUT
    ):
        widget.reload()
    yield widget
    widget.close_panel()


def test_agents_workspace_and_index_state(qtbot, panel: AgentPanel, openclaw_home) -> None:  # type: ignore[no-untyped-def]
    assert panel.agent_picker.count() == 2 and panel.agent_picker.isEnabled()
    assert panel.current_agent_id() == "main"
    assert "2026.9" in panel.config_label.text()
    workspace = Path(openclaw_home["HOME"]) / ".openclaw" / "workspace"
    assert panel.workspace_label.text() == str(workspace)
    assert "no index there yet" in panel.index_label.text()
    with qtbot.waitSignal(panel.open_workspace_requested, timeout=TIMEOUT) as opened:
        panel.open_workspace_button.click()
    assert opened.args == [workspace]
    with qtbot.waitSignal(panel.controller.overview_ready, timeout=TIMEOUT):
        panel.agent_picker.setCurrentIndex(1)
    assert panel.workspace_label.text().endswith("ops-ws")


def test_doctor_lists_findings_and_opens_notes(qtbot, panel: AgentPanel) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(panel.controller.doctor_ready, timeout=TIMEOUT):
        panel.run_doctor_button.click()
    assert panel.run_doctor_button.isEnabled()
    messages = [panel.doctor_list.item(i).text() for i in range(panel.doctor_list.count())]
    # 2026.9 dates YYYY-MM-DD-slug.md notes, so the example's vendor pitch is not flagged; no index yet is.
    assert any("no index there yet" in m for m in messages)
    assert "files" in panel.doctor_summary.text()


def test_sessions_scope_search_and_jump(qtbot, panel: AgentPanel) -> None:  # type: ignore[no-untyped-def]
    assert "2 transcripts" in panel.session_summary.text()
    panel.tabs.setCurrentIndex(2)
    panel.session_search.setText("atlas rollback")
    assert panel.session_list.count() == 1  # the group session is out of the private scope
    panel.session_list.setCurrentRow(0)
    html = panel.session_view.toHtml()
    assert "Where is the Atlas rollback plan?" in html and "line 27" in html
    # The view scrolled down to the message on JSONL line 27 (the 26th message of 30).
    assert panel.session_view.verticalScrollBar().value() > 0
    panel.session_scope.setCurrentIndex(2)
    assert panel.session_list.count() == 2


def test_legacy_live_transcript_is_listed_as_not_indexed(qtbot, openclaw_home) -> None:  # type: ignore[no-untyped-def]
    sessions = Path(openclaw_home["HOME"]) / ".openclaw" / "agents" / "main" / "sessions"
    (sessions / "legacy.jsonl").write_text(
        json.dumps(
            {"type": "message", "message": {"role": "user", "content": "Atlas rollback in a legacy file"}}
        )
        + "\n"
    )
    controller = AgentController(env=openclaw_home)
    widget = AgentPanel(controller)
    qtbot.addWidget(widget)
    widget.show()
    with qtbot.waitSignals([controller.setup_loaded, controller.sessions_ready], timeout=TIMEOUT):
        widget.reload()
    try:
        widget.session_scope.setCurrentIndex(2)
        items = [widget.session_list.item(i).text() for i in range(widget.session_list.count())]
        (legacy,) = [t for t in items if "legacy" in t]
        assert "openclaw doctor --session-sqlite import" in legacy
        assert all("openclaw doctor" not in t for t in items if "legacy" not in t)
        widget.session_search.setText("atlas rollback")  # not in the agent's corpus yet
        hits = [widget.session_list.item(i).text() for i in range(widget.session_list.count())]
        assert hits and not any("legacy" in t for t in hits)
    finally:
        widget.close_panel()


def test_apply_dialog_diff_then_write_with_backup(qtbot, panel: AgentPanel, openclaw_home) -> None:  # type: ignore[no-untyped-def]
    setup = panel.controller.setup
    assert setup is not None
    tuned = SearchSettings.defaults("memdesk").replace(max_results=9, vector_weight=0.5, text_weight=0.5)
    dialog = ApplyToOpenClawDialog(setup, tuned, agent_id="ops")
    qtbot.addWidget(dialog)
    assert (
        '+          "maxResults": 9' in dialog.diff_view.toPlainText()
        or '"maxResults": 9' in dialog.diff_view.toPlainText()
    )
    assert "vector weight" in dialog.rejected_label.text() and "0.7" in dialog.rejected_label.text()
    dialog.target_combo.setCurrentIndex(dialog.target_combo.findData("2026.4"))
    assert "vectorWeight" in dialog.diff_view.toPlainText()
    assert "takes every tuned value" in dialog.rejected_label.text()
    dialog.target_combo.setCurrentIndex(dialog.target_combo.findData("2026.9"))
    with qtbot.waitSignal(dialog.applied, timeout=TIMEOUT) as applied:
        dialog.apply_button.click()
    backup = applied.args[0]
    assert backup is not None and Path(backup).exists()
    written = json.loads(setup.config_path.read_text())
    assert written["memory"]["search"]["query"] == {"maxResults": 9, "minScore": 0}
    assert "hybrid" not in json.dumps(written)


def test_without_openclaw_each_view_says_it_was_not_found(qtbot, tmp_path: Path, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """No ~/.openclaw and no openclaw on the PATH: the panel, the doctor, the sessions and
    Apply say OpenClaw was not found, where memdesk looked and what to do; the doctor
    checks the open workspace as an agent would instead."""
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "bin").mkdir()
    controller = AgentController(env={"HOME": str(home), "PATH": str(tmp_path / "bin")})
    widget = AgentPanel(controller)
    widget.set_workspace(workspace)
    qtbot.addWidget(widget)
    widget.show()
    with qtbot.waitSignals([controller.setup_loaded, controller.sessions_ready], timeout=TIMEOUT):
        widget.reload()
    setup = controller.setup
    assert setup is not None and not setup.installed
    text = widget.config_label.text()
    assert "OpenClaw was not found" in text and str(home / ".openclaw") in text and "PATH" in text
    assert "OpenClaw was not found" in widget.session_summary.text()
    assert "—" not in widget.session_summary.text()
    assert widget.run_doctor_button.text() == "Check the open workspace"
    with qtbot.waitSignal(controller.doctor_ready, timeout=TIMEOUT) as blocker:
        widget.run_doctor()
    report = blocker.args[0]
    assert report.workspace == workspace
    assert report.files_checked > 0  # the open workspace's notes, chunked as the agent would
    assert [f.code for f in report.findings if f.code == "workspace"] == []
    assert any(f.code == "not_installed" for f in report.findings)
    assert not any(f.code == "no_index" for f in report.findings)  # no OpenClaw, no index of its own
    qtbot.waitUntil(lambda: widget.index_label.text() == "—", timeout=TIMEOUT)
    assert widget.doctor_summary.text().startswith("The open workspace")

    dialog = ApplyToOpenClawDialog(setup, SearchSettings())
    qtbot.addWidget(dialog)
    labels = [dialog.target_combo.itemText(i) for i in range(dialog.target_combo.count())]
    assert not any("detected" in label for label in labels)
    assert not dialog.apply_button.isEnabled()
    assert dialog.plan is None
    assert "OpenClaw was not found" in dialog.status_label.text()
    assert not (home / ".openclaw").exists()  # nothing created


def test_doctor_offers_the_trigram_fix_through_apply(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A Chinese workspace, keyword-only: the doctor's finding carries the tokenizer change;
    its button opens Apply with only that key, and Apply writes it into openclaw.json."""
    from memdesk.core.agent import config as agent_config

    state = tmp_path / ".openclaw"
    (state / "workspace" / "memory").mkdir(parents=True)
    (state / "workspace" / "MEMORY.md").write_text(
        "- 我们决定用PostgreSQL存储订单数据\n- 鉴权服务由王磊负责维护\n"
    )
    config_path = state / "openclaw.json"
    config_path.write_text(
        json.dumps({"memory": {"search": {"provider": "none", "query": {"maxResults": 9}}}})
    )
    controller = AgentController(env={"HOME": str(tmp_path)})
    widget = AgentPanel(controller)
    qtbot.addWidget(widget)
    widget.show()
    with qtbot.waitSignal(controller.setup_loaded, timeout=TIMEOUT):
        widget.reload()
    with qtbot.waitSignal(controller.doctor_ready, timeout=TIMEOUT):
        widget.run_doctor()
    items = [widget.doctor_list.item(i).text() for i in range(widget.doctor_list.count())]
    assert any("unicode61" in t and "trigram" in t for t in items)
    widget.tabs.setCurrentIndex(1)
    assert widget.doctor_apply_button.isVisible()
    with qtbot.waitSignal(widget.apply_fix_requested, timeout=TIMEOUT) as asked:
        widget.doctor_apply_button.click()
    (extras,) = asked.args
    assert extras.fts_tokenizer == "trigram"
    dialog = ApplyToOpenClawDialog(agent_config.discover({"HOME": str(tmp_path)}), None, extras=extras)
    qtbot.addWidget(dialog)
    diff = dialog.diff_view.toPlainText()
    assert '"tokenizer": "trigram"' in diff and "maxResults" not in diff.replace('"maxResults": 9', "")
    dialog.apply_button.click()
    written = json.loads(config_path.read_text())["memory"]["search"]
    assert written == {
        "provider": "none",
        "query": {"maxResults": 9},
        "store": {"fts": {"tokenizer": "trigram"}},
    }
    widget.close_panel()
