"""'Apply to OpenClaw…': only keys the target takes, a diff first, atomic write with a backup."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import json5
import pytest

from memdesk.core import diskio, errors
from memdesk.core.agent import config, export
from memdesk.core.search.settings import SearchSettings

TUNED = SearchSettings.defaults("memdesk").replace(
    max_results=8,
    min_score=0.2,
    vector_weight=0.6,
    text_weight=0.4,
    mmr=True,
    mmr_lambda=0.85,
    decay=True,
    half_life_days=90,
    candidate_multiplier=4,
)


def _setup(tmp_path: Path, data: object, *, text: str | None = None) -> config.OpenClawSetup:
    state = tmp_path / ".openclaw"
    state.mkdir(exist_ok=True)
    path = state / "openclaw.json"
    path.write_text(text if text is not None else json.dumps(data, indent=2), encoding="utf-8")
    path.chmod(0o600)
    return config.discover({"HOME": str(tmp_path)})


def test_2026_9_writes_only_what_it_accepts(tmp_path: Path) -> None:
    setup = _setup(tmp_path, {"gateway": {"port": 1}, "memory": {"search": {"provider": "local"}}})
    plan = export.plan_export(setup, TUNED, extras=export.Extras(fts_tokenizer="trigram"))
    assert plan.target == "2026.9"
    assert plan.written == {
        "memory.search.query.maxResults": 8,
        "memory.search.query.minScore": 0.2,
        "memory.search.store.fts.tokenizer": "trigram",
    }
    rejected = {r.setting: (r.value, r.reason) for r in plan.rejected}
    assert rejected == {
        "vector weight": (0.6, "OpenClaw 2026.9 fixes it at 0.7"),
        "text weight": (0.4, "OpenClaw 2026.9 fixes it at 0.3"),
        "MMR lambda": (0.85, "OpenClaw 2026.9 fixes it at 0.7"),
        "decay half-life (days)": (90, "OpenClaw 2026.9 fixes it at 30"),
    }
    diff = plan.diff()
    assert '+        "maxResults": 8,' in diff and '"hybrid"' not in diff
    assert not plan.notes  # plain JSON in, plain JSON out

    backup = export.apply_export(plan)
    assert backup is not None and backup.read_text() == plan.before_text
    written = json.loads(setup.config_path.read_text())
    assert written["gateway"] == {"port": 1}
    assert written["memory"]["search"] == {
        "provider": "local",
        "query": {"maxResults": 8, "minScore": 0.2},
        "store": {"fts": {"tokenizer": "trigram"}},
    }
    assert stat.S_IMODE(setup.config_path.stat().st_mode) == 0o600  # permissions kept
    again = export.plan_export(
        config.discover({"HOME": str(tmp_path)}), TUNED, extras=export.Extras(fts_tokenizer="trigram")
    )
    assert not again.changed and export.apply_export(again) is None


def test_2026_4_takes_weights_half_life_and_lambda(tmp_path: Path) -> None:
    setup = _setup(tmp_path, {"agents": {"defaults": {"memorySearch": {"query": {"maxResults": 3}}}}})
    plan = export.plan_export(setup, TUNED)
    assert plan.target == "2026.4" and plan.rejected == []
    prefix = "agents.defaults.memorySearch.query."
    assert plan.written == {
        prefix + "maxResults": 8,
        prefix + "minScore": 0.2,
        prefix + "hybrid.vectorWeight": 0.6,
        prefix + "hybrid.textWeight": 0.4,
        prefix + "hybrid.mmr.enabled": True,
        prefix + "hybrid.mmr.lambda": 0.85,
        prefix + "hybrid.temporalDecay.enabled": True,
        prefix + "hybrid.temporalDecay.halfLifeDays": 90,
    }
    export.apply_export(plan)
    reread = config.discover({"HOME": str(tmp_path)}).agent().search
    assert reread is not None
    assert (reread.max_results, reread.min_score, reread.mmr_lambda, reread.half_life_days) == (
        8,
        0.2,
        0.85,
        90,
    )
    assert reread.vector_weight == pytest.approx(0.6)


def test_glob_extra_paths_rejected_for_2026_4(tmp_path: Path) -> None:
    setup = _setup(tmp_path, {"agents": {"defaults": {"memorySearch": {}}}})
    extras = export.Extras(extra_paths=[config.ExtraPath("../team"), config.ExtraPath("/srv", "**/*.md")])
    plan = export.plan_export(setup, TUNED, extras=extras)
    assert plan.written["agents.defaults.memorySearch.extraPaths"] == ["../team"]
    assert [r.setting for r in plan.rejected] == ["extraPaths"]
    plan9 = export.plan_export(setup, TUNED, target="2026.9", extras=extras)
    assert plan9.written["memory.search.extraPaths"] == ["../team", {"path": "/srv", "pattern": "**/*.md"}]
    assert any("2026.4 layout" in n for n in plan9.notes)


def test_json5_is_flagged_and_refused_when_changed_underneath(tmp_path: Path) -> None:
    setup = _setup(tmp_path, None, text="// mine\n{memory: {search: {}}}\n")
    plan = export.plan_export(setup, TUNED)
    assert any("comments are lost" in n for n in plan.notes)
    assert json5.loads(plan.after_text)["memory"]["search"]["query"]["maxResults"] == 8
    setup.config_path.write_text("{memory: {search: {provider: 'none'}}}\n")
    with pytest.raises(errors.MemdeskError, match="changed since the diff"):
        export.apply_export(plan)
    assert "provider: 'none'" in setup.config_path.read_text()  # untouched
    assert not list(setup.config_path.parent.glob("*.bak"))


def test_include_configs_are_not_rewritten(tmp_path: Path) -> None:
    state = tmp_path / ".openclaw"
    state.mkdir()
    (state / "m.json5").write_text("{}")
    setup = _setup(tmp_path, {"memory": {"$include": "./m.json5"}})
    with pytest.raises(errors.MemdeskError, match=r"\$include.*maxResults"):
        export.plan_export(setup, TUNED)


def test_new_config_file_has_no_backup(tmp_path: Path) -> None:
    setup = config.discover({"HOME": str(tmp_path)})
    plan = export.plan_export(setup, TUNED)
    assert plan.before_text == "" and plan.changed
    assert export.apply_export(plan) is None
    assert json.loads(setup.config_path.read_text())["memory"]["search"]["query"]["maxResults"] == 8


def test_per_agent_scope(tmp_path: Path) -> None:
    setup = _setup(tmp_path, {"agents": {"entries": {"main": {}, "ops": {}}}})
    plan = export.plan_export(setup, TUNED, agent_id="ops")
    assert set(plan.written) == {
        "agents.entries.ops.memory.search.query.maxResults",
        "agents.entries.ops.memory.search.query.minScore",
    }


def _tuned_plan(tmp_path: Path) -> export.ExportPlan:
    return export.plan_export(config.discover({"HOME": str(tmp_path)}), TUNED)


def test_a_symlinked_config_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    """A dotfiles-managed ``openclaw.json``: the link's target gets the settings."""
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "openclaw.json"
    real.write_text(json.dumps({"memory": {"search": {"provider": "local"}}}), encoding="utf-8")
    real.chmod(0o640)
    state = tmp_path / ".openclaw"
    state.mkdir()
    (state / "openclaw.json").symlink_to(real)
    plan = _tuned_plan(tmp_path)
    backup = export.apply_export(plan)
    link = state / "openclaw.json"
    assert link.is_symlink() and Path(os.readlink(link)) == real
    assert json.loads(real.read_text(encoding="utf-8"))["memory"]["search"]["query"]["maxResults"] == 8
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert backup is not None and backup.parent == state and not backup.is_symlink()
    assert sorted(p.name for p in dotfiles.iterdir()) == ["openclaw.json"]  # no temp left


