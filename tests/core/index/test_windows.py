"""Passage windows: which chunks get them, and how lines are packed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from memdesk.core import engine
from memdesk.core.embed.embedder import Embedder
from memdesk.core.index import windows
from memdesk.core.index.store import Store
from memdesk.core.openclaw.text import hash_text
from memdesk.core.search.settings import SearchSettings


def test_dialog_turns_are_packed_into_windows_under_the_limit() -> None:
    turns = [f"- {'Caroline' if i % 2 else 'Melanie'}: turn {i} " + "word " * 25 for i in range(10)]
    text = "## 1:56 pm — Caroline and Melanie\n\n" + "\n".join(turns)
    out = windows.text_windows(text)
    assert len(out) >= 3
    assert all(len(w) <= windows.WINDOW_CHARS for w in out)
    # Every turn is in exactly one window, in order, and the heading in none.
    assert "\n".join(out).split("\n") == turns
    assert windows.window_hashes(text) == tuple(hash_text(w) for w in out)


def test_prose_and_short_chunks_get_no_windows() -> None:
    """A title and an abstract (SciFact, XQuAD) is one passage: the chunk vector covers it."""
    abstract = "# Structural homeostasis\n\n" + "As the nervous system develops, neurons vary. " * 40
    assert windows.text_windows(abstract) == ()
    assert windows.text_windows("- one\n- two") == ()  # under three lines
    assert windows.text_windows("- a\n- b\n- c") == ()  # would be a single window


def test_a_long_line_is_a_window_by_itself_never_split() -> None:
    long = "- " + "x" * 900
    out = windows.text_windows(f"- short one\n{long}\n- short two")
    assert out == ("- short one", long, "- short two")


def _dialog_workspace(root: Path) -> Path:
    (root / "memory").mkdir(parents=True)
    topics = [
        "the weather turned cold and rainy all week",
        "a new recipe for lentil soup with cumin",
        "the football match went into extra time",
        "repainting the kitchen a pale green",
        "a long train ride along the coast",
        "the library's new opening hours",
    ]
    turns = [
        f"- {'Caroline' if i % 2 else 'Melanie'}: We talked about {t}." for i, t in enumerate(topics * 2)
    ]
    turns.insert(6, "- Caroline: I'm saving up to adopt a puppy from the shelter next spring!")
    (root / "memory" / "2023-05-08.md").write_text(
        "# 2023-05-08\n\n## 1:56 pm — Caroline and Melanie\n\n" + "\n".join(turns) + "\n", encoding="utf-8"
    )
    (root / "MEMORY.md").write_text("# MEMORY\n\nCaroline and Melanie are friends.\n", encoding="utf-8")
    return root


def test_a_sync_embeds_every_window_into_the_cache_once(tmp_path: Path, minilm_embedder: Embedder) -> None:
    root = _dialog_workspace(tmp_path / "ws")
    db = tmp_path / "index.sqlite"
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    embed_progress: list[tuple[int, int]] = []
    first = eng.sync(
        progress=lambda p: embed_progress.append((p.embedded, p.to_embed)) if p.phase == "embed" else None
    )
    eng.close()
    store = Store(db)
    try:
        texts = [text for _rid, text in store.chunk_texts()]
        hashes = [h for text in texts for h in windows.window_hashes(text)]
        assert len(hashes) >= 2
        ident = minilm_embedder.identity
        cached = store.cached_embeddings(ident.provider, ident.model, ident.provider_key, hashes)
        assert set(cached) == set(hashes)
        assert not store.vectors_pending()
    finally:
        store.close()
    # Progress and the report count chunks, as the status bar's chunk count does: a
    # chunk and its windows are one unit, though more texts went to the model.
    assert first.embedded == len(set(texts)) < len(texts) + len(set(hashes))
    assert embed_progress[-1] == (len(set(texts)), len(set(texts)))
    assert [done for done, _ in embed_progress] == sorted(done for done, _ in embed_progress)
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    again = eng.sync()
    eng.close()
    assert again.embedded == 0


def test_a_chunk_scores_as_its_best_window_when_that_beats_the_chunk(
    tmp_path: Path, minilm_embedder: Embedder
) -> None:
    """The memdesk profile's cosine of a dialog chunk is max(chunk, best window), computed
    from the cached vectors; switched off, it is the chunk vector's alone (as OpenClaw)."""
    root = _dialog_workspace(tmp_path / "ws")
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=tmp_path / "index.sqlite")
    try:
        eng.sync()
        query = "Is Caroline going to adopt a dog?"
        settings = SearchSettings.defaults("memdesk")
        with_windows = {
            c.chunk_id: c for c in eng.fetch_candidates(query, settings, mode="vector").candidates
        }
        eng.memdesk_options = dataclasses.replace(eng.memdesk_options, window_vectors=False)
        plain = {c.chunk_id: c for c in eng.fetch_candidates(query, settings, mode="vector").candidates}
    finally:
        eng.close()
    qvec = minilm_embedder.embed_query(query)
    dialog = [c for c in plain.values() if windows.text_windows(c.text)]
    assert dialog
    for c in dialog:
        best = float(np.max(minilm_embedder.embed_documents(list(windows.text_windows(c.text))) @ qvec))
        assert with_windows[c.chunk_id].vector_score == pytest.approx(
            max(plain[c.chunk_id].vector_score, best), abs=1e-4
        )
    # The turn about the dog is one window of a longer chunk: its window beats the chunk.
    assert any(with_windows[c.chunk_id].vector_score > plain[c.chunk_id].vector_score + 0.01 for c in dialog)
    # MEMORY.md (one line) has no windows: its cosine is unchanged.
    memory = next(c for c in plain.values() if c.path == "MEMORY.md")
    assert with_windows[memory.chunk_id].vector_score == memory.vector_score
