"""An agent searches over MCP while the app itself is syncing the same index (new notes
being embedded): every search is answered, none gets a busy error, and the app's sync
finishes as usual."""

from __future__ import annotations

from pathlib import Path

import anyio

from tests.mcp.conftest import call, mcp_session
from tests.ui.conftest import wait_idle

QUERY = "which database did we pick for the vector store"


def test_mcp_searches_while_the_app_syncs(  # type: ignore[no-untyped-def]
    qtbot, make_window, workspace: Path, minilm_path: Path, hybrid_index: Path, tmp_path: Path
) -> None:
    window = make_window(workspace, model=minilm_path, seed_index=hybrid_index)
    session = window.session
    # New notes: the app's watcher starts a sync that embeds them.
    folder = workspace / "memory" / "bulk"
    folder.mkdir()
    for i in range(40):
        words = " ".join(f"topic{(i * 7 + k) % 97} detail{k}" for k in range(80))
        (folder / f"note-{i:03d}.md").write_text(f"# Bulk note {i}\n\n{words}\n", encoding="utf-8")
    qtbot.waitUntil(lambda: session.is_syncing, timeout=60_000)

    async def body() -> tuple[list[dict], list[bool]]:
        # The window's data dir: the same index, the app's sync holding its write lock.
        async with mcp_session(workspace, tmp_path / "data", "--model", str(minilm_path)) as s:
            answers, syncing = [], []
            for _ in range(3):
                answers.append(await call(s, "memory_search", query=QUERY, max_results=3))
                syncing.append(session.is_syncing)
            return answers, syncing

    answers, app_syncing = anyio.run(body)
    assert app_syncing[0], "the app's sync had finished before the first answer: nothing tested"
    assert all(a["results"] for a in answers), answers
    assert all(a["mode"] in ("hybrid", "fts") for a in answers)
    wait_idle(qtbot, window)
    status = session.engine.status()
    assert not status.damage and status.files == 100 and not status.dirty_files
