"""A damaged index is seen and rebuilt, never trusted: bad pages, a dropped table, an
unreadable model record; and no leftovers of earlier damage or killed rebuilds pile up."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import apsw
import numpy as np
import pytest

from memdesk.core import engine, errors
from memdesk.core.index import store as store_mod
from memdesk.core.search.settings import SearchSettings

QUERY = "which database did we choose for Atlas"


def _damage_pages(db: Path, *, seed: int = 7) -> None:
    """Overwrite the middle half of the file's pages with random bytes (a bad disk area)."""
    rng = random.Random(seed)
    pages = db.stat().st_size // 4096
    with open(db, "r+b") as handle:
        for page in range(pages // 4, 3 * pages // 4):
            handle.seek(page * 4096)
            handle.write(rng.randbytes(4096))


def _indexed(workspace: Path, **kw: object) -> Path:
    eng = engine.Engine.open(workspace, **kw)  # type: ignore[arg-type]
    try:
        eng.sync()
        eng._index.writer().conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        eng.close()
    return eng.db_path


def test_damaged_pages_are_seen_by_search_and_repaired(example_workspace: Path) -> None:
    """Searching a damaged index raises (no silent "no matches"); status says so; the next
    sync rebuilds it and the same query finds its notes."""
    db = _indexed(example_workspace, model=None)
    _damage_pages(db)
    eng = engine.Engine.open(example_workspace, model=None)
    try:
        assert eng.status(verify=True).damage
        with pytest.raises(errors.IndexCorrupt, match="rebuilt"):
            eng.search(QUERY, SearchSettings())
        report = eng.sync()
        assert report.repaired and report.rebuilt
        hits = eng.search(QUERY, SearchSettings()).hits
        status = eng.status(verify=True)
    finally:
        eng.close()
    assert hits and status.damage is None and status.files >= 50
    assert status.corrupt_copy and Path(status.corrupt_copy).exists()


def test_memdesk_index_finds_damage_nothing_else_touched(example_workspace: Path) -> None:
    """``index`` on an up-to-date but damaged index (no file changed) still rebuilds it."""
    db = _indexed(example_workspace, model=None)
    _damage_pages(db)
    eng = engine.Engine.open(example_workspace, model=None)
    try:
        report = eng.sync(verify=True)
        assert report.repaired
        assert eng._index.writer().integrity_problem() is None
    finally:
        eng.close()


def test_cli_search_on_damaged_index_answers_with_one_warning(
    example_workspace: Path, memdesk_home: Path
) -> None:
    db = _indexed(example_workspace, model=None)
    _damage_pages(db)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "memdesk",
            "search",
            QUERY,
            "--workspace",
            str(example_workspace),
            "--model",
            "none",
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, MEMDESK_HOME=str(memdesk_home)),
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "No matches" not in out.stdout and "memory/" in out.stdout
    assert len(out.stderr.splitlines()) == 1 and "damaged" in out.stderr


def test_dropped_table_is_rebuilt_not_a_traceback(example_workspace: Path) -> None:
    db = _indexed(example_workspace, model=None)
    conn = apsw.Connection(str(db))
    conn.execute("DROP TABLE chunks")
    conn.close()
    eng = engine.Engine.open(example_workspace, model=None)
    try:
        report = eng.sync()
        hits = eng.search(QUERY, SearchSettings()).hits
    finally:
        eng.close()
    assert report.files >= 50 and hits


def test_unreadable_model_record_is_rebuilt_not_adopted(
    example_workspace: Path, minilm_path: Path, e5_path: Path
) -> None:
    """An index whose meta row cannot be read is not trusted: its vectors might be another
    model's (MiniLM vectors ranked against e5 query vectors score ~0)."""
    db = _indexed(example_workspace, model=minilm_path)
    conn = apsw.Connection(str(db))
    conn.execute("UPDATE meta SET value = '{not json' WHERE key = ?", (store_mod.META_KEY,))
    conn.close()
    eng = engine.Engine.open(example_workspace, model=e5_path)
    try:
        report = eng.sync()
        top = eng.search("Decision: we decided to use PostgreSQL with pgvector", SearchSettings()).hits[0]
    finally:
        eng.close()
    assert report.rebuilt
    assert top.vector_score is not None and top.vector_score > 0.8


