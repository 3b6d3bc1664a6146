"""Engine: sync (add, edit, delete, rename), modes, bad input, corruption, rebuilds."""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from memdesk.core import engine, errors
from memdesk.core.search import ranking, vector
from memdesk.core.search.settings import SearchSettings
from tests.fakes import HashEmbedder

MEMDESK = SearchSettings.defaults("memdesk")
OPENCLAW = SearchSettings.defaults("openclaw-2026.4")


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def small_ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    _write(root, "MEMORY.md", "# Memory\n\nThe team prefers PostgreSQL for analytics.\n")
    _write(root, "memory/2026-05-01.md", "# 2026-05-01\n\nDecided to use pgvector for the vector store.\n")
    _write(root, "memory/2026-11-20.md", "# 2026-11-20\n\n最终决定：向量检索使用 SQLite + sqlite-vec。\n")
    _write(root, "memory/topics/auth.md", "# 鉴权\n\n新的API鉴权方案改为 OAuth 2.0。\n")
    return root


def _paths(result: engine.SearchResult) -> list[str]:
    return [h.path for h in result.hits]


def test_fts_only_sync_and_search(small_ws: Path) -> None:
    """With no model the index is keyword-only and search still finds things."""
    eng = engine.Engine.open(small_ws, model=None)
    report = eng.sync()
    assert (report.files, report.mode, report.embedded) == (4, "fts", 0)
    assert report.chunks >= 4
    result = eng.search("pgvector", MEMDESK)
    assert result.pool.mode == "fts"
    assert _paths(result)[0] == "memory/2026-05-01.md"
    assert result.hits[0].vector_score is None and 0 < (result.hits[0].text_score or 0) < 1
    assert "no embedding model" in (eng.status().fallback_reason or "")


def test_chinese_two_character_word_inside_longer_run(small_ws: Path) -> None:
    """鉴权 finds 'API鉴权方案' under memdesk; OpenClaw's unicode61 FTS cannot."""
    eng = engine.Engine.open(small_ws, model=None)
    eng.sync()
    assert "memory/topics/auth.md" in _paths(eng.search("鉴权", MEMDESK))
    assert "memory/topics/auth.md" in _paths(eng.search("鉴权方案", MEMDESK))
    assert "memory/2026-11-20.md" in _paths(eng.search("向量检索", MEMDESK))
    # The openclaw profile reproduces OpenClaw's blind spot (the heading "# 鉴权" is
    # its own token, so search the glued form only).
    assert "memory/topics/auth.md" not in _paths(eng.search("方案", OPENCLAW))


def test_incremental_add_edit_delete_rename(small_ws: Path) -> None:
    eng = engine.Engine.open(small_ws, model=None)
    eng.sync()
    again = eng.sync()
    assert again.indexed_paths == () and again.removed == 0  # nothing changed

    _write(small_ws, "memory/2026-11-25.md", "# new\n\nquokka migration plan\n")
    rep = eng.sync()
    assert rep.indexed_paths == ("memory/2026-11-25.md",)
    assert _paths(eng.search("quokka", MEMDESK)) == ["memory/2026-11-25.md"]

    _write(small_ws, "memory/2026-11-25.md", "# new\n\nwombat migration plan\n")
    eng.sync()
    assert eng.search("quokka", MEMDESK).hits == ()
    assert _paths(eng.search("wombat", MEMDESK)) == ["memory/2026-11-25.md"]

    os.rename(small_ws / "memory/2026-11-25.md", small_ws / "memory/2026-11-26.md")
    rep = eng.sync()
    assert rep.removed_paths == ("memory/2026-11-25.md",)
    assert _paths(eng.search("wombat", MEMDESK)) == ["memory/2026-11-26.md"]

    (small_ws / "memory/2026-11-26.md").unlink()
    eng.sync()
    assert eng.search("wombat", MEMDESK).hits == ()
    assert eng.status().files == 4


def test_same_content_touch_is_not_reindexed(small_ws: Path) -> None:
    eng = engine.Engine.open(small_ws, model=None)
    eng.sync()
    path = small_ws / "MEMORY.md"
    os.utime(path, (1, 1))
    assert eng.sync().indexed_paths == ()


