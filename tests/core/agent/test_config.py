"""Finding the agent's OpenClaw setup: both key layouts, JSON5, $include, env overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.core import errors
from memdesk.core.agent import config


def _home(tmp_path: Path, text: str, name: str = "openclaw.json") -> dict[str, str]:
    state = tmp_path / ".openclaw"
    state.mkdir(parents=True, exist_ok=True)
    (state / name).write_text(text, encoding="utf-8")
    return {"HOME": str(tmp_path)}


def test_missing_config_means_openclaw_defaults(tmp_path: Path) -> None:
    setup = config.discover({"HOME": str(tmp_path)})
    assert not setup.config_exists
    assert setup.layout == config.NEWEST
    (agent,) = setup.agents
    assert agent.id == "main" and agent.default
    assert agent.workspace == tmp_path / ".openclaw" / "workspace"
    assert agent.index_path == tmp_path / ".openclaw" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    assert agent.search is not None
    assert agent.search.provider == "openai"  # 2026.9: unset provider means OpenAI embeddings
    assert (agent.search.max_results, agent.search.min_score) == (6, 0.35)
    # A personal install (no DM isolation) remembers across conversations: sessions are indexed.
    assert agent.search.sources == ("memory", "sessions")
    assert agent.search.search_sources == ("memory",)


def test_2026_4_layout_json5_with_agents_list(tmp_path: Path) -> None:
    env = _home(
        tmp_path,
        """
    // JSON5: comments, unquoted keys, trailing commas
    {
      agents: {
        defaults: {
          workspace: "~/brain",
          memorySearch: {
            provider: "local",
            local: { modelPath: "~/models/minilm.gguf" },
            extraPaths: ["../team", " ../team "],
            query: { maxResults: 9, hybrid: { vectorWeight: 0.6, textWeight: 0.2,
                     temporalDecay: { enabled: true, halfLifeDays: 10.7 } } },
          },
        },
        list: [
          { id: "Main", default: true },
          { id: "work", workspace: "/srv/work", memorySearch: { query: { minScore: 2 } } },
          { id: "side" },
        ],
      },
    }""",
    )
    setup = config.discover(env)
    assert setup.layout == "2026.4"
    assert [a.id for a in setup.agents] == ["main", "work", "side"]
    main, work, side = setup.agents
    assert main.default and not work.default
    assert main.workspace == tmp_path / "brain"
    assert work.workspace == Path("/srv/work")
    assert side.workspace == tmp_path / "brain" / "side"  # non-default agents nest under defaults.workspace
    assert main.index_path == tmp_path / ".openclaw" / "memory" / "main.sqlite"
    s = main.search
    assert s is not None
    assert s.provider == "local" and s.local_model_path == "~/models/minilm.gguf"
    assert [e.path for e in s.extra_paths] == ["../team"]  # trimmed and de-duplicated
    assert (s.vector_weight, s.text_weight) == pytest.approx((0.75, 0.25))  # normalized to sum 1
    assert s.decay and s.half_life_days == 10
    assert s.max_results == 9
    assert work.search is not None and work.search.min_score == 1  # clamped
    assert setup.agent("WORK").id == "work"
    with pytest.raises(errors.MemdeskError, match="no OpenClaw agent"):
        setup.agent("nobody")


def test_2026_9_layout_entries_and_per_agent_overrides(tmp_path: Path) -> None:
    env = _home(
        tmp_path,
        json.dumps(
            {
                "session": {"dmScope": "per-peer"},
                "memory": {
                    "search": {
                        "provider": "auto",
                        "query": {"maxResults": 4},
                        "extraPaths": ["notes", {"path": "/srv/shared", "pattern": "runbooks/**/*.md"}],
                        "store": {"fts": {"tokenizer": "trigram"}},
                    }
                },
                "agents": {
                    "entries": {
                        "home": {"default": True},
                        "ops": {
                            "workspace": "~/ops",
                            "memory": {
                                "search": {
                                    "sources": ["memory", "sessions"],
                                    "experimental": {"sessionMemory": True},
                                    "extraPaths": ["more"],
                                    "query": {"minScore": 0.2},
                                }
                            },
                        },
                        "off": {"memory": {"search": {"enabled": False}}},
                    }
                },
            }
        ),
    )
    setup = config.discover(env)
    assert setup.layout == "2026.9"
    home, ops, off = setup.agents
    assert home.id == "home" and home.default
    assert ops.workspace == tmp_path / "ops"
    assert off.search is None
    assert off.workspace == tmp_path / ".openclaw" / "workspace-off"
    assert home.search is not None and ops.search is not None
    assert home.search.provider == "openai"  # legacy "auto" resolves to openai
    assert home.search.fts_tokenizer == "trigram"
    # DM isolation is configured, so cross-conversation recall defaults off.
    assert not home.search.remember_across_conversations
    assert home.search.sources == ("memory",)
    assert ops.search.sources == ("memory", "sessions")
    # Per-agent extraPaths add to the global ones.
    assert [e.to_json() for e in ops.search.extra_paths] == [
        "notes",
        {"path": "/srv/shared", "pattern": "runbooks/**/*.md"},
        "more",
    ]
    assert (ops.search.max_results, ops.search.min_score) == (4, 0.2)
    # Ranking knobs are fixed in 2026.9.
    assert (ops.search.vector_weight, ops.search.mmr_lambda, ops.search.half_life_days) == (0.7, 0.7, 30)
    assert ops.index_path == tmp_path / ".openclaw" / "agents" / "ops" / "agent" / "openclaw-agent.sqlite"


def test_layout_from_version_stamp_and_index_files(tmp_path: Path) -> None:
    env = _home(tmp_path, '{"meta": {"lastTouchedVersion": "2026.4.12"}}')
    assert config.discover(env).layout == "2026.4"
    env = _home(tmp_path, '{"meta": {"lastTouchedVersion": "2026.9.6"}}')
    assert config.discover(env).layout == "2026.9"
    env = _home(tmp_path, "{}")
    (tmp_path / ".openclaw" / "memory").mkdir()
    (tmp_path / ".openclaw" / "memory" / "main.sqlite").write_bytes(b"")
    layout, reason = config.detect_layout({}, tmp_path / ".openclaw")
    assert layout == "2026.4" and "memory/<agent>.sqlite" in reason
    forced = config.discover(env, layout="2026.9")
    assert forced.layout == "2026.9" and "explicitly" in forced.layout_reason


def test_mixed_keys_warn(tmp_path: Path) -> None:
    env = _home(
        tmp_path, json.dumps({"memory": {"search": {}}, "agents": {"defaults": {"memorySearch": {}}}})
    )
    setup = config.discover(env, layout="2026.9")
    assert any("memorySearch" in w for w in setup.warnings)


def test_env_overrides_state_and_config_path(tmp_path: Path) -> None:
    custom = tmp_path / "elsewhere" / "my.json"
    custom.parent.mkdir()
    custom.write_text('{"agents": {"defaults": {"memorySearch": {"store": {"path": "/idx/{agentId}.db"}}}}}')
    env = {
        "HOME": str(tmp_path),
        "OPENCLAW_CONFIG_PATH": str(custom),
        "OPENCLAW_STATE_DIR": str(tmp_path / "state"),
        "OPENCLAW_PROFILE": "work",
    }
    setup = config.discover(env)
    assert setup.config_path == custom and setup.state_dir == tmp_path / "state"
    (agent,) = setup.agents
    assert agent.index_path == Path("/idx/main.db")
    assert agent.workspace == tmp_path / ".openclaw" / "workspace-work"
    assert agent.sessions_dir == tmp_path / "state" / "agents" / "main" / "sessions"


def test_legacy_clawdbot_folder(tmp_path: Path) -> None:
    (tmp_path / ".clawdbot").mkdir()
    (tmp_path / ".clawdbot" / "clawdbot.json").write_text("{}")
    assert config.config_path({"HOME": str(tmp_path)}) == tmp_path / ".clawdbot" / "clawdbot.json"
    assert config.state_dir({"HOME": str(tmp_path)}) == tmp_path / ".clawdbot"


def test_include_files_are_merged(tmp_path: Path) -> None:
    state = tmp_path / ".openclaw"
    state.mkdir()
    (state / "agents.json5").write_text('{list: [{id: "a"}, {id: "b", default: true}]}')
    (state / "m1.json5").write_text("{query: {maxResults: 3, minScore: 0.1}}")
    (state / "m2.json5").write_text("{query: {maxResults: 5}}")
    (state / "openclaw.json").write_text(
        json.dumps(
            {
                "agents": {"$include": "./agents.json5"},
                "memory": {"search": {"$include": ["./m1.json5", "./m2.json5"], "provider": "none"}},
            }
        )
    )
    setup = config.discover({"HOME": str(tmp_path)})
    assert [a.id for a in setup.agents] == ["a", "b"] and setup.agent().id == "b"
    search = setup.agent().search
    assert search is not None
    assert (search.max_results, search.min_score, search.provider) == (5, 0.1, "none")
    assert len(setup.includes) == 3


@pytest.mark.parametrize(
    "text, message",
    [
        ("{agents: ", "not valid JSON5"),
        ("[1, 2]", "top level must be an object"),
        ('{"a": {"$include": "./missing.json5"}}', "cannot read"),
    ],
)
def test_bad_config_is_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    env = _home(tmp_path, text)
    with pytest.raises(config.OpenClawConfigError, match=message):
        config.discover(env)


def test_normalize_agent_id() -> None:
    assert config.normalize_agent_id("Main") == "main"
    assert config.normalize_agent_id("  my agent!! ") == "my-agent"
    assert config.normalize_agent_id("!!!") == "main"
    assert config.normalize_agent_id(None) == "main"
