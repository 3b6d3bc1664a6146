"""Agent doctor on real files and the real MiniLM tokenizer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.core.agent import config, doctor


def _setup(tmp_path: Path, workspace: Path, search: dict[str, object], layout: str) -> config.OpenClawSetup:
    state = tmp_path / ".openclaw"
    state.mkdir(exist_ok=True)
    if layout == "2026.4":
        data = {"agents": {"defaults": {"workspace": str(workspace), "memorySearch": search}}}
    else:
        data = {"agents": {"defaults": {"workspace": str(workspace)}}, "memory": {"search": search}}
    (state / "openclaw.json").write_text(json.dumps(data))
    return config.discover({"HOME": str(tmp_path)})


def test_example_workspace_overflows_minilm_context(
    tmp_path: Path, example_workspace: Path, minilm_path: Path
) -> None:
    """OpenClaw 2026.4's 400/80 chunking makes three chunks longer than MiniLM's 512 tokens.

    Measured with real OpenClaw: node-llama-cpp throws for chunks of 523, 522 and 519
    tokens (special tokens included) and the whole reindex is discarded.
    """
    setup = _setup(
        tmp_path, example_workspace, {"provider": "local", "local": {"modelPath": str(minilm_path)}}, "2026.4"
    )
    report = doctor.run_doctor(setup, setup.agent())
    too_long = [f for f in report.findings if f.code == "chunk_too_long" and f.path]
    assert [(f.path, f.start_line, f.end_line) for f in too_long] == [
        ("memory/decisions/database.md", 1, 30),
        ("memory/projects/atlas.md", 1, 34),
        ("memory/topics/鉴权.md", 1, 33),
    ]
    assert [f.message.split("(")[1].split(" tokens")[0] for f in too_long] == [
        "523 with special",
        "522 with special",
        "519 with special",
    ]
    summary = [f for f in report.findings if f.code == "chunk_too_long" and not f.path]
    assert len(summary) == 1 and "discards the whole reindex" in summary[0].message
    assert report.worst == "error"


def test_2026_9_agents_are_checked_with_2026_9_chunks(
    tmp_path: Path, example_workspace: Path, minilm_path: Path
) -> None:
    """2026.9's chunker v5 weighs CJK differently, so ``鉴权.md`` no longer overflows
    (docs/openclaw-versions.md); llama-server counts the special tokens too."""
    setup = _setup(
        tmp_path, example_workspace, {"provider": "local", "local": {"modelPath": str(minilm_path)}}, "2026.9"
    )
    assert setup.layout == "2026.9"
    report = doctor.run_doctor(setup, setup.agent())
    too_long = [f for f in report.findings if f.code == "chunk_too_long" and f.path]
    assert [(f.path, f.start_line, f.end_line) for f in too_long] == [
        ("memory/decisions/database.md", 1, 30),
        ("memory/projects/atlas.md", 1, 34),
    ]
    assert [f.message.split("(")[1].split(" with")[0] for f in too_long] == ["523", "522"]


def test_smaller_chunks_fit(tmp_path: Path, example_workspace: Path, minilm_path: Path) -> None:
    setup = _setup(
        tmp_path,
        example_workspace,
        {
            "provider": "local",
            "local": {"modelPath": str(minilm_path)},
            "chunking": {"tokens": 300, "overlap": 60},
        },
        "2026.4",
    )
    report = doctor.run_doctor(setup, setup.agent())
    assert not [f for f in report.findings if f.code == "chunk_too_long"]


def test_missing_model_is_said_not_guessed(tmp_path: Path, example_workspace: Path) -> None:
    setup = _setup(
        tmp_path,
        example_workspace,
        {"provider": "local", "local": {"modelPath": str(tmp_path / "nope.gguf")}},
        "2026.4",
    )
    report = doctor.run_doctor(setup, setup.agent(), models_dir=tmp_path / "no-models")
    (finding,) = [f for f in report.findings if f.code == "chunk_too_long"]
    assert finding.severity == "info" and "not on this machine" in finding.message


def test_dated_notes_the_agent_never_ages(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for rel in (
        "MEMORY.md",
        "memory/2026-11-20.md",
        "memory/2026-11-21-standup.md",
        "memory/2026-11/review.md",
        "memory/topics/db.md",
    ):
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text("note\n")
    (tmp_path / "ref").mkdir()
    (tmp_path / "ref" / "guide.md").write_text("guide\n")
    search = {
        "provider": "none",
        "extraPaths": [str(tmp_path / "ref")],
        "query": {"hybrid": {"temporalDecay": {"enabled": True}}},
    }
    old = doctor.run_doctor(s := _setup(tmp_path, ws, search, "2026.4"), s.agent())
    evergreen_old = {f.path for f in old.findings if f.code == "decay" and f.severity == "warning"}
    # 2026.4 dates only memory/YYYY-MM-DD.md: the slug note and the month folder never age.
    assert evergreen_old == {"memory/2026-11-21-standup.md", "memory/2026-11/review.md"}
    assert any(
        f.code == "decay" and f.path == "../ref/guide.md" and "modification time" in f.message
        for f in old.findings
    )
    new = doctor.run_doctor(s := _setup(tmp_path, ws, {"provider": "none"}, "2026.9"), s.agent())
    # 2026.9 dates suffixed names at any depth; only the undated file in a month folder stays evergreen.
    assert {f.path for f in new.findings if f.code == "decay" and f.severity == "warning"} == {
        "memory/2026-11/review.md"
    }
    decay_off = doctor.run_doctor(s := _setup(tmp_path, ws, {"provider": "none"}, "2026.4"), s.agent())
    assert not [f for f in decay_off.findings if f.code == "decay"]  # 2026.4 decay is off by default


def test_skipped_files_and_no_index(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory.md").write_text("legacy\n")
    (ws / "DREAMS.md").write_text("dream\n")
    setup = _setup(tmp_path, ws, {"provider": "none", "extraPaths": ["gone"]}, "2026.9")
    report = doctor.run_doctor(setup, setup.agent())
    skipped = {f.path for f in report.findings if f.code == "skipped" and f.path}
    assert skipped == {"memory.md", "DREAMS.md", "gone"}
    assert any(f.code == "no_index" and "openclaw memory index" in (f.fix or "") for f in report.findings)


def test_scope_hash_is_openclaws_json_shape(tmp_path: Path) -> None:
    """``resolveConfiguredScopeHash`` hashes compact JSON of the extra paths and multimodal settings."""
    import hashlib

    search = config.discover({"HOME": str(tmp_path)}).agent().search
    assert search is not None
    payload = b'{"extraPaths":[],"multimodal":{"enabled":false,"modalities":[],"maxFileBytes":10485760}}'
    assert doctor.scope_hash(search, tmp_path, "2026.9") == hashlib.sha256(payload).hexdigest()


def test_annotations_the_agent_ignores(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("- tea <!-- importance: 8 -->\n- coffee <!-- importance: 2 --> later\n")
    (ws / "memory" / "2026-11-20.md").write_text("- standup <!-- importance: 9 -->\n- plain\n")
    new = doctor.run_doctor(s := _setup(tmp_path, ws, {"provider": "none"}, "2026.9"), s.agent())
    found = {(f.path, f.start_line): f.message for f in new.findings if f.code == "annotation"}
    assert set(found) == {("MEMORY.md", 2), ("memory/2026-11-20.md", 1)}
    assert "end of a line" in found[("MEMORY.md", 2)]
    assert "only in MEMORY.md and USER.md" in found[("memory/2026-11-20.md", 1)]
    old = doctor.run_doctor(s := _setup(tmp_path, ws, {"provider": "none"}, "2026.4"), s.agent())
    assert {f.path for f in old.findings if f.code == "annotation"} == {"MEMORY.md", "memory/2026-11-20.md"}


def _failed_recordings() -> list[object]:
    root = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw"
    out = []
    for path in sorted(root.glob("*/example-*.json")):
        fixture = json.loads(path.read_text(encoding="utf-8"))
        if fixture.get("index_failed"):
            out.append(pytest.param(fixture, id=path.stem, marks=pytest.mark.model))
    return out


@pytest.mark.parametrize("fixture", _failed_recordings())
def test_doctor_predicts_the_reindex_failure_real_openclaw_recorded(
    tmp_path: Path,
    example_workspace: Path,
    fixture: dict[str, object],
    request: pytest.FixtureRequest,
) -> None:
    """Real OpenClaw over the example workspace with a 512-token model: the reindex failed
    (2026.4.12: node-llama-cpp's "Input is longer than the context size"; 2026.9.6: the
    embedding server's "too large to process", retried, then "Memory index failed") and
    left nothing indexed. The doctor, given that agent's config (its local provider; the
    2026.9 recording reached the same model through a stand-in server), says so before
    the agent hits it, and for 2026.9 counts exactly the tokens the server refused."""
    from memdesk.core.embed import model_digest

    version = str(fixture["openclaw_version"])
    failure = str(fixture["index_failed"])
    assert (
        "longer than the context size" if version.startswith("2026.4") else "too large to process"
    ) in failure
    status = fixture["status"]
    assert isinstance(status, list) and status[0]["status"]["chunks"] == 0
    model = request.getfixturevalue({"minilm": "minilm_path", "e5": "e5_path"}[str(fixture["mode"])])
    assert model_digest.file_sha256(model) == fixture["model_sha256"]
    layout = "2026.4" if version.startswith("2026.4") else "2026.9"
    setup = _setup(
        tmp_path, example_workspace, {"provider": "local", "local": {"modelPath": str(model)}}, layout
    )
    report = doctor.run_doctor(setup, setup.agent())
    assert report.worst == "error"
    (summary,) = [f for f in report.findings if f.code == "chunk_too_long" and not f.path]
    assert "discards the whole reindex" in summary.message
    too_long = [f for f in report.findings if f.code == "chunk_too_long" and f.path]
    assert len(too_long) >= 1
    embedded = fixture.get("embedded_texts")
    if isinstance(embedded, dict):  # what the 2026.9 recording's server refused, by token count
        refused = {int(r["tokens"]) for r in embedded["rejected_over_context"]}
        predicted = {int(f.message.split("(")[1].split(" with")[0]) for f in too_long}
        assert predicted == refused


NOW_MS = 1_795_000_000_000  # 2026-11-18, after the notes' dates


def test_malformed_project_comment_names_the_hidden_note_and_line(tmp_path: Path) -> None:
    """A bare ``<!-- project: -->`` (and an unclosed or ``<``-holding key) makes 2026.9
    store the entry as an invalid project; its keyword search then never returns the
    note. The doctor names the note and the comment's line, and what is hidden."""
    from memdesk.core.openclaw import v2026_9

    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("- Atlas ships in March <!-- project: atlas -->\n")
    (ws / "memory" / "2026-11-10.md").write_text(
        "# Standup\n\n- the zeppelin importer shipped\n<!-- project: -->\n- Jonas reviews it\n"
    )
    (ws / "memory" / "2026-11-11.md").write_text("- zeppelin load test <!-- project: atlas -->\n")
    long_note = ["# Log", "- zeppelin notes <!-- project: atl<as -->", *["- filler line " * 8] * 40]
    (ws / "memory" / "2026-11-12.md").write_text("\n".join(long_note) + "\n")
    setup = _setup(tmp_path, ws, {"provider": "none"}, "2026.9")
    report = doctor.run_doctor(setup, setup.agent())
    found = {(f.path, f.start_line): f for f in report.findings if f.code == "project"}
    assert set(found) == {("memory/2026-11-10.md", 4), ("memory/2026-11-12.md", 2)}
    whole = found[("memory/2026-11-10.md", 4)]
    assert whole.severity == "error" and "hides the whole note from every search" in whole.message
    assert "hides lines 1-" in found[("memory/2026-11-12.md", 2)].message
    # What the doctor predicts is what the agent's search does.
    index = v2026_9.Index(ws)
    paths = {r.path for r in v2026_9.Searcher(index).search("zeppelin", now_ms=NOW_MS, min_score=0)}
    assert "memory/2026-11-11.md" in paths and "memory/2026-11-10.md" not in paths
    # 2026.4 reads no annotations, so nothing is hidden there.
    old = doctor.run_doctor(s := _setup(tmp_path, ws, {"provider": "none"}, "2026.4"), s.agent())
    assert not [f for f in old.findings if f.code == "project"]