def test_bad_notes_are_skipped_with_reason_and_sync_continues(small_ws: Path) -> None:
    (small_ws / "memory/latin1.md").write_bytes("caf\xe9 notes".encode("latin-1"))
    (small_ws / "memory/blob.md").write_bytes(b"\x00\x01\x02binary" * 100)
    big = small_ws / "memory/huge.md"
    with big.open("wb") as handle:
        handle.truncate(11 * 1024 * 1024)
    eng = engine.Engine.open(small_ws, model=None)
    report = eng.sync()
    reasons = {f.path: f.reason for f in report.failures}
    assert set(reasons) == {"memory/latin1.md", "memory/blob.md", "memory/huge.md"}
    assert "UTF-8" in reasons["memory/latin1.md"] and "binary" in reasons["memory/blob.md"]
    assert "limit" in reasons["memory/huge.md"]
    assert _paths(eng.search("pgvector", MEMDESK))  # the good files are indexed
    states = eng.file_states()
    assert states["memory/blob.md"][0] == "failed" and states["MEMORY.md"] == ("indexed", "")
    # A failed file is not retried until it changes, then it indexes fine.
    assert eng.sync().failures == ()
    (small_ws / "memory/latin1.md").write_text("café notes now utf-8", encoding="utf-8")
    eng.sync()
    assert eng.file_states()["memory/latin1.md"][0] == "indexed"


def test_corrupt_index_is_rebuilt_on_open(small_ws: Path) -> None:
    eng = engine.Engine.open(small_ws, model=None)
    eng.sync()
    db = eng.db_path
    eng.close()
    db.write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    eng2 = engine.Engine.open(small_ws, model=None)
    eng2.sync()
    assert _paths(eng2.search("pgvector", MEMDESK)) == ["memory/2026-05-01.md"]
    assert any(p.name.startswith(db.name + ".corrupt-") for p in db.parent.iterdir())


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE meta SET value = x'00ff00'",  # the model record as bytes, not text
        "UPDATE files SET reason = x'ff', status = 'failed'",  # bytes where a reason is text
    ],
)
def test_an_index_row_of_the_wrong_type_is_damage_and_rebuilt(small_ws: Path, damage: str) -> None:
    """SQLite keeps any value in any column: a row of the wrong type is a damaged index
    (rebuilt from the notes, as a damaged page is), not a UnicodeDecodeError or a
    TypeError traceback out of every status, sync and search."""
    import apsw

    eng = engine.Engine.open(small_ws, model=None)
    eng.sync()
    db = eng.db_path
    eng.close()
    conn = apsw.Connection(str(db))
    conn.execute(damage)
    conn.close()
    eng2 = engine.Engine.open(small_ws, model=None)
    try:
        eng2.status()  # damage is reported, never raised
        eng2.sync()
        assert _paths(eng2.search("pgvector", MEMDESK)) == ["memory/2026-05-01.md"]
        assert eng2.status(verify=True).damage is None
    finally:
        eng2.close()


def test_index_is_private_and_outside_workspace(small_ws: Path, memdesk_home: Path) -> None:
    eng = engine.Engine.open(small_ws, model=None)
    eng.sync()
    assert eng.db_path.is_relative_to(memdesk_home)
    assert stat.S_IMODE(eng.db_path.stat().st_mode) == 0o600
    assert not any(p.suffix == ".sqlite" for p in small_ws.rglob("*"))


def test_cancelled_rebuild_keeps_old_index(small_ws: Path) -> None:
    eng = engine.Engine.open(small_ws, model=None)
    eng.sync()
    calls = {"n": 0}

    def cancel_after_first() -> bool:
        calls["n"] += 1
        return calls["n"] > 1

    with pytest.raises(errors.Cancelled):
        eng.sync(rebuild=True, cancelled=cancel_after_first)
    assert _paths(eng.search("pgvector", MEMDESK)) == ["memory/2026-05-01.md"]
    assert not [p for p in eng.db_path.parent.iterdir() if ".tmp-" in p.name]


