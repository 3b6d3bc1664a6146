"""Searching while a sync embeds notes: the answer comes from the keyword index at once
(the query neither waits for nor competes with the indexer's batches), the summary line
says so, and the same query turns hybrid when the sync is done."""

from __future__ import annotations

import threading
from pathlib import Path

from memdesk.core.embed import gguf_embedder
from tests.ui.conftest import SYNC_TIMEOUT_MS, search, wait_idle

GATE_S = 120.0


def test_a_search_while_notes_are_embedded_is_keyword_only_and_says_so(
    qtbot,  # type: ignore[no-untyped-def]
    workspace: Path,
    minilm_path: Path,
    hybrid_index: Path,
    make_window,  # type: ignore[no-untyped-def]
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    window = make_window(workspace, model=minilm_path, seed_index=hybrid_index)
    session = window.session
    gate = threading.Event()
    real_embed = gguf_embedder.GgufEmbedder.embed_documents

    def held_embed(self, texts):  # type: ignore[no-untyped-def]
        gate.wait(GATE_S)  # the indexer's batch, held as a long one on a slow machine would be
        return real_embed(self, texts)

    monkeypatch.setattr(gguf_embedder.GgufEmbedder, "embed_documents", held_embed)
    rel = "memory/2026-06-30.md"
    try:
        (workspace / rel).write_text(
            "# 2026-06-30\n\nThe Atlas database moved to the quokka cluster today.\n", encoding="utf-8"
        )
        session.request_sync([rel])
        qtbot.waitUntil(lambda: session.engine.embedder_busy, timeout=SYNC_TIMEOUT_MS)

        results = search(qtbot, window, "quokka cluster")
        assert results.pool is not None and results.pool.mode == "fts" and results.pool.embedder_busy
        assert [h.path for h in results.hits][:1] == [rel]  # its keyword index is in already
        assert "keyword-only while notes are being embedded" in window.search_panel.summary.text()
        window.results_table.selectRow(0)  # and the hit's explanation says the same, not "no model"
        detail = window.search_panel.detail.toPlainText()
        assert "keyword-only while notes are being embedded" in detail and "no embedding model" not in detail
        # The status bar's mode agrees with the search: not "Hybrid" while embedding.
        assert window.mode_label.text().startswith("FTS-only (embedding notes"), window.mode_label.text()
    finally:
        gate.set()
    qtbot.waitUntil(
        lambda: (
            session.results is not None
            and session.results.query == "quokka cluster"
            and session.results.pool is not None
            and session.results.pool.mode == "hybrid"
        ),
        timeout=SYNC_TIMEOUT_MS,
    )
    assert not session.results.pool.embedder_busy
    assert session.results.hits[0].path == rel and session.results.hits[0].vector_score is not None
    assert "being embedded" not in window.search_panel.summary.text()
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.mode_label.text() == "Hybrid", timeout=SYNC_TIMEOUT_MS)