def test_only_the_newest_damaged_copy_is_kept(example_workspace: Path) -> None:
    db = _indexed(example_workspace, model=None)
    for n in range(3):
        old = db.with_name(f"{db.name}.corrupt-{n}")
        old.write_bytes(b"old damaged copy")
        os.utime(old, (n + 1, n + 1))
    db.write_bytes(b"this is not an SQLite database at all" * 200)
    eng = engine.Engine.open(example_workspace, model=None)
    try:
        eng.sync()
        copies = sorted(db.parent.glob(db.name + ".corrupt-*"))
        assert len(copies) == 1 and str(copies[0]) == eng.status().corrupt_copy
        assert copies[0].read_bytes().startswith(b"this is not an SQLite")
    finally:
        eng.close()


def _profile_vectors(db: Path) -> Path:
    """Fill the OpenClaw profiles' vectors file beside ``db`` as a profile search would."""
    from memdesk.core.index import recipe_cache

    cache = recipe_cache.RecipeCache(recipe_cache.path_for(db))
    cache.put("recipe", {"h": ("key-h", np.ones(4, np.float32))}, keep=["h"])
    cache.close()
    return recipe_cache.path_for(db)


def test_profile_vectors_go_with_a_damaged_index(example_workspace: Path) -> None:
    """The damaged index is set aside and rebuilt; its OpenClaw-profile vectors file goes too
    (it would otherwise outlive the index it was filled for)."""
    db = _indexed(example_workspace, model=None)
    vectors = _profile_vectors(db)
    _damage_pages(db)
    eng = engine.Engine.open(example_workspace, model=None)
    try:
        assert eng.sync().repaired
    finally:
        eng.close()
    assert not vectors.exists() and not Path(f"{vectors}-wal").exists()


def test_profile_vectors_go_with_a_rebuild_and_an_open_cache_follows(example_workspace: Path) -> None:
    """``memdesk index --rebuild`` starts the index over, and the vectors file with it; the
    engine's own cache, open across the rebuild, writes into the new file afterwards."""
    from memdesk.core.index import recipe_cache

    db = _indexed(example_workspace, model=None)
    vectors = _profile_vectors(db)
    eng = engine.Engine.open(example_workspace, model=None)
    try:
        cache = eng._recipe_cache
        assert set(cache.get("recipe", ["h"])) == {"h"}  # opened the old file
        assert eng.sync(rebuild=True).rebuilt
        assert not vectors.exists()
        assert cache.replaced() and cache.get("recipe", ["h"]) == {}
        cache.put("recipe", {"g": ("key-g", np.ones(4, np.float32))}, keep=["g"])
        assert not cache.replaced()
    finally:
        eng.close()
    again = recipe_cache.RecipeCache(vectors)
    try:
        assert set(again.get("recipe", ["g", "h"])) == {"g"}
    finally:
        again.close()


def test_leftover_of_a_killed_rebuild_is_removed_at_once(example_workspace: Path) -> None:
    """A half-built index whose builder died goes at the next sync, not ten minutes later."""
    db = _indexed(example_workspace, model=None)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    pid = int(dead.stdout)
    leftover = db.with_name(f"{db.name}.tmp-{pid}-0badcafe")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{leftover}{suffix}").write_bytes(b"x" * 4096)
    orphan = db.with_name(f"{db.name}.tmp-{pid}-0ddba115")  # its main file already went
    for suffix in ("-wal", "-shm"):
        Path(f"{orphan}{suffix}").write_bytes(b"z" * 4096)
    live = db.with_name(f"{db.name}.tmp-{os.getpid()}-0feed000")  # ours, fresh: in progress
    live.write_bytes(b"y")
    os.utime(live, (time.time(), time.time()))
    eng = engine.Engine.open(example_workspace, model=None)
    try:
        eng.sync()
    finally:
        eng.close()
    assert not any(Path(f"{leftover}{s}").exists() for s in ("", "-wal", "-shm"))
    assert not any(Path(f"{orphan}{s}").exists() for s in ("-wal", "-shm"))
    assert live.exists()


