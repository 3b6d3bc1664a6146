"""The CLI's JSON contract and its error behaviour, through a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

RESULT_KEYS = {
    "rank",
    "path",
    "start_line",
    "end_line",
    "snippet",
    "vector_score",
    "text_score",
    "merged_score",
    "decay",
    "score",
    "pre_mmr_rank",
    "mmr_rank",
    "date",
    "recency",
    "date_boost",
    "same_note_penalty",
    "supersede_bonus",
    "supersedes",
    "superseded_by",
    "rank_without_recency",
    "importance",
    "importance_multiplier",
    "project_key",
    "project_multiplier",
    "near_tie",
}


def run(*args: str, home: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MEMDESK_HOME=str(home))
    out = subprocess.run(
        [sys.executable, "-m", "memdesk", *args], capture_output=True, text=True, env=env, timeout=600
    )
    if check:
        assert out.returncode == 0, out.stderr
    return out


def test_index_search_status_fts_only(example_workspace: Path, memdesk_home: Path) -> None:
    ws = str(example_workspace)
    index = json.loads(run("index", "--workspace", ws, "--model", "none", "--json", home=memdesk_home).stdout)
    assert set(index) >= {"files", "chunks", "embedded", "cache_hits", "removed", "seconds", "mode"}
    assert index["mode"] == "fts" and index["files"] >= 50 and index["embedded"] == 0

    out = json.loads(
        run(
            "search",
            "API鉴权方案",
            "--workspace",
            ws,
            "--model",
            "none",
            "--json",
            "--now",
            "2026-12-01",
            home=memdesk_home,
        ).stdout
    )
    assert set(out) == {
        "query",
        "mode",
        "mode_reason",
        "profile",
        "settings",
        "clock",
        "filters",
        "timings_ms",
        "results",
    }
    assert out["mode"] == "fts" and out["mode_reason"] is None  # null unless nothing could be searched
    assert out["profile"] == "memdesk" and out["results"]
    assert out["clock"] == "2026-12-01" and out["filters"] is None  # --now is the clock
    assert set(out["results"][0]) == RESULT_KEYS
    assert [r["rank"] for r in out["results"]] == list(range(1, len(out["results"]) + 1))
    assert any("鉴权" in r["path"] for r in out["results"][:3])

    status = json.loads(
        run("status", "--workspace", ws, "--model", "none", "--json", home=memdesk_home).stdout
    )
    assert status["mode"] == "fts" and status["dirty_files"] == [] and status["fts_available"]
    assert "no embedding model" in status["fallback_reason"]


def test_search_flags_shape_the_ranking(example_workspace: Path, memdesk_home: Path) -> None:
    ws = str(example_workspace)
    base = ["search", "deploy day", "--workspace", ws, "--model", "none", "--json", "--now", "2026-12-01"]
    out = json.loads(run(*base, "--max-results", "3", "--no-decay", "--no-mmr", home=memdesk_home).stdout)
    assert len(out["results"]) == 3
    assert all(r["decay"] == 1.0 and r["mmr_rank"] is None for r in out["results"])
    assert out["settings"]["decay"] is False and out["settings"]["max_results"] == 3
    decayed = json.loads(run(*base, "--decay", "--half-life", "7", home=memdesk_home).stdout)
    dated = [r for r in decayed["results"] if r["date"]]
    assert dated and all(r["decay"] < 1.0 for r in dated)
    # "openclaw" is an alias of the newest OpenClaw profile.
    oc = json.loads(run(*base, "--profile", "openclaw", home=memdesk_home).stdout)
    assert oc["profile"] == "openclaw-2026.9" and oc["settings"]["max_results"] == 6
    old = json.loads(run(*base, "--profile", "openclaw-2026.4", home=memdesk_home).stdout)
    assert old["profile"] == "openclaw-2026.4" and old["settings"]["decay"] is False


def test_get_and_refusals(example_workspace: Path, memdesk_home: Path) -> None:
    ws = str(example_workspace)
    text = run("get", "MEMORY.md", "--from", "1", "--lines", "2", "--workspace", ws, home=memdesk_home).stdout
    assert text.splitlines() == (example_workspace / "MEMORY.md").read_text().splitlines()[:2]
    (example_workspace / "secret.md").write_text("no")
    bad = run("get", "secret.md", "--workspace", ws, home=memdesk_home, check=False)
    assert bad.returncode == 1 and bad.stderr.startswith("memdesk: error:") and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["search", "x", "--workspace", "/nonexistent/dir"],
        ["search", "x", "--now", "yesterday", "--model", "none"],
        ["index", "--model", "/nonexistent/model.gguf", "--workspace", "/nonexistent"],
    ],
)
def test_user_errors_are_one_line(args: list[str], memdesk_home: Path, tmp_path: Path) -> None:
    out = run(*args, home=memdesk_home, check=False)
    assert out.returncode == 1
    assert "Traceback" not in out.stderr and out.stderr.startswith("memdesk: error:")


def test_bad_model_falls_back_to_fts_with_a_warning(
    example_workspace: Path, memdesk_home: Path, tmp_path: Path
) -> None:
    fake = tmp_path / "broken.gguf"
    fake.write_bytes(b"GGUF" + b"\x00" * 20)
    out = run(
        "search",
        "deploy",
        "--workspace",
        str(example_workspace),
        "--model",
        str(fake),
        "--json",
        home=memdesk_home,
    )
    assert json.loads(out.stdout)["mode"] == "fts"
    assert "broken.gguf" in out.stderr


def test_hybrid_search_with_real_model(
    example_workspace: Path, memdesk_home: Path, minilm_path: Path
) -> None:
    ws = str(example_workspace)
    rep = json.loads(
        run("index", "--workspace", ws, "--model", str(minilm_path), "--json", home=memdesk_home).stdout
    )
    assert rep["mode"] == "hybrid" and rep["embedded"] > 0
    out = json.loads(
        run(
            "search",
            "which vector database did we finally pick",
            "--workspace",
            ws,
            "--model",
            str(minilm_path),
            "--json",
            home=memdesk_home,
        ).stdout
    )
    assert out["mode"] == "hybrid"
    top = out["results"][0]
    assert top["vector_score"] is not None and top["text_score"] is not None
    assert "embed_ms" in out["timings_ms"]


def test_search_explain(example_workspace: Path, memdesk_home: Path) -> None:
    ws = str(example_workspace)
    args = ("search", "vector store decision", "--workspace", ws, "--model", "none", "--now", "2026-12-01")
    out = json.loads(run(*args, "--explain", "--decay", "--json", home=memdesk_home).stdout)
    assert out["results"], "the example workspace has matches"
    for r in out["results"]:
        e = r["explain"]
        # The explanation is of the very hit it sits under, with the ranking's own numbers.
        assert (e["path"], e["start_line"], e["final"], e["decay"]) == (
            r["path"],
            r["start_line"],
            r["score"],
            r["decay"],
        )
        assert e["decay_state"] in ("evergreen", "dated") and e["mode"] == "fts"
    assert any(
        m["text"].lower() in ("vector", "store", "decision")
        for r in out["results"]
        for m in r["explain"]["matched"]
    )
    text = run(*args, "--explain", home=memdesk_home).stdout
    assert "merged   text" in text and "final    " in text
    assert "merged" not in run(*args, home=memdesk_home).stdout


def test_search_explain_says_which_words_the_keyword_leg_left_out(
    tmp_path: Path, memdesk_home: Path, minilm_path: Path
) -> None:
    """A hybrid search's --explain says that the text score counts for the share of the
    query's words the keyword leg searched, in the explanation pane's words."""
    ws = tmp_path / "workspace"
    (ws / "memory").mkdir(parents=True)
    for day, topic in enumerate(["hiking trip", "pottery class", "violin lessons", "dog shelter"], 1):
        lines = "\n".join(f"- Caroline: today was about the {topic}, part {n}." for n in range(3))
        (ws / "memory" / f"2023-05-0{day}.md").write_text(f"# 2023-05-0{day}\n\n{lines}\n", encoding="utf-8")
    args = ("search", "--workspace", str(ws), "--model", str(minilm_path), "--explain")
    text = run(*args[:1], "Caroline pottery class", *args[1:], home=memdesk_home).stdout
    share = (
        "    share    Text ×2/3: 2 of 3 query words searched (“caroline” is in half the notes or more); "
        "already in the text score above"
    )
    assert share in text.splitlines(), text
    # Matched words are those the keyword leg searched, as in the pane: not "Caroline".
    matched = [line for line in text.splitlines() if line.startswith("    matched  ")]
    assert matched and all("pottery" in line and "caroline" not in line.lower() for line in matched), text
    # Every word searched: nothing about it.
    assert "share    " not in run(*args[:1], "pottery class", *args[1:], home=memdesk_home).stdout