def test_model_change_rebuilds_and_reuses_cache(small_ws: Path) -> None:
    """Switching embedders re-embeds only what the cache lacks."""
    first = HashEmbedder(64, "hash-a")
    eng = engine.Engine(small_ws, embedder=first)
    rep = eng.sync()
    assert rep.embedded == rep.chunks and rep.cache_hits == 0 and rep.mode == "hybrid"
    eng.set_embedder(HashEmbedder(32, "hash-b"))
    rep2 = eng.sync()
    assert rep2.rebuilt and rep2.embedded == rep.chunks
    eng.set_embedder(first)
    rep3 = eng.sync()
    assert rep3.rebuilt and rep3.embedded == 0 and rep3.cache_hits == rep.chunks
    assert eng.search("pgvector vector store", MEMDESK).hits[0].vector_score is not None


def test_group_scope_hides_curated_memory(small_ws: Path) -> None:
    eng = engine.Engine(small_ws, embedder=HashEmbedder())
    eng.sync()
    everything = _paths(eng.search("PostgreSQL analytics", MEMDESK.replace(min_score=0)))
    shared = _paths(eng.search("PostgreSQL analytics", MEMDESK.replace(min_score=0), scope="shared"))
    assert "MEMORY.md" in everything and "MEMORY.md" not in shared and shared


def test_rerank_is_pure(small_ws: Path) -> None:
    """A fetched pool re-ranks after the engine (and its SQLite) is closed."""
    eng = engine.Engine(small_ws, embedder=HashEmbedder())
    eng.sync()
    pool = eng.fetch_candidates("vector store decision", MEMDESK)
    eng.close()
    text_heavy = ranking.rank(pool, MEMDESK.replace(vector_weight=0.0, text_weight=1.0))
    vec_heavy = ranking.rank(pool, MEMDESK.replace(vector_weight=1.0, text_weight=0.0))
    assert {h.chunk_id for h in text_heavy} <= {c.chunk_id for c in pool.candidates}
    assert all(h.merged_score == pytest.approx(h.text_score or 0) for h in text_heavy)
    assert all(h.merged_score == pytest.approx(h.vector_score or 0) for h in vec_heavy)


def test_decay_uses_note_dates(small_ws: Path) -> None:
    eng = engine.Engine.open(small_ws, model=None)
    eng.sync()
    import datetime as dt

    hits = eng.search(
        "决定 decided", MEMDESK.replace(decay=True, half_life_days=30), now=dt.date(2026, 12, 1)
    ).hits
    by_path = {h.path: h for h in hits}
    old, new = by_path["memory/2026-05-01.md"], by_path["memory/2026-11-20.md"]
    assert old.date == dt.date(2026, 5, 1) and new.date == dt.date(2026, 11, 20)
    assert new.decay == pytest.approx(0.5 ** (11 / 30)) and old.decay < 0.05
    evergreen = eng.search("PostgreSQL", MEMDESK).hits[0]
    assert evergreen.path == "MEMORY.md" and evergreen.date is None and evergreen.decay == 1.0


HOSTILE = [
    '"',
    '""',
    "NEAR(a b)",
    "a NEAR/3 b",
    "*",
    "-",
    ":",
    "col:term",
    "(((",
    ")",
    "a AND",
    "OR",
    "NOT",
    "^start",
    "🙂🙂",
    "'; DROP TABLE chunks; --",
    "\x00",
    "\\",
    "a" * 10_000,
    "鉴权" * 3000,
    "{x}",
    "[",
    "+-*/",
]


@pytest.mark.parametrize("query", HOSTILE)
@pytest.mark.parametrize("profile", ["memdesk", "openclaw-2026.4", "openclaw-2026.9"])
def test_hostile_queries_never_raise(small_ws: Path, query: str, profile: str) -> None:
    eng = engine.Engine(small_ws, embedder=HashEmbedder())
    eng.sync()
    result = eng.search(query, SearchSettings.defaults(profile))  # type: ignore[arg-type]
    assert isinstance(result.hits, tuple)


@hyp_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(min_size=0, max_size=200))
def test_any_query_returns_a_list(small_ws: Path, query: str) -> None:
    eng = _shared_engine(small_ws)
    for profile in ("memdesk", "openclaw-2026.4", "openclaw-2026.9"):
        result = eng.search(query, SearchSettings.defaults(profile))  # type: ignore[arg-type]
        assert all(h.score == h.score for h in result.hits)  # no NaN