def test_the_temp_copy_of_the_config_is_owner_only_until_it_is_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup = _setup(tmp_path, {"memory": {"search": {"provider": "local"}}})
    setup.config_path.chmod(0o644)
    seen: list[int] = []
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        seen.append(stat.S_IMODE(os.stat(src).st_mode))  # a kill here leaves this file
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    old = os.umask(0)
    try:
        export.apply_export(export.plan_export(setup, TUNED))
    finally:
        os.umask(old)
    assert seen == [0o600]
    assert stat.S_IMODE(setup.config_path.stat().st_mode) == 0o644  # the config's own bits kept


def test_a_temp_config_left_by_a_killed_apply_is_removed_on_the_next_run(tmp_path: Path) -> None:
    setup = _setup(tmp_path, {"memory": {"search": {"provider": "local"}}})
    state = setup.config_path.parent
    left = [state / ".openclaw.json.k3x_9q2z.tmp", state / ".openclaw.json.memdesk-0123456789abcdef.tmp"]
    for path in left:
        path.write_text('{"secret": "sk-123"}', encoding="utf-8")
    others = [
        state / ".openclaw.json.bak.tmp",
        state / "openclaw.json.k3x_9q2z.tmp",
        state / ".other.json.k3x_9q2z.tmp",
    ]
    for path in others:
        path.write_text("not ours", encoding="utf-8")
    assert sorted(diskio.remove_stale_temps(setup.config_path)) == sorted(left)
    assert not any(p.exists() for p in left) and all(p.exists() for p in others)
    for path in left:
        path.write_text('{"secret": "sk-123"}', encoding="utf-8")
    export.apply_export(export.plan_export(setup, TUNED))  # the next apply cleans up too
    assert not any(p.exists() for p in left) and all(p.exists() for p in others)
