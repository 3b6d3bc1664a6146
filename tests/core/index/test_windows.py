"""Passage windows: which chunks get them, and how lines are packed."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memdesk.core import engine, errors
from memdesk.core.embed.embedder import Embedder
from memdesk.core.embed.gguf_embedder import GgufEmbedder
from memdesk.core.index import indexer, windows
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
    # The ranges the vectors are pooled over are those lines, in the same order.
    assert windows.text_windows(text) == tuple(
        "\n".join(text[a:b] for a, b in w) for w in windows.line_windows(text)
    )
    assert windows.packed_count(text) == len(out)


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


@pytest.mark.parametrize("late", [False, True])
def test_a_sync_embeds_every_window_once_and_stores_them_per_chunk(
    tmp_path: Path, minilm_embedder: GgufEmbedder, monkeypatch: pytest.MonkeyPatch, late: bool
) -> None:
    """Each chunk's windows are stored in one row of their chunk, none in the embedding
    cache. Embedded as texts, each distinct window is one forward pass beside its chunk's;
    pooled from the chunk's pass (late chunking), a chunk costs that one pass alone."""
    monkeypatch.setattr(windows, "LATE_CHUNKING", late)
    root = _dialog_workspace(tmp_path / "ws")
    db = tmp_path / "index.sqlite"
    encoded: list[int] = []
    real = minilm_embedder._encode_sequences

    def counting(context: Any, sequences: list[list[int]], *args: Any) -> np.ndarray:
        encoded.append(len(sequences))
        return real(context, sequences, *args)

    monkeypatch.setattr(minilm_embedder, "_encode_sequences", counting)
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    embed_progress: list[tuple[int, int]] = []
    first = eng.sync(
        progress=lambda p: embed_progress.append((p.embedded, p.to_embed)) if p.phase == "embed" else None
    )
    eng.close()
    monkeypatch.setattr(minilm_embedder, "_encode_sequences", real)
    store = Store(db)
    try:
        texts = [text for _rid, text in store.chunk_texts()]
        ident = minilm_embedder.identity
        windowed = {hash_text(t): t for t in texts if windows.line_windows(t)}
        assert windowed
        stored = store.window_vectors(ident.provider_key, list(windowed))
        assert {h: m.shape for h, m in stored.items()} == {
            h: (len(windows.line_windows(t)), ident.dims) for h, t in windowed.items()
        }
        # No window is in the embedding cache: only the chunks' own vectors.
        assert store.execute("SELECT count(*) FROM embedding_cache")[0][0] == len(set(texts))
        assert not store.vectors_pending()
    finally:
        store.close()
    # One sequence per distinct chunk text (each under the context), and per distinct
    # window text unless the windows are pooled from the chunk's pass.
    window_texts = {w for t in texts for w in windows.text_windows(t)}
    assert sum(encoded) == len(set(texts)) + (0 if late else len(window_texts))
    assert first.embedded == len(set(texts))
    assert embed_progress[-1] == (len(set(texts)), len(set(texts)))
    assert [done for done, _ in embed_progress] == sorted(done for done, _ in embed_progress)
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    again = eng.sync()
    eng.close()
    assert again.embedded == 0


def test_a_chunk_scores_as_its_best_window_when_that_beats_the_chunk(
    tmp_path: Path, minilm_embedder: GgufEmbedder
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

    def expected(c: Candidate, pairs: bool) -> float:
        cut = windows.text_windows if pairs else windows.packed_windows
        best = float(np.max(minilm_embedder.embed_documents(list(cut(c.text))) @ qvec))
        chunk = plain[c.chunk_id].vector_score
        assert chunk is not None
        return chunk if best <= chunk else chunk + windows.WINDOW_SHARE * (best - chunk)

    for c in dialog:
        assert with_windows[c.chunk_id].vector_score == pytest.approx(
            expected(c, pairs=True), abs=2e-3
        )  # int8
    # Line pairs switched off (an evaluation switch): the packed windows alone count.
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=tmp_path / "index.sqlite")
    try:
        eng.memdesk_options = dataclasses.replace(eng.memdesk_options, line_pairs=False)
        packed_only = {c.chunk_id: c for c in eng.fetch_candidates(query, settings, mode="vector").candidates}
    finally:
        eng.close()
    for c in dialog:
        assert packed_only[c.chunk_id].vector_score == pytest.approx(expected(c, pairs=False), abs=2e-3)
    # The turn about the dog is one window of a longer chunk: its window beats the chunk.
    assert any(with_windows[c.chunk_id].vector_score > plain[c.chunk_id].vector_score + 0.01 for c in dialog)
    # MEMORY.md (one line) has no windows: its cosine is unchanged.
    memory = next(c for c in plain.values() if c.path == "MEMORY.md")
    assert with_windows[memory.chunk_id].vector_score == memory.vector_score


