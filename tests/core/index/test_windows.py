"""Passage windows: which chunks get them, and how lines are packed."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from memdesk.core import engine
from memdesk.core.embed.embedder import Embedder
from memdesk.core.index import windows
from memdesk.core.index.store import Store
from memdesk.core.openclaw.text import hash_text
from memdesk.core.search.hits import Candidate
from memdesk.core.search.settings import SearchSettings


def test_dialog_turns_are_packed_into_windows_under_the_limit() -> None:
    turns = [f"- {'Caroline' if i % 2 else 'Melanie'}: turn {i} " + "word " * 25 for i in range(10)]
    text = "## 1:56 pm — Caroline and Melanie\n\n" + "\n".join(turns)
    out = windows.packed_windows(text)
    assert len(out) >= 3
    assert all(len(w) <= windows.WINDOW_CHARS for w in out)
    # Every turn is in exactly one packed window, in order, and the heading in none.
    assert "\n".join(out).split("\n") == turns
    assert windows.text_windows(text) == out + windows.pair_windows(text)
    assert windows.window_hashes(text) == tuple(hash_text(w) for w in windows.text_windows(text))


def test_every_turn_gets_a_window_with_the_turn_before_it() -> None:
    """A reply ("Yes, the one by the lake!") names its subject only through the turn it
    answers: each line is also embedded paired with the line before it."""
    turns = [f"- {'Caroline' if i % 2 else 'Melanie'}: turn {i} " + "word " * 25 for i in range(6)]
    text = "# 2023-05-08\n\n## 1:56 pm — Caroline and Melanie\n\n" + "\n".join(turns)
    assert windows.pair_windows(text) == tuple(f"{a}\n{b}" for a, b in itertools.pairwise(turns))
    # Two overlapping chunks share the pairs of their common lines: one vector each.
    later = "\n".join([*turns[3:], "- Melanie: and one more turn"])
    shared = set(windows.pair_windows(text)) & set(windows.pair_windows(later))
    assert shared == {f"{turns[3]}\n{turns[4]}", f"{turns[4]}\n{turns[5]}"}


def test_prose_and_short_chunks_get_no_windows() -> None:
    """A title and an abstract (SciFact, XQuAD) is one passage: the chunk vector covers it."""
    abstract = "# Structural homeostasis\n\n" + "As the nervous system develops, neurons vary. " * 40
    assert windows.text_windows(abstract) == ()
    assert windows.text_windows("- one\n- two") == ()  # under three lines
    assert windows.text_windows("- a\n- b\n- c") == ()  # would be a single window
    assert windows.pair_windows("- a\n- b\n- c") == ()  # no pairs where no packed windows


def test_a_long_line_is_a_window_by_itself_never_split() -> None:
    long = "- " + "x" * 900
    out = windows.packed_windows(f"- short one\n{long}\n- short two")
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
    """The memdesk profile's cosine of a dialog chunk moves ``WINDOW_SHARE`` of the way to
    its best window (packed or line pair) when that beats the chunk, computed from the
    cached vectors; switched off, it is the chunk vector's alone (as OpenClaw)."""
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

    def expected(c: Candidate, cut: Callable[[str], tuple[str, ...]]) -> float:
        best = float(np.max(minilm_embedder.embed_documents(list(cut(c.text))) @ qvec))
        chunk = plain[c.chunk_id].vector_score
        assert chunk is not None
        return chunk if best <= chunk else chunk + windows.WINDOW_SHARE * (best - chunk)

    for c in dialog:
        assert with_windows[c.chunk_id].vector_score == pytest.approx(
            expected(c, windows.text_windows), abs=1e-4
        )
    # Line pairs switched off (an evaluation switch): the packed windows alone count.
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=tmp_path / "index.sqlite")
    try:
        eng.memdesk_options = dataclasses.replace(eng.memdesk_options, line_pairs=False)
        packed_only = {c.chunk_id: c for c in eng.fetch_candidates(query, settings, mode="vector").candidates}
    finally:
        eng.close()
    for c in dialog:
        assert packed_only[c.chunk_id].vector_score == pytest.approx(
            expected(c, windows.packed_windows), abs=1e-4
        )
    # The turn about the dog is one window of a longer chunk: its window beats the chunk.
    assert any(with_windows[c.chunk_id].vector_score > plain[c.chunk_id].vector_score + 0.01 for c in dialog)
    # MEMORY.md (one line) has no windows: its cosine is unchanged.
    memory = next(c for c in plain.values() if c.path == "MEMORY.md")
    assert with_windows[memory.chunk_id].vector_score == memory.vector_score


def test_new_windows_are_embedded_in_place_without_a_rebuild(
    tmp_path: Path, minilm_embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index whose windows were cut another way (here: the packed ones only, as
    before line pairs) is not rebuilt: its chunks and vectors stay, the next sync
    embeds just the windows the cache lacks and counts each chunk that had some once."""
    root = _dialog_workspace(tmp_path / "ws")
    db = tmp_path / "index.sqlite"
    monkeypatch.setattr(windows, "VERSION", "lines-400-3")
    monkeypatch.setattr(windows, "text_windows", windows.packed_windows)
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    first = eng.sync()
    eng.close()
    monkeypatch.undo()
    store = Store(db)
    try:
        before = dict(store.chunk_texts())
        ident = minilm_embedder.identity
        pairs = {h for text in before.values() for h in map(hash_text, windows.pair_windows(text))}
        # A pair that is also a packed window (two short lines) is cached already.
        cached = store.cached_embeddings(ident.provider, ident.model, ident.provider_key, list(pairs))
        missing = pairs - set(cached)
        assert missing
    finally:
        store.close()
    embed_progress: list[tuple[int, int]] = []
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    again = eng.sync(
        progress=lambda p: embed_progress.append((p.embedded, p.to_embed)) if p.phase == "embed" else None
    )
    eng.close()
    assert first.embedded > 0 and not again.rebuilt
    with_windows = {
        text for text in before.values() if missing & set(map(hash_text, windows.pair_windows(text)))
    }
    # Progress counts chunks: every chunk that lacked pair windows, once.
    assert again.embedded == len(with_windows)
    assert embed_progress[-1] == (len(with_windows), len(with_windows))
    store = Store(db)
    try:
        assert dict(store.chunk_texts()) == before  # the same rows: no rebuild
        found = store.cached_embeddings(ident.provider, ident.model, ident.provider_key, list(pairs))
        assert set(found) == pairs
        assert store.get_meta()["passage_windows"] == windows.VERSION
        assert not store.vectors_pending()
    finally:
        store.close()
