"""The app's openclaw-2026.9 profile runs the same port the fixture parity test checks."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memdesk.core import engine as engine_mod
from memdesk.core.openclaw import v2026_9
from memdesk.core.search import settings as settings_mod

REPO = Path(__file__).resolve().parents[3]
WORKSPACE = REPO / "tests" / "fixtures" / "openclaw" / "workspaces" / "generated"
NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def test_alias_names_the_newest_profile() -> None:
    assert settings_mod.SearchSettings.defaults("openclaw").profile == "openclaw-2026.9"
    assert "openclaw-2026.4" in settings_mod.PROFILES and "openclaw-2026.9" in settings_mod.PROFILES
    s = settings_mod.SearchSettings.defaults("openclaw-2026.9")
    assert (s.max_results, s.min_score, s.decay, s.mmr, s.mmr_lambda, s.half_life_days) == (
        6,
        0.35,
        True,
        True,
        0.7,
        30,
    )


def test_engine_profile_equals_the_port_and_reselects_on_min_score(tmp_path: Path) -> None:
    eng = engine_mod.Engine(WORKSPACE, embedder=None, db_path=tmp_path / "index.sqlite")
    try:
        eng.sync()
        searcher = v2026_9.Searcher(v2026_9.Index(WORKSPACE))
        now_ms = NOW.timestamp() * 1000
        settings = settings_mod.SearchSettings.defaults("openclaw-2026.9")
        for query in ("vector store", "鉴权", "deploy-window.md", "Lin Wei"):
            want = [
                (r.path, r.start_line, r.end_line, r.score) for r in searcher.search(query, now_ms=now_ms)
            ]
            got = [
                (h.path, h.start_line, h.end_line, h.score) for h in eng.search(query, settings, now=NOW).hits
            ]
            assert got == want, query
        wide = settings.replace(max_results=20, min_score=0.0)
        result = eng.search("vector store", wide, now=NOW)
        want = searcher.search("vector store", now_ms=now_ms, max_results=20, min_score=0.0)
        assert [h.path for h in result.hits] == [r.path for r in want]
        top = next(h for h in result.hits if h.path == "MEMORY.md")
        assert top.importance == 8 and abs(top.importance_multiplier - 1.15) < 1e-12
    finally:
        eng.close()


def test_runner_takes_tokenizer_and_extra_paths_from_the_agents_config(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The open workspace is an agent's: its memory.search tokenizer and extraPaths apply,
    and an edit of openclaw.json is picked up on the next search."""
    import json
    import shutil
    import threading

    from memdesk.core.search.profiles import runner_2026_9 as profile_2026_9

    ws = tmp_path / "extras"
    shutil.copytree(REPO / "tests" / "fixtures" / "openclaw" / "workspaces" / "extras", ws)
    state = tmp_path / "home" / ".openclaw"
    state.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("OPENCLAW_STATE_DIR", raising=False)
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH", raising=False)
    search = {
        "provider": "none",
        "store": {"fts": {"tokenizer": "trigram"}},
        "extraPaths": ["notes", {"path": "docs", "pattern": "guides/**/*.md"}, "runbook-deploy.md"],
    }
    config = state / "openclaw.json"
    config.write_text(
        json.dumps({"agents": {"defaults": {"workspace": str(ws)}}, "memory": {"search": search}})
    )
    runner = profile_2026_9.Runner(ws)
    assert runner.settings.tokenizer == "trigram"
    index = runner.searcher(None, None, threading.Lock()).index
    assert index.tokenizer == "trigram"
    assert index.files == [
        "MEMORY.md",
        "memory/2026-11-02.md",
        "memory/decisions.md",
        "notes/ops/runbook.md",
        "notes/people.md",
        "docs/guides/faq.md",
        "docs/guides/setup/install.md",
        "runbook-deploy.md",
    ]
    # Without the agent's settings neither applies.
    config.write_text(json.dumps({"agents": {"defaults": {"workspace": str(ws)}}, "memory": {"search": {}}}))
    index = runner.searcher(None, None, threading.Lock()).index
    assert (index.tokenizer, index.files) == (
        "unicode61",
        ["MEMORY.md", "memory/2026-11-02.md", "memory/decisions.md"],
    )
