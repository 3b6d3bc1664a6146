"""The SQLite store on real files (apsw + FTS5 + sqlite-vec): schema, rows, both search
legs' SQL, and that every failure reaches callers as a memdesk error, never apsw's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memdesk.core import errors
from memdesk.core.base import lexical, sqlite
from memdesk.core.index.store import SCHEMA_VERSION, Store

DIMS = 16
TEXTS = [
    ("MEMORY.md", "We chose SQLite with sqlite-vec as the vector store."),
    ("memory/2026-05-01.md", "Deploy cadence: every Tuesday, after the team sync."),
    ("memory/2026-05-02.md", "鉴权方案：OAuth 设备码登录，令牌存在钥匙串里。"),
    ("memory/topics/db.md", "PostgreSQL for analytics; the vector store stays SQLite."),
]


def _vec(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(DIMS).astype(np.float32)
    return v / np.linalg.norm(v)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "index.sqlite")
    with s.transaction():
        for k, (path, text) in enumerate(TEXTS):
            s.insert_chunk(
                chunk_id=f"c{k}",
                path=path,
                source="memory",
                start_line=1,
                end_line=3,
                hash=f"h{k}",
                model="test",
                text=text,
                segmented=lexical.segment_for_index(text),
                embedding=_vec(k),
                shared=path not in ("MEMORY.md", "memory.md"),
            )
            s.upsert_file(path, hash=f"f{k}", mtime=0, size=len(text))
            s.put_embeddings("fake", "test", "", {f"h{k}": _vec(k)})
    return s


def test_fresh_index_has_every_table_of_its_schema(tmp_path: Path) -> None:
    s = Store(tmp_path / "new.sqlite")
    names = {r[0] for r in s.conn.execute("SELECT name FROM sqlite_master")}
    assert {"meta", "files", "chunks", "chunks_fts", "chunks_fts_seg", "embedding_cache"} <= names
    assert s.conn.execute("PRAGMA user_version").fetchall()[0][0] == SCHEMA_VERSION
    assert s.get_meta() is None and s.counts() == (0, 0)
    s.close()


def test_two_openers_of_a_new_index_do_not_replay_each_others_migrations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both see schema v0 before either holds the write lock; the second to get it
    # must find the schema already built rather than run its CREATE statements again.
    path = tmp_path / "shared.sqlite"
    real_transaction = Store.transaction
    others: list[Store] = []
    interleaved = False

    def other_process_migrates_first(self: Store) -> Any:
        nonlocal interleaved
        if not interleaved:
            interleaved = True
            others.append(Store(path))
        return real_transaction(self)

    monkeypatch.setattr(Store, "transaction", other_process_migrates_first)
    first = Store(path)
    monkeypatch.undo()
    assert others, "the second opener never ran"
    for s in (first, others[0]):
        assert s.conn.execute("PRAGMA user_version").fetchall()[0][0] == SCHEMA_VERSION
        assert s.counts() == (0, 0)
        s.close()


def test_rows_round_trip_and_delete_removes_every_trace(store: Store) -> None:
    assert store.counts() == (4, 4)
    assert store.root_chunk_count() == 1
    rows = store.chunk_rows(list(range(1, 5)))
    assert [rows[r][1] for r in sorted(rows)] == [p for p, _ in TEXTS]
    with store.transaction():
        store.delete_file("memory/topics/db.md")
    assert store.counts() == (3, 3)
    expr = lexical.fts_match_expression(["postgresql"])
    assert expr is not None
    assert store.keyword_search("chunks_fts_seg", expr, 10, shared_only=False) == []
    assert store.vec_embedding(4) is None


def test_keyword_search_ranks_by_bm25_and_scores_one_chunk_alike(store: Store) -> None:
    expr = lexical.fts_match_expression(lexical.query_terms("vector store sqlite"))
    assert expr is not None
    found = store.keyword_search("chunks_fts_seg", expr, 10, shared_only=False)
    assert {rid for rid, _ in found} == {1, 4}
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
    for rid, score in found:
        assert store.keyword_score_of("chunks_fts_seg", expr, rid) == pytest.approx(score)
    assert store.keyword_score_of("chunks_fts_seg", expr, 2) is None  # no match
    # The group-chat scope leaves the root MEMORY.md out.
    assert [rid for rid, _ in store.keyword_search("chunks_fts_seg", expr, 10, shared_only=True)] == [4]
    with pytest.raises(ValueError, match="unknown FTS table"):
        store.keyword_search("chunks; DROP TABLE chunks", expr, 10, shared_only=False)


def test_cjk_text_is_found_through_bigrams(store: Store) -> None:
    expr = lexical.fts_match_expression(lexical.query_terms("鉴权"))
    assert expr is not None
    assert [rid for rid, _ in store.keyword_search("chunks_fts_seg", expr, 10, shared_only=False)] == [3]
    total, freq = store.document_frequencies(["鉴权", "vector", "absent"])
    assert total == 4 and freq == {"鉴权": 1, "vector": 2, "absent": 0}


def test_vector_search_is_exact_cosine(store: Store) -> None:
    if not store.vec_available:
        pytest.skip(f"sqlite-vec unavailable: {store.vec_error}")
    q = _vec(99)
    want = sorted(((k + 1, float(_vec(k) @ q)) for k in range(4)), key=lambda t: -t[1])
    got = store.vector_search(q, 4, shared_only=False)
    assert [r for r, _ in got] == [r for r, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)
    assert 1 not in [r for r, _ in store.vector_search(q, 4, shared_only=True)]
    stored = store.vec_embedding(2)
    assert stored is not None and np.allclose(stored, _vec(1))
    cached = store.cached_vectors_for([1, 2, 3, 4], "fake", "test", "")
    assert all(np.allclose(cached[k + 1], _vec(k)) for k in range(4))


def test_a_damaged_file_is_index_corrupt(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database, just bytes" * 200)
    with pytest.raises(errors.IndexCorrupt):
        Store(bad)


def test_a_dropped_table_is_index_corrupt_from_any_method(store: Store) -> None:
    store.conn.execute("DROP TABLE chunks_fts_seg")
    expr = lexical.fts_match_expression(["vector"])
    assert expr is not None
    with pytest.raises(errors.IndexCorrupt, match="schema is damaged"):
        store.keyword_search("chunks_fts_seg", expr, 10, shared_only=False)


def test_a_refused_statement_is_query_rejected(store: Store) -> None:
    with pytest.raises(errors.QueryRejected):
        store.keyword_search("chunks_fts_seg", '"unclosed', 10, shared_only=False)
    with pytest.raises(errors.QueryRejected):
        store.execute("SELEKT 1")


def test_an_unreadable_model_record_is_index_corrupt(store: Store) -> None:
    store.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('memdesk_index_meta_v1', 'not json')")
    with pytest.raises(errors.IndexCorrupt, match="model record"):
        store.get_meta()


def test_other_connections_see_mapped_errors_too() -> None:
    conn = sqlite.memory()
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text)")
    conn.execute("INSERT INTO t(text) VALUES ('hello world')")
    assert sqlite.rows(conn, "SELECT rowid FROM t WHERE t MATCH ?", ("hello",)) == [(1,)]
    # Outside memdesk's own index "no such column" is a refused query, not damage.
    for query in ('"unclosed', "nosuchcolumn:hello"):
        with pytest.raises(errors.QueryRejected):
            sqlite.rows(conn, "SELECT rowid FROM t WHERE t MATCH ?", (query,))


def test_opening_a_missing_file_read_only_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(errors.StoreError):
        sqlite.connect(tmp_path / "absent.sqlite", readonly=True)


def _joined_keyword_search(
    store: Store, expr: str, limit: int, *, shared_only: bool
) -> list[tuple[int, float]]:
    """The keyword leg's SQL before it dropped the join: the reference it must match."""
    scope = " AND c.path NOT IN ('MEMORY.md', 'memory.md')" if shared_only else ""
    sql = (
        "SELECT f.rowid, bm25(chunks_fts_seg) AS s FROM chunks_fts_seg f JOIN chunks c ON c.rid = f.rowid "
        f"WHERE chunks_fts_seg MATCH ?{scope} ORDER BY s LIMIT ?"
    )
    return [(int(r), -float(s)) for r, s in store.execute(sql, (expr, limit))]


