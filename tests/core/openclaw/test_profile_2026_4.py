"""The app's openclaw-2026.4 profile keeps OpenClaw 2026.4.12's own index of the workspace.

Its chunking, file list and embedding recipe are the release's, not the main index's
(memdesk shrinks chunks for 512-token models, indexes USER.md and prefixes e5 input),
and its vectors are kept on disk so a second run does not embed again.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memdesk.core import engine as engine_mod
from memdesk.core.embed import gguf_embedder
from memdesk.core.openclaw import chunking
from memdesk.core.search import settings as settings_mod
from memdesk.core.search.profiles import runner_2026_4 as profile_2026_4
from memdesk.core.search.profiles import runner_common as profile_common

REPO = Path(__file__).resolve().parents[3]
GENERATED = REPO / "tests" / "fixtures" / "openclaw" / "workspaces" / "generated"
OC4 = settings_mod.SearchSettings.defaults(settings_mod.OPENCLAW_2026_4)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "generated"
    shutil.copytree(GENERATED, ws)
    return ws


def _rows(result: engine_mod.SearchResult) -> list[tuple[str, int, int, float]]:
    return [(h.path, h.start_line, h.end_line, h.score) for h in result.hits]


def test_own_index_is_the_releases_not_the_main_one(
    workspace: Path, tmp_path: Path, minilm_path: Path
) -> None:
    eng = engine_mod.Engine(
        workspace, embedder=gguf_embedder.GgufEmbedder(minilm_path), db_path=tmp_path / "i.sqlite"
    )
    try:
        eng.sync()
        eng.pin_agent_settings(profile_common.AgentSettings())
        eng.search("Lin Wei", OC4)
        runner = eng._oc4
        assert runner is not None
        index = runner.index(eng.embedder, None, eng.embed_lock)
        # 2026.4 lists MEMORY.md, memory.md and memory/**: USER.md is not its source.
        assert "USER.md" not in {c.path for c in index.chunks}
        # Its chunks are chunkMarkdown at 400/80 (memdesk's main index uses 384/76 for MiniLM).
        text = (workspace / "MEMORY.md").read_text(encoding="utf-8")
        want = [(c.start_line, c.end_line) for c in chunking.chunk_markdown(text, 400, 80) if c.text.strip()]
        assert [(c.start_line, c.end_line) for c in index.chunks if c.path == "MEMORY.md"] == want
        assert index.vectors is not None and index.vectors.shape == (len(index.chunks), 384)
    finally:
        eng.close()


def test_vectors_are_kept_on_disk_and_an_edit_re_embeds_only_its_note(
    workspace: Path, tmp_path: Path, e5_path: Path
) -> None:
    db = tmp_path / "i.sqlite"
    base = gguf_embedder.GgufEmbedder(e5_path)
    first = engine_mod.Engine(workspace, embedder=base, db_path=db)
    try:
        first.pin_agent_settings(profile_common.AgentSettings())
        want = _rows(first.search("向量检索最终用的是哪个数据库？", OC4))
        assert first._oc4 is not None
        embedded = first._oc4._vectors.embedded
        assert embedded > 20 and want
    finally:
        first.close()
    assert (tmp_path / "i.sqlite.openclaw-vectors").stat().st_size > embedded * 384 * 4

    second = engine_mod.Engine(workspace, embedder=base, db_path=db)  # the next run
    try:
        second.pin_agent_settings(profile_common.AgentSettings())
        assert _rows(second.search("向量检索最终用的是哪个数据库？", OC4)) == want
        assert second._oc4 is not None and second._oc4._vectors.embedded == 0
        note = workspace / "memory" / "2026-09-01.md"
        note.write_text(
            note.read_text(encoding="utf-8") + "\n- 新的一行：向量库换成了 sqlite-vec。\n", encoding="utf-8"
        )
        second.search("sqlite-vec", OC4)
        index = second._oc4.index(base, None, second.embed_lock)
        assert second._oc4._vectors.embedded == sum(c.path == "memory/2026-09-01.md" for c in index.chunks)
    finally:
        second.close()


def test_agents_2026_4_config_sets_chunking_and_extra_paths(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The open workspace is a 2026.4 agent's: its memorySearch.chunking and extraPaths apply."""
    state = tmp_path / "home" / ".openclaw"
    state.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("OPENCLAW_STATE_DIR", "OPENCLAW_CONFIG_PATH", "OPENCLAW_PROFILE"):
        monkeypatch.delenv(var, raising=False)
    extra = tmp_path / "runbook.md"
    extra.write_text("# Runbook\n\nRestore the nightly backup with the restore script.\n", encoding="utf-8")
    ms = {"provider": "auto", "chunking": {"tokens": 120, "overlap": 20}, "extraPaths": [str(extra)]}
    (state / "openclaw.json").write_text(
        json.dumps({"agents": {"defaults": {"workspace": str(workspace), "memorySearch": ms}}})
    )
    runner = profile_2026_4.Runner(workspace)
    assert (runner.settings.chunk_tokens, runner.settings.chunk_overlap) == (120, 20)
    index = runner.index(None, None, None)
    text = (workspace / "MEMORY.md").read_text(encoding="utf-8")
    want = [(c.start_line, c.end_line) for c in chunking.chunk_markdown(text, 120, 20) if c.text.strip()]
    assert [(c.start_line, c.end_line) for c in index.chunks if c.path == "MEMORY.md"] == want
    assert "../runbook.md" in {c.path for c in index.chunks}

    eng = engine_mod.Engine(workspace, embedder=None, db_path=tmp_path / "i.sqlite")
    try:
        hits = eng.search("restore nightly backup", OC4.replace(min_score=0.0)).hits
        assert hits and hits[0].path == "../runbook.md"
    finally:
        eng.close()