def _cjk_workspace(root: Path) -> Path:
    ws = root / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("- 我们决定用PostgreSQL存储订单数据\n- 鉴权服务由王磊负责维护\n")
    (ws / "memory" / "2026-11-10.md").write_text("- 周会讨论了支付接口的超时问题，决定重试三次\n")
    return ws


def test_chinese_workspace_searched_by_keyword_only_is_warned_and_offers_trigram(tmp_path: Path) -> None:
    """unicode61 makes ``我们决定用PostgreSQL存储订单数据`` a few long words, so a Chinese
    question finds nothing; the trigram tokenizer finds it. The doctor says so and carries
    the config change "Apply to OpenClaw…" writes."""
    from memdesk.core.openclaw import v2026_9

    ws = _cjk_workspace(tmp_path)
    setup = _setup(tmp_path, ws, {"provider": "none"}, "2026.9")
    (finding,) = [f for f in doctor.run_doctor(setup, setup.agent()).findings if f.code == "cjk_keyword_only"]
    assert finding.severity == "warning" and "trigram" in (finding.fix or "")
    assert finding.config_change == {"fts_tokenizer": "trigram"}
    assert finding.to_json()["configChange"] == {"fts_tokenizer": "trigram"}
    for query in ("订单数据", "超时问题"):
        plain = v2026_9.Searcher(v2026_9.Index(ws)).search(query, now_ms=NOW_MS, min_score=0)
        trigram = v2026_9.Searcher(v2026_9.Index(ws, tokenizer="trigram")).search(
            query, now_ms=NOW_MS, min_score=0
        )
        assert plain == [] and trigram, query
    # 2026.4's keyword-only search has the same unicode61 index (its profile finds nothing either).
    old = _setup(tmp_path, ws, {"provider": "none"}, "2026.4")
    assert [f.code for f in doctor.run_doctor(old, old.agent()).findings if f.code == "cjk_keyword_only"]
    # With trigram already, with an embedding model, or in an English workspace: no warning.
    for search in ({"provider": "none", "store": {"fts": {"tokenizer": "trigram"}}}, {"provider": "local"}):
        setup = _setup(tmp_path, ws, search, "2026.9")
        assert not [
            f for f in doctor.run_doctor(setup, setup.agent()).findings if f.code == "cjk_keyword_only"
        ]
    (ws / "memory" / "2026-11-11.md").write_text("- the payments team moved the retry budget to five\n" * 20)
    setup = _setup(tmp_path, ws, {"provider": "none"}, "2026.9")
    assert not [f for f in doctor.run_doctor(setup, setup.agent()).findings if f.code == "cjk_keyword_only"]


