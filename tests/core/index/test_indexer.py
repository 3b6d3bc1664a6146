"""Keyword first, vectors after: what a sync commits before it embeds, and how it resumes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from memdesk.core import engine, errors
from memdesk.core.base import lexical
from memdesk.core.index import store as store_mod
from memdesk.core.index.store import Store
from memdesk.core.search.settings import SearchSettings
from tests.fakes import HashEmbedder

MEMDESK = SearchSettings.defaults("memdesk")


def _workspace(root: Path, notes: int) -> Path:
    (root / "memory").mkdir(parents=True)
    for i in range(notes):
        (root / "memory" / f"2026-01-{1 + i % 28:02d}-n{i}.md").write_text(
            f"# Note {i}\n\nThe word marker{i} appears only here; shared text about deploys.\n",
            encoding="utf-8",
        )
    return root


class WatchingEmbedder(HashEmbedder):
    """Checks, at its first document call, what a separate reader already sees."""

    def __init__(self, db: Path, *, fail_after_calls: int | None = None) -> None:
        super().__init__()
        self.db = db
        self.fail_after_calls = fail_after_calls
        self.seen_at_first_call: tuple[int, int] | None = None

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if self.seen_at_first_call is None:
            reader = Store(self.db)
            try:
                files, _chunks = reader.counts()
                hits = reader.conn.execute(
                    "SELECT count(*) FROM chunks_fts_seg WHERE chunks_fts_seg MATCH 'marker39'"
                ).fetchall()[0][0]
            finally:
                reader.close()
            self.seen_at_first_call = (files, int(hits))
        if self.fail_after_calls is not None and self.calls >= self.fail_after_calls:
            raise RuntimeError("the embedder crashed")
        return super().embed_documents(texts)


def test_every_file_is_keyword_searchable_before_the_first_embedding(tmp_path: Path) -> None:
    """The keyword index of all changed files is committed before any text is embedded."""
    root = _workspace(tmp_path / "ws", 40)
    db = tmp_path / "index.sqlite"
    emb = WatchingEmbedder(db)
    eng = engine.Engine(root, embedder=emb, db_path=db)
    phases: list[str] = []
    report = eng.sync(progress=lambda p: phases.append(p.phase))
    eng.close()
    assert emb.seen_at_first_call == (40, 1)  # every file, even the last one, already findable
    assert report.embedded == 40
    assert phases.index("keyword") < phases.index("embed") < phases.index("finish")


def test_a_sync_stopped_while_embedding_resumes_where_it_stopped(tmp_path: Path) -> None:
    """Vectors missing after a failure are embedded by the next sync, and only those."""
    root = _workspace(tmp_path / "ws", 40)
    db = tmp_path / "index.sqlite"
    failing = WatchingEmbedder(db, fail_after_calls=2)  # 2 calls x 8 chunks get their vectors
    eng = engine.Engine(root, embedder=failing, db_path=db)
    with pytest.raises(RuntimeError):
        eng.sync()
    eng.close()
    store = Store(db)
    ident = failing.identity
    assert store.vectors_pending()
    missing = store.chunks_missing_vectors(ident.provider, ident.model, ident.provider_key)
    assert len(missing) == 40 - 16 and store.counts() == (40, 40)
    store.close()

    eng = engine.Engine(root, embedder=HashEmbedder(), db_path=db)
    hits = eng.search("marker39", MEMDESK).hits
    assert hits and hits[0].path.endswith("-n39.md")  # keyword search worked all along
    report = eng.sync()
    assert (report.embedded, report.cache_hits) == (24, 0)
    assert eng.sync().embedded == 0
    eng.close()
    store = Store(db)
    assert not store.vectors_pending()
    assert store.chunks_missing_vectors(ident.provider, ident.model, ident.provider_key) == []
    assert store.conn.execute("SELECT count(*) FROM chunks_vec").fetchall()[0][0] == 40
    store.close()


def test_cancel_while_embedding_keeps_the_keyword_index(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws", 30)
    db = tmp_path / "index.sqlite"
    emb = HashEmbedder()
    eng = engine.Engine(root, embedder=emb, db_path=db)
    with pytest.raises(errors.Cancelled):
        eng.sync(cancelled=lambda: emb.calls >= 1)
    assert eng.status().files == 30
    assert eng.search("marker29", MEMDESK).hits[0].path.endswith("-n29.md")
    assert eng.sync().embedded == 30 - 8
    eng.close()


def test_chunks_not_embedded_yet_are_found_and_scored_by_keywords(tmp_path: Path) -> None:
    """Mid-index, a hybrid search still finds every note: un-embedded chunks are ranked
    by their keyword score (not cut to the keyword weight's share and dropped)."""
    root = _workspace(tmp_path / "ws", 30)
    db = tmp_path / "index.sqlite"
    emb = HashEmbedder()
    eng = engine.Engine(root, embedder=emb, db_path=db)
    with pytest.raises(errors.Cancelled):
        eng.sync(cancelled=lambda: emb.calls >= 1)  # 8 of 30 chunks embedded
    keyword_only = 0
    for i in range(30):
        result = eng.search(f"marker{i}", MEMDESK)
        assert result.pool.mode == "hybrid" and result.hits, i
        top = result.hits[0]
        assert top.path.endswith(f"-n{i}.md")
        cand = next(c for c in result.pool.candidates if c.chunk_id == top.chunk_id)
        assert cand.keyword_only == (cand.vector_score is None)
        if cand.keyword_only:
            keyword_only += 1
            assert top.merged_score == pytest.approx(cand.text_score)
    assert keyword_only == 30 - 8
    eng.close()


def test_an_index_without_stored_mmr_tokens_is_migrated_and_filled_in_ranking_alike(
    tmp_path: Path,
) -> None:
    """A schema-v3 index (no stored MMR tokens) opens as v4 and ranks as before, tokenizing
    at search time; the next sync stores every chunk's tokens, and tokens of an older
    format are ignored until a sync rewrites them."""
    root = _workspace(tmp_path / "ws", 40)
    db = tmp_path / "index.sqlite"
    queries = ["shared deploys", "marker3 text", "note about deploys marker7"]

    def ranked() -> list[list[tuple[str, float, int | None, str | None]]]:
        eng = engine.Engine(root, embedder=HashEmbedder(), db_path=db)
        try:
            return [
                [(h.chunk_id, h.score, h.mmr_rank, h.mmr_against) for h in eng.search(q, MEMDESK).hits]
                for q in queries
            ]
        finally:
            eng.close()

    eng = engine.Engine(root, embedder=HashEmbedder(), db_path=db)
    eng.sync()
    eng.close()
    expected = ranked()
    assert any(h[3] is not None for hits in expected for h in hits)  # MMR compared texts
    store = Store(db)
    with store.transaction():  # what memdesk wrote before schema v4
        store.conn.execute("DELETE FROM meta WHERE key = ?", (store_mod.MMR_TOKENS_KEY,))
        store.conn.execute("ALTER TABLE chunks DROP COLUMN mmr_tokens")
        for column in ("ctime", "inode", "checked_at"):  # schema v5's
            store.conn.execute(f"ALTER TABLE files DROP COLUMN {column}")
        store.conn.execute("PRAGMA user_version = 3")
    store.close()
    assert ranked() == expected  # migrated; every chunk tokenized at search time
    store = Store(db)
    assert store.conn.execute("SELECT count(*) FROM chunks WHERE mmr_tokens IS NULL").fetchall()[0][0] > 0
    store.close()

    eng = engine.Engine(root, embedder=HashEmbedder(), db_path=db)
    eng.sync()
    eng.close()
    store = Store(db)
    rows = store.conn.execute("SELECT rid, text, mmr_tokens FROM chunks").fetchall()
    vocab = dict(store.conn.execute("SELECT id, token FROM mmr_vocab").fetchall())

    def tokens_of(stored: bytes) -> set[str]:
        ids = lexical.decode_stored_tokens(stored)
        assert ids is not None
        return {vocab[int(i)] for i in ids}

    assert rows and all(tokens_of(stored) == lexical.mmr_tokens(text) for _, text, stored in rows)
    assert store.mmr_tokens_format() == lexical.MMR_TOKENS_FORMAT
    first = rows[0][0]
    with store.transaction():  # as a memdesk with another token format left it
        old = np.array([lexical.MMR_TOKENS_FORMAT - 1, 1, 2], dtype="<i4").tobytes()
        store.conn.execute("UPDATE chunks SET mmr_tokens = ? WHERE rid = ?", (old, first))
        store.set_mmr_tokens_format(lexical.MMR_TOKENS_FORMAT - 1)
    store.close()
    assert ranked() == expected
    eng = engine.Engine(root, embedder=HashEmbedder(), db_path=db)
    eng.sync()
    eng.close()
    store = Store(db)
    stored, text = store.conn.execute(
        "SELECT mmr_tokens, text FROM chunks WHERE rid = ?", (first,)
    ).fetchall()[0]
    assert tokens_of(stored) == lexical.mmr_tokens(text)
    store.close()
    assert ranked() == expected
    # An edited note's new chunks get theirs in the sync that writes them.
    note = root / "memory" / "2026-01-05-n4.md"
    note.write_text(
        note.read_text(encoding="utf-8") + "\nA new line about marker4 and deploys.\n", encoding="utf-8"
    )
    eng = engine.Engine(root, embedder=HashEmbedder(), db_path=db)
    eng.sync()
    eng.close()
    store = Store(db)
    vocab = dict(store.conn.execute("SELECT id, token FROM mmr_vocab").fetchall())
    rows = store.conn.execute(
        "SELECT text, mmr_tokens FROM chunks WHERE path = ?", (note.relative_to(root).as_posix(),)
    ).fetchall()
    assert rows and all("new line" in t and tokens_of(b) == lexical.mmr_tokens(t) for t, b in rows)
    assert store.mmr_tokens_format() == lexical.MMR_TOKENS_FORMAT
    store.close()