def test_a_killed_rebuilds_embeddings_are_kept_for_the_next_one(example_workspace: Path) -> None:
    """Quitting during a long re-embed loses nothing already embedded: the leftover's
    cache goes into the current index, whose cache every rebuild starts from."""
    db = _indexed(example_workspace, model=None)
    # A rebuild process that embedded three chunks and was killed (no close, WAL left).
    script = (
        "import os, sys, numpy as np\n"
        "from pathlib import Path\n"
        "from memdesk.core.index.store import Store\n"
        "db = Path(sys.argv[1])\n"
        "s = Store(db.with_name(f'{db.name}.tmp-{os.getpid()}-0cafe000'))\n"
        "with s.transaction():\n"
        "    s.put_embeddings('gguf', 'm', 'k', {f'h{i}': np.full(4, i, np.float32) for i in range(3)})\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(db)], check=True, timeout=120)
    (leftover,) = [p for p in db.parent.glob(db.name + ".tmp-*") if not p.name.endswith(("-wal", "-shm"))]
    eng = engine.Engine.open(example_workspace, model=None)
    try:
        eng.sync()
    finally:
        eng.close()
    assert not leftover.exists()
    main = store_mod.Store(db)
    try:
        kept = main.cached_embeddings("gguf", "m", "k", ["h0", "h1", "h2"])
    finally:
        main.close()
    assert sorted(kept) == ["h0", "h1", "h2"] and kept["h2"].tolist() == [2.0] * 4


def test_rebuild_by_another_process_is_noticed(example_workspace: Path, memdesk_home: Path) -> None:
    """A GUI-like engine stays open while the CLI rebuilds and swaps the index file in:
    the open engine notices and writes into the new file, so both sides see each
    other's notes without a restart."""
    gui = engine.Engine.open(example_workspace, model=None)
    try:
        gui.sync()
        cli = subprocess.run(
            [
                sys.executable,
                "-m",
                "memdesk",
                "index",
                "--rebuild",
                "--workspace",
                str(example_workspace),
                "--model",
                "none",
            ],
            capture_output=True,
            text=True,
            env=dict(os.environ, MEMDESK_HOME=str(memdesk_home)),
            timeout=300,
            check=False,
        )
        assert cli.returncode == 0, cli.stderr
        note = example_workspace / "memory" / "2026-12-01.md"
        note.write_text("# 2026-12-01\n\nThe quokkaphone launch slipped a week.\n", encoding="utf-8")
        gui.sync(paths=["memory/2026-12-01.md"])
        assert [h.path for h in gui.search("quokkaphone", SearchSettings()).hits] == ["memory/2026-12-01.md"]
    finally:
        gui.close()
    other = engine.Engine.open(example_workspace, model=None)
    try:
        assert other.status().dirty_files == ()
        assert [h.path for h in other.search("quokkaphone", SearchSettings()).hits] == [
            "memory/2026-12-01.md"
        ]
    finally:
        other.close()


def _spoil_schema(db: Path) -> None:
    """Random bytes over page 1 after the file header: the schema, read at open."""
    with open(db, "r+b") as handle:
        handle.seek(100)
        handle.write(random.Random(3).randbytes(4096 - 100))


def test_damage_found_at_open_first_search_answers_from_the_notes(example_workspace: Path) -> None:
    """An index found damaged at open is moved aside; the first search (before any sync)
    indexes the notes' text itself and answers, saying so in one line: never "no matches"."""
    db = _indexed(example_workspace, model=None)
    _spoil_schema(db)
    eng = engine.Engine.open(example_workspace, model=None)
    try:
        assert eng.corrupt_copy() is not None  # seen at open, moved aside
        result = eng.search(QUERY, SearchSettings())
        assert result.hits, "a search after damage at open must answer from the notes"
        notice = result.pool.notice
        again = eng.search(QUERY, SearchSettings())
        status = eng.status()
    finally:
        eng.close()
    assert any("database.md" in h.path for h in result.hits)
    assert notice is not None and len(notice.splitlines()) == 1
    assert "damaged" in notice and "rebuilt" in notice
    assert again.hits and again.pool.notice is None  # said once
    assert status.files >= 50 and status.damage is None


def test_damage_found_at_open_hybrid_answers_by_keywords_first(
    example_workspace: Path, minilm_path: Path
) -> None:
    """With a model, the first search rebuilds the keyword index only (fast) and answers
    from it; the vectors come with the next sync."""
    db = _indexed(example_workspace, model=minilm_path)
    _spoil_schema(db)
    eng = engine.Engine.open(example_workspace, model=minilm_path)
    try:
        result = eng.search(QUERY, SearchSettings())
        assert result.hits and result.pool.notice and "keyword" in result.pool.notice
        assert all(c.keyword_only for c in result.pool.candidates)  # no vectors yet
        report = eng.sync()
        assert report.embedded + report.cache_hits > 0
        after = eng.search(QUERY, SearchSettings())
    finally:
        eng.close()
    assert after.pool.mode == "hybrid" and not any(c.keyword_only for c in after.pool.candidates)