_ENGINES: dict[Path, engine.Engine] = {}


def _shared_engine(root: Path) -> engine.Engine:
    if root not in _ENGINES:
        eng = engine.Engine.open(root, model=None)
        eng.sync()
        _ENGINES[root] = eng
    return _ENGINES[root]


def test_hits_carry_every_component(small_ws: Path) -> None:
    eng = engine.Engine(small_ws, embedder=HashEmbedder())
    eng.sync()
    hit = eng.search("vector store", MEMDESK.replace(mmr=True)).hits[0]
    data = hit.to_json()
    assert set(data) == {
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
    }
    assert hit.mmr_rank is not None and hit.pre_mmr_rank >= 1
    off = eng.search("vector store", MEMDESK.replace(mmr=False)).hits[0]
    assert off.mmr_rank is None
    assert dataclasses.asdict(hit)["path"].count("\\") == 0


def test_stale_half_built_index_is_removed(small_ws: Path) -> None:
    eng = engine.Engine.open(small_ws, model=None)
    eng.sync()
    stale = eng.db_path.with_name(eng.db_path.name + ".tmp-deadbeef")
    stale.write_bytes(b"half")
    os.utime(stale, (1, 1))
    fresh = eng.db_path.with_name(eng.db_path.name + ".tmp-live0000")
    fresh.write_bytes(b"in progress elsewhere")
    eng.sync(rebuild=True)
    assert not stale.exists() and fresh.exists()


@pytest.mark.parametrize("how", ["no-sqlite-vec", "in-memory"])
def test_numpy_vector_scan_ranks_like_sqlite_vec(
    small_ws: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Without sqlite-vec (or past the in-memory threshold) the numpy scan gives the same hits."""
    emb = HashEmbedder()
    eng = engine.Engine(small_ws, embedder=emb)
    eng.sync()
    queries = ["vector store decision", "PostgreSQL analytics", "鉴权 OAuth"]
    expected = [[(h.chunk_id, round(h.score, 6)) for h in eng.search(q, MEMDESK).hits] for q in queries]
    eng.close()
    if how == "no-sqlite-vec":
        monkeypatch.setenv("MEMDESK_DISABLE_SQLITE_VEC", "1")
    else:
        monkeypatch.setattr(vector, "IN_MEMORY_VECTORS_FROM", 0)
    eng2 = engine.Engine(small_ws, embedder=emb)
    assert eng2.status().vector_available == (how != "no-sqlite-vec")
    got = [[(h.chunk_id, round(h.score, 6)) for h in eng2.search(q, MEMDESK).hits] for q in queries]
    assert got == expected
    if how == "no-sqlite-vec":
        assert "numpy" in (eng2.status().fallback_reason or "")


@pytest.mark.model
def test_model_loads_only_when_something_is_embedded(small_ws: Path, minilm_path: Path) -> None:
    """Opening, status and a sync with nothing new never load the weights; a search does."""
    first = engine.Engine.open(small_ws, model=minilm_path)
    first.sync()
    first.close()
    eng = engine.Engine.open(small_ws, model=minilm_path)
    try:
        embedder = eng.embedder
        assert embedder is not None and eng.mode == "hybrid"
        eng.status()
        report = eng.sync()
        assert (report.embedded, report.mode) == (0, "hybrid")
        assert not embedder.loaded  # type: ignore[attr-defined]
        result = eng.search("vector store", MEMDESK)
        assert embedder.loaded  # type: ignore[attr-defined]
        assert result.pool.mode == "hybrid" and result.hits[0].vector_score is not None
    finally:
        eng.close()


def test_chunk_params_are_the_fixed_ones_or_those_of_the_embedders_context(small_ws: Path) -> None:
    """What ``core/asof`` reads to cut a day's notes as the live index cut them."""
    from memdesk.core.index import indexer

    fixed = indexer.ChunkParams(tokens=120, overlap=10)
    eng = engine.Engine(small_ws, embedder=None, chunk_params=fixed, history=False)
    assert eng.chunk_params == fixed
    eng.close()
    small = HashEmbedder()
    eng = engine.Engine(small_ws, embedder=small, history=False)
    assert eng.chunk_params == indexer.chunk_params_for(small)
    eng.close()
