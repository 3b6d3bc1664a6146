"""The agent's own index, read-only, in both layouts: databases built by real OpenClaw.

The fixture databases are recorded by ``tools/record_openclaw.py`` (OpenClaw's own
``openclaw memory index`` over the example workspace, keyword-only), one per release.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from memdesk.core.agent import config, doctor, status
from memdesk.core.agent.index import AgentIndex, AgentIndexError

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures" / "openclaw"
LAYOUTS = {
    "2026.4": ("2026.4.12", "main.sqlite", Path("memory") / "main.sqlite"),
    "2026.9": (
        "2026.9.6",
        "openclaw-agent.sqlite",
        Path("agents") / "main" / "agent" / "openclaw-agent.sqlite",
    ),
}


def _fixture(layout: str) -> tuple[Path, dict[str, object]]:
    version, db_name, _ = LAYOUTS[layout]
    db = FIXTURES / version / "agent-index" / f"example-fts-{db_name}"
    recording = json.loads((FIXTURES / version / "example-fts.json").read_text(encoding="utf-8"))
    assert db.is_file(), f"missing fixture {db}: run tools/record_openclaw.py"
    return db, recording


@pytest.fixture(params=sorted(LAYOUTS))
def agent_home(request: pytest.FixtureRequest, tmp_path: Path, example_workspace: Path):  # type: ignore[no-untyped-def]
    """A private HOME laid out as OpenClaw left it: its config, its index, the workspace."""
    layout = request.param
    db, recording = _fixture(layout)
    state = tmp_path / ".openclaw"
    target = state / LAYOUTS[layout][2]
    target.parent.mkdir(parents=True)
    shutil.copyfile(db, target)
    cfg = json.loads(json.dumps(recording["config"]).replace("<workspace>", str(example_workspace)))
    (state / "openclaw.json").write_text(json.dumps(cfg), encoding="utf-8")
    setup = config.discover({"HOME": str(tmp_path)})
    return layout, setup, example_workspace, recording


def test_status_of_the_agents_index(agent_home) -> None:  # type: ignore[no-untyped-def]
    layout, setup, _ws, recording = agent_home
    assert setup.layout == layout
    agent = setup.agent()
    before = agent.index_path.read_bytes()
    with AgentIndex.open(agent.index_path) as index:
        st = index.status()
        assert st.layout == layout
        # The counts OpenClaw's own `memory status --json` reported right after indexing.
        reported = recording["status"][0]["status"]  # type: ignore[index]
        assert (st.files, st.chunks) == (reported["files"], reported["chunks"])
        assert st.provider == "none" and st.model == "fts-only" and not st.has_vectors
        assert st.fts_rows == st.chunks
        assert st.last_update is not None
        assert index.fts_tokenizer() == "unicode61"
    assert agent.index_path.read_bytes() == before  # opened read-only: not a byte changed


def test_drift_names_the_stale_notes(agent_home) -> None:  # type: ignore[no-untyped-def]
    _layout, setup, ws, _recording = agent_home
    agent = setup.agent()
    fresh = status.agent_overview(agent, setup.layout)
    assert fresh.drift is not None and fresh.drift.stale == 0, fresh.drift
    assert fresh.stale_message is None
    (ws / "memory" / "2026-05-01.md").write_text("rewritten\n", encoding="utf-8")
    (ws / "memory" / "decisions" / "database.md").unlink()
    (ws / "memory" / "2026-12-01.md").write_text("new\n", encoding="utf-8")
    stale = status.agent_overview(agent, setup.layout)
    assert stale.drift is not None
    assert stale.drift.changed == ["memory/2026-05-01.md"]
    assert stale.drift.new == ["memory/2026-12-01.md"]
    assert stale.drift.removed == ["memory/decisions/database.md"]
    assert stale.stale_message == "your agent's index is stale for 3 notes"


def test_keyword_search_uses_the_agents_fts(agent_home) -> None:  # type: ignore[no-untyped-def]
    _layout, setup, _ws, _recording = agent_home
    with AgentIndex.open(setup.agent().index_path) as index:
        hits = index.keyword_search("SQLite database", limit=10)
        assert hits, "the example notes mention the SQLite database decision"
        assert all("sqlite" in h.snippet.lower() and "database" in h.snippet.lower() for h in hits)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert all(0 < h.score < 1 and h.text_score == h.score for h in hits)
        assert index.keyword_search("zzqx nothing like this") == []
        assert index.keyword_search("???") == []


def test_identity_matches_its_own_config_then_flags_changes(agent_home) -> None:  # type: ignore[no-untyped-def]
    layout, setup, ws, _recording = agent_home
    agent = setup.agent()
    with AgentIndex.open(agent.index_path) as index:
        meta = index.meta()
    # The scope hash OpenClaw stored is the one memdesk computes from the same config.
    assert meta["scopeHash"] == doctor.scope_hash(agent.search, ws, layout)
    assert doctor.identity_mismatches(agent, layout, meta) == []
    report = doctor.run_doctor(setup, agent)
    assert not [f for f in report.findings if f.code in ("identity", "stale", "no_index")]
    # Pointing the agent at a local model and adding an extra path changes its identity.
    changed = _with_search(setup, provider="local", extraPaths=["../elsewhere"])
    codes = {code for code, _ in doctor.identity_mismatches(changed.agent(), layout, meta)}
    assert {"provider", "scope"} <= codes
    findings = [f for f in doctor.run_doctor(changed, changed.agent()).findings if f.code == "identity"]
    pause = "pauses vector search" if layout == "2026.9" else "rebuilds the whole index"
    assert findings and all(pause in f.message for f in findings)


def _with_search(setup: config.OpenClawSetup, **search: object) -> config.OpenClawSetup:
    data = json.loads(setup.config_path.read_text())
    block = (
        data["agents"]["defaults"]["memorySearch"] if setup.layout == "2026.4" else data["memory"]["search"]
    )
    block.update(search)
    setup.config_path.write_text(json.dumps(data))
    return config.discover({"HOME": str(setup.config_path.parent.parent)})


def test_not_an_index(tmp_path: Path) -> None:
    with pytest.raises(AgentIndexError, match="no index there yet"):
        AgentIndex.open(tmp_path / "missing.sqlite")
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(hashlib.sha256(b"x").digest() * 100)
    with pytest.raises(AgentIndexError, match=r"cannot open|no OpenClaw memory tables"):
        AgentIndex.open(junk)