def test_new_windows_are_pooled_in_place_without_a_rebuild(
    tmp_path: Path, minilm_embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index whose windows were cut another way (here: none, as an index an older
    memdesk wrote holds no per-chunk window rows) is not rebuilt: its chunks and vectors
    stay, the next sync embeds the windows of the chunks that have some, once each."""
    root = _dialog_workspace(tmp_path / "ws")
    db = tmp_path / "index.sqlite"
    monkeypatch.setattr(windows, "VERSION", "lines-400-3")
    monkeypatch.setattr(windows, "line_windows", lambda text: ())
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    first = eng.sync()
    eng.close()
    monkeypatch.undo()
    store = Store(db)
    ident = minilm_embedder.identity
    try:
        before = dict(store.chunk_texts())
        vectors = store.cached_embeddings(
            ident.provider, ident.model, ident.provider_key, [hash_text(t) for t in before.values()]
        )
        windowed = {hash_text(t) for t in before.values() if windows.line_windows(t)}
        assert windowed and not store.stored_window_hashes(ident.provider_key, windowed)
    finally:
        store.close()
    embed_progress: list[tuple[str, int, int]] = []
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    again = eng.sync(
        progress=lambda p: (
            embed_progress.append((p.phase, p.embedded, p.to_embed))
            if p.phase in ("embed", "windows")
            else None
        )
    )
    eng.close()
    assert first.embedded > 0 and not again.rebuilt
    # Progress counts chunks: no chunk vector to make, then every chunk that lacked its
    # windows, once.
    assert again.embedded == len(windowed)
    assert embed_progress[0] == ("embed", 0, 0)
    assert embed_progress[-1] == ("windows", len(windowed), len(windowed))
    store = Store(db)
    try:
        assert dict(store.chunk_texts()) == before  # the same rows: no rebuild
        assert store.stored_window_hashes(ident.provider_key, windowed) == windowed
        after = store.cached_embeddings(ident.provider, ident.model, ident.provider_key, list(vectors))
        assert all(np.array_equal(after[h], v) for h, v in vectors.items())  # chunk vectors kept
        assert store.get_meta()["passage_windows"] == windows.VERSION
        assert not store.vectors_pending()
    finally:
        store.close()


def test_the_index_of_line_per_item_notes_stays_small(tmp_path: Path) -> None:
    """Index size: a chunk's windows are one int8 row of their chunk, not a float32
    embedding-cache row each with its keys (40.4 MB for the 2,000-note benchmark then,
    20 MB now; docs/performance.md). 120 daily notes of eight bullets, 384 dimensions."""
    from tests.fakes import HashEmbedder

    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    people = ["Lin Wei", "Jonas Becker", "Mara Okafor", "Zhou Hang"]
    for day in range(120):
        lines = [
            f"- {people[(day + i) % 4]} reviewed item {day * 8 + i} of the release plan at {8 + i}:30."
            for i in range(8)
        ]
        (root / "memory" / f"2024-{1 + day // 28:02d}-{1 + day % 28:02d}.md").write_text(
            f"# Day {day}\n\n" + "\n".join(lines) + "\n", encoding="utf-8"
        )
    db = tmp_path / "index.sqlite"
    eng = engine.Engine(root, embedder=HashEmbedder(dims=384), db_path=db)
    eng.sync()
    eng.close()
    store = Store(db)
    try:
        store.checkpoint()
        chunks = store.counts()[1]
        texts = [t for _rid, t in store.chunk_texts()]
        assert chunks == 120 and all(windows.line_windows(t) for t in texts)
        assert store.execute("SELECT count(*) FROM embedding_cache")[0][0] == chunks
        # Bytes by table (SQLite's dbstat), without sqlite-vec's, which reserves room for
        # 1,024 vectors at once: too coarse to see at this size.
        size = store.execute("SELECT sum(pgsize) FROM dbstat WHERE name NOT LIKE 'chunks_vec%'")[0][0]
    finally:
        store.close()
    # Per chunk: its text three times (chunks, FTS content, keyword indexes), a float32
    # cache row and nine int8 windows (a page); nine float32 cache rows took 18 KB more.
    assert size / chunks < 12_000


def _dialog_notes(root: Path, days: int) -> Path:
    """The dialog workspace and ``days - 1`` more dialog notes: several windowed chunks."""
    _dialog_workspace(root)
    text = (root / "memory" / "2023-05-08.md").read_text(encoding="utf-8")
    for day in range(9, 8 + days):
        (root / "memory" / f"2023-05-{day:02d}.md").write_text(
            text.replace("2023-05-08", f"2023-05-{day:02d}").replace("puppy", f"puppy number {day}"),
            encoding="utf-8",
        )
    return root


def test_every_chunk_vector_is_committed_before_the_first_window(
    tmp_path: Path, minilm_embedder: GgufEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync embeds the chunks first, then their passage windows: the workspace is
    searchable by meaning once the first phase ends. Read from a second connection at
    each progress report (a commit after every chunk here): no window row exists while
    any chunk lacks its vector."""
    monkeypatch.setattr(indexer, "EMBED_LOCK_CHUNKS", 1)
    monkeypatch.setattr(indexer, "EMBED_COMMIT_CHUNKS", 1)
    root = _dialog_notes(tmp_path / "ws", 4)
    db = tmp_path / "index.sqlite"
    ident = minilm_embedder.identity
    seen: list[tuple[str, int, int, int, int]] = []  # phase, vectors, chunks, window rows, windowed

    def look(p: engine.SyncProgress) -> None:
        if p.phase not in ("embed", "windows", "finish"):
            return
        reader = Store(db)
        try:
            hashes = {hash_text(t): t for _rid, t in reader.chunk_texts()}
            vectors = reader.cached_embeddings(ident.provider, ident.model, ident.provider_key, list(hashes))
            windowed = {h for h, t in hashes.items() if windows.line_windows(t)}
            rows = reader.stored_window_hashes(ident.provider_key, windowed)
        finally:
            reader.close()
        seen.append((p.phase, len(vectors), len(hashes), len(rows), len(windowed)))

    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    eng.sync(progress=look)
    eng.close()
    assert seen[-1][1] == seen[-1][2] and seen[-1][3] == seen[-1][4] >= 4  # all done in the end
    with_windows = [s for s in seen if s[3] > 0]
    assert with_windows and all(vectors == chunks for _p, vectors, chunks, _r, _w in with_windows)
    # The change of phase is reported with every chunk vector committed and no window yet.
    first_windows = next(s for s in seen if s[0] == "windows")
    assert first_windows[1] == first_windows[2] and first_windows[3] == 0


@pytest.mark.parametrize("batch", [None, 3])
def test_windows_embedded_alone_equal_those_embedded_with_their_chunks(
    tmp_path: Path, minilm_embedder: GgufEmbedder, batch: int | None
) -> None:
    """The second phase embeds the windows without their chunk texts (in calls of
    ``batch`` windows): the same vectors as embedding them with their chunks, in the
    same order, so search after both phases scores as before."""
    root = _dialog_notes(tmp_path / "ws", 3)
    texts = [
        t
        for p in sorted((root / "memory").glob("*.md"))
        for t in [p.read_text(encoding="utf-8")]
        if windows.line_windows(t)
    ]
    texts.append("# prose\n\nOne paragraph, no windows.")
    _chunks, together = windows.embed_with_windows(minilm_embedder, texts)
    alone = windows.embed_windows(minilm_embedder, texts, batch=batch)
    assert [m.shape for m in alone] == [m.shape for m in together]
    assert alone[-1].shape[0] == 0 and alone[0].shape[0] > 2
    # Equal up to llama.cpp's float rounding, which depends on which sequences share a
    # batch (already so between today's parts): far below the int8 storage's step.
    for a, b in zip(alone, together, strict=True):
        np.testing.assert_allclose(a, b, atol=5e-4)
        assert np.all(np.sum(a * b, axis=1) > 0.99999)


def test_a_sync_cancelled_after_the_chunk_vectors_is_hybrid_searchable_and_the_next_embeds_only_windows(
    tmp_path: Path, minilm_embedder: GgufEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancelled as the windows begin, a sync keeps every chunk vector: a search is hybrid
    and finds the dialog by meaning; the next sync embeds the windows alone (one forward
    pass per distinct window text, no chunk text again) and finishes the index."""
    root = _dialog_notes(tmp_path / "ws", 2)
    db = tmp_path / "index.sqlite"
    phases: list[str] = []
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    try:
        with pytest.raises(errors.Cancelled):
            eng.sync(progress=lambda p: phases.append(p.phase), cancelled=lambda: "windows" in phases)
        pool = eng.fetch_candidates(
            "Is Caroline going to adopt a dog?", SearchSettings.defaults("memdesk"), mode="hybrid"
        )
        assert pool.mode == "hybrid"
        assert {c.path for c in pool.candidates if c.vector_score is not None} >= {
            "memory/2023-05-08.md",
            "memory/2023-05-09.md",
        }
    finally:
        eng.close()
    store = Store(db)
    ident = minilm_embedder.identity
    try:
        texts = {hash_text(t): t for _rid, t in store.chunk_texts()}
        assert len(
            store.cached_embeddings(ident.provider, ident.model, ident.provider_key, list(texts))
        ) == len(texts)
        windowed = {h: t for h, t in texts.items() if windows.line_windows(t)}
        assert windowed and not store.stored_window_hashes(ident.provider_key, set(windowed))
        assert store.vectors_pending()
    finally:
        store.close()
    encoded: list[list[int]] = []
    real = minilm_embedder._encode_sequences

    def counting(context: Any, sequences: list[list[int]], *args: Any) -> np.ndarray:
        encoded.append([len(s) for s in sequences])
        return real(context, sequences, *args)

    monkeypatch.setattr(minilm_embedder, "_encode_sequences", counting)
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    try:
        again = eng.sync()
    finally:
        eng.close()
    monkeypatch.setattr(minilm_embedder, "_encode_sequences", real)
    window_texts = {w for t in windowed.values() for w in windows.text_windows(t)}
    assert sum(len(e) for e in encoded) == len(window_texts)
    assert again.embedded == len(windowed)
    store = Store(db)
    try:
        assert store.stored_window_hashes(ident.provider_key, set(windowed)) == set(windowed)
        assert not store.vectors_pending()
    finally:
        store.close()


def test_a_sync_during_the_windows_phase_derives_windows_only_of_what_changed(
    tmp_path: Path, minilm_embedder: GgufEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While windows are pending, each sync (the watcher runs one after every save) used
    to read every chunk lacking windows and cut its line windows again: work of the whole
    pending set per save. Which chunk hashes have windows is remembered, so a sync cuts
    the windows only of the chunks it has not seen (here: the one note changed), and the
    sync that finishes stores every chunk's windows as an uninterrupted one does."""
    root = _dialog_notes(tmp_path / "ws", 6)
    db = tmp_path / "index.sqlite"
    phases: list[str] = []
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    try:
        with pytest.raises(errors.Cancelled):
            eng.sync(progress=lambda p: phases.append(p.phase), cancelled=lambda: "windows" in phases)
    finally:
        eng.close()
    store = Store(db)
    try:
        pending = set(store.chunk_hashes_without_windows(minilm_embedder.identity.provider_key))
        windowed = {hash_text(t) for _rid, t in store.chunk_texts() if windows.line_windows(t)}
    finally:
        store.close()
    assert len(windowed & pending) >= 6  # the windows phase had not begun
    changed = root / "memory" / "2023-05-10.md"
    changed.write_text(changed.read_text(encoding="utf-8").replace("puppy", "kitten"), encoding="utf-8")
    changed_rel = "memory/2023-05-10.md"
    cut: list[str] = []
    real = windows.line_windows

    def counting(text: str) -> Any:
        cut.append(text)
        return real(text)

    monkeypatch.setattr(windows, "line_windows", counting)
    phases.clear()
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    try:
        with pytest.raises(errors.Cancelled):
            eng.sync(progress=lambda p: phases.append(p.phase), cancelled=lambda: "windows" in phases)
    finally:
        eng.close()
    monkeypatch.setattr(windows, "line_windows", real)
    store = Store(db)
    try:
        new_chunks = {
            str(h) for (h,) in store.execute("SELECT hash FROM chunks WHERE path = ?", (changed_rel,))
        }
    finally:
        store.close()
    assert new_chunks
    # The changed note's chunks alone (each seen by the keyword batch and once more as
    # unknown to the windows phase), not the pending set's.
    assert {hash_text(t) for t in cut} <= new_chunks
    assert len(cut) <= 2 * len(new_chunks)
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    try:
        eng.sync()
    finally:
        eng.close()
    fresh_db = tmp_path / "fresh.sqlite"
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=fresh_db)
    try:
        eng.sync()
    finally:
        eng.close()
    key = minilm_embedder.identity.provider_key
    got: list[dict[str, np.ndarray]] = []
    for path in (db, fresh_db):
        store = Store(path)
        try:
            hashes = [hash_text(t) for _rid, t in store.chunk_texts()]
            got.append(store.window_vectors(key, hashes))
            assert not store.vectors_pending()
        finally:
            store.close()
    assert set(got[0]) == set(got[1]) and len(got[0]) >= 6
    for h, m in got[0].items():
        np.testing.assert_allclose(m, got[1][h], atol=2e-2)