def test_local_provider_without_its_server_will_fail_offline(tmp_path: Path) -> None:
    """2026.9's local provider installs llama-server b10809 under
    ``<state>/tools/llama.cpp/b10809/<platform>-<arch>/`` on first use (a download)."""
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("- tea\n")
    setup = _setup(tmp_path, ws, {"provider": "local"}, "2026.9")
    (finding,) = [f for f in doctor.run_doctor(setup, setup.agent()).findings if f.code == "local_server"]
    assert "offline" in finding.message and "b10809" in finding.message
    assert finding.path == str(tmp_path / ".openclaw" / "tools" / "llama.cpp" / "b10809")
    server = tmp_path / ".openclaw" / "tools" / "llama.cpp" / "b10809" / "linux-x64" / "llama-server"
    server.parent.mkdir(parents=True)
    server.write_bytes(b"\x7fELF")
    assert not [f for f in doctor.run_doctor(setup, setup.agent()).findings if f.code == "local_server"]
    server.unlink()
    # A server of the user's own, named in the plugin's config, is never downloaded.
    own = tmp_path / "bin" / "llama-server"
    own.parent.mkdir()
    own.write_bytes(b"\x7fELF")
    config_path = tmp_path / ".openclaw" / "openclaw.json"
    data = json.loads(config_path.read_text())
    data["models"] = {"providers": {"llama-cpp": {"localService": {"command": str(own)}}}}
    config_path.write_text(json.dumps(data))
    setup = config.discover({"HOME": str(tmp_path)})
    assert not [f for f in doctor.run_doctor(setup, setup.agent()).findings if f.code == "local_server"]
    # 2026.4's local provider is node-llama-cpp: no server to download.
    old = _setup(tmp_path, ws, {"provider": "local"}, "2026.4")
    assert not [f for f in doctor.run_doctor(old, old.agent()).findings if f.code == "local_server"]