def test_keyword_search_keeps_the_joined_results_with_ties_root_chunks_and_orphan_rows(
    tmp_path: Path,
) -> None:
    s = Store(tmp_path / "index.sqlite")
    texts = ["alpha beta", "alpha", "alpha beta gamma", "beta"]  # many exact BM25 ties
    with s.transaction():
        for k in range(60):
            path = "MEMORY.md" if k % 7 == 0 else f"memory/2026-05-{1 + k % 28:02d}.md"
            text = texts[k % len(texts)]
            s.insert_chunk(
                chunk_id=f"c{k}",
                path=path,
                source="memory",
                start_line=1,
                end_line=2,
                hash=f"h{k}",
                model="test",
                text=text,
                segmented=lexical.segment_for_index(text),
                embedding=None,
                shared=path != "MEMORY.md",
            )
    # Keyword rows whose chunk is gone (what a damaged index could hold) are never returned.
    s.execute("DELETE FROM chunks WHERE rid IN (3, 4, 5, 9)")
    for query in ("alpha", "beta", "alpha beta", "gamma beta"):
        expr = lexical.fts_match_expression(lexical.query_terms(query))
        assert expr is not None
        for shared_only in (False, True):
            for limit in (1, 2, 5, 13, 40, 100):
                want = _joined_keyword_search(s, expr, limit, shared_only=shared_only)
                assert s.keyword_search("chunks_fts_seg", expr, limit, shared_only=shared_only) == want


def test_the_in_memory_copy_of_the_vectors_is_what_vec0_holds(store: Store) -> None:
    if not store.vec_available:
        pytest.skip(f"sqlite-vec unavailable: {store.vec_error}")
    with store.transaction():  # replaced and deleted rows leave holes in vec0's chunks
        store.set_chunk_vectors([(2, _vec(20), True), (1, _vec(21), False)])
        store.execute("DELETE FROM chunks_vec WHERE rowid = 3")
    rids, shared, matrix = store.vec_table_vectors()
    through_vec0 = {
        int(r): (bool(f), bytes(b))
        for r, f, b in store.execute("SELECT rowid, shared, embedding FROM chunks_vec")
    }
    assert sorted(rids.tolist()) == sorted(through_vec0) == [1, 2, 4]
    for rid, flag, row in zip(rids.tolist(), shared.tolist(), matrix, strict=True):
        assert (flag, row.tobytes()) == through_vec0[rid]


def test_document_frequencies_follow_every_change_of_the_index(store: Store) -> None:
    """The counts are kept between queries, yet a commit by another connection and this
    connection's own writes both show at once."""
    reader = Store(store.path)
    assert reader.document_frequencies(["vector", "tuesday"]) == (4, {"vector": 2, "tuesday": 1})

    def add(s: Store, k: int, text: str) -> None:
        with s.transaction():
            s.insert_chunk(
                chunk_id=f"n{k}",
                path=f"memory/2026-06-{k:02d}.md",
                source="memory",
                start_line=1,
                end_line=1,
                hash=f"n{k}",
                model="test",
                text=text,
                segmented=lexical.segment_for_index(text),
                embedding=None,
                shared=True,
            )

    add(store, 1, "Another vector note, on Tuesday.")  # another connection commits
    assert reader.document_frequencies(["vector", "tuesday"]) == (5, {"vector": 3, "tuesday": 2})
    add(reader, 2, "A third vector note.")  # this connection writes
    assert reader.document_frequencies(["vector", "tuesday"]) == (6, {"vector": 4, "tuesday": 2})
    reader.close()


def test_a_v5_index_upgrades_and_drops_the_windows_it_cached_as_texts(tmp_path: Path) -> None:
    """Schema v6 keeps passage-window vectors per chunk (``window_vectors``); an index an
    older memdesk wrote held them in the embedding cache under each window text's hash.
    Opening it migrates in place: the chunks and their vectors stay, those rows go."""
    import apsw

    from memdesk.core.index.store import MIGRATIONS

    path = tmp_path / "v5.sqlite"
    conn = apsw.Connection(str(path))
    for step in MIGRATIONS[:5]:
        for statement in step:
            conn.execute(statement)
    conn.execute("PRAGMA user_version = 5")
    conn.execute(
        "INSERT INTO chunks(id, path, start_line, end_line, hash, model, text, updated_at) "
        "VALUES ('c0', 'memory/a.md', 1, 3, 'chunk-hash', 'm', '- a\n- b\n- c', 0)"
    )
    for h in ("chunk-hash", "window-hash-1", "window-hash-2"):
        conn.execute(
            "INSERT INTO embedding_cache VALUES ('fake', 'test', 'key', ?, ?, ?, 0)",
            (h, _vec(1).tobytes(), DIMS),
        )
    conn.close()
    s = Store(path)
    try:
        assert s.conn.execute("PRAGMA user_version").fetchall()[0][0] == SCHEMA_VERSION
        assert [r[0] for r in s.conn.execute("SELECT hash FROM embedding_cache")] == ["chunk-hash"]
        assert s.counts() == (0, 1)
        assert s.window_vectors("key", ["chunk-hash"]) == {}
        # The migrated schema takes window vectors: int8 rows with a scale each, read back
        # as float32 within half a step (max |x| / 254) of what was stored.
        pooled = np.stack([_vec(2), _vec(3) / 10])
        with s.transaction():
            s.put_window_vectors("key", {"chunk-hash": pooled})
        back = s.window_vectors("key", ["chunk-hash"])["chunk-hash"]
        assert back.dtype == np.float32 and back.shape == (2, DIMS)
        step = np.abs(pooled).max(axis=1, keepdims=True) / 127
        assert np.all(np.abs(back - pooled) <= step / 2 + 1e-7)
        assert len(s.conn.execute("SELECT vectors FROM window_vectors").fetchall()[0][0]) == 2 * (4 + DIMS)
        assert s.stored_window_hashes("key", ["chunk-hash", "other"]) == {"chunk-hash"}
    finally:
        s.close()
