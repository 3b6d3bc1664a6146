"""The first index of a year's worth of daily notes, as a user's machine does it.

Generates N daily notes (default 2,000; English and Chinese mixed, in dated
sub-folders ``memory/YYYY/MM/YYYY-MM-DD.md``, ~750 bytes each, plus MEMORY.md),
then, each in a cold process with a private data dir and the default built model:

1. **Indexer**: ``Engine.open(model="auto")`` + ``sync()``, what ``memdesk index``
   runs. Meanwhile this (parent) process searches keyword-only for a word that only
   the newest note holds, every 50 ms, over its own connections: the first hit is
   "every note keyword-searchable". Printed: that time, the hybrid-ready time (every
   chunk vector committed: the child's "windows" event, when the passage windows
   begin), the total time, the peak RSS
   of the indexing process (its own ``VmHWM``: ``wait4``'s ``ru_maxrss`` would also
   count this parent's RSS at fork time), the index size.
   Also printed: the work it did, texts sent through the model ("forward passes":
   token sequences encoded) and vectors stored (chunk and passage-window vectors) per
   chunk, and the index's bytes per table (SQLite's ``dbstat``).
2. **Search** over the finished index, in a fresh process with the model: 100 hybrid
   searches (memdesk profile, its defaults) of words the notes use, timed without the
   query embedding (``embed_ms``, which grows with the query, not the index): p50, p95.
3. **App at rest** over the finished index: the window of ``memdesk gui`` opened on
   it (``startup.py``'s second launch: window, a hybrid search for the word, a few
   idle seconds), its RSS then and its peak (``--rest 0`` skips it).

``--notes 20000`` is the same run ten times larger, against the 20,000-note targets
(``TARGETS_20000``). ``--until hybrid`` stops the index at hybrid-ready (the sync is
cancelled when its passage-window phase begins, as a quit would) and searches over
that index, every chunk vector in it but no passage windows (labelled so in the output):
the windows phase is ~4x the chunk phase, hours at 20,000 notes on 2 shared cores.
``--until keyword`` stops when every note is keyword-searchable (no search step).
``--keep DIR`` keeps the workspace and index; ``--search-over DIR`` re-times the search.

Usage: python benchmarks/index_2000.py [--notes 2000] [--until complete|hybrid|keyword] [--rest 3]
       [--keep DIR | --search-over DIR] [--models-dir DIR]
The last line of output is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

MARKER = "quokkaindexmark"
TARGETS = {
    "all_notes_keyword_searchable_s": 3.0,
    "hybrid_ready_s": 180.0,
    "index_complete_s": 180.0,
    "peak_rss_mb": 400,
    "index_bytes": 25_000_000,
    "rss_at_rest_mb": 400,
}
TARGETS_20000 = {"all_notes_keyword_searchable_s": 30.0, "peak_rss_mb": 600, "search_hybrid_p95_ms": 50.0}
SEARCH_QUERIES = 100

_PEOPLE = ["Lin Wei", "Jonas Becker", "Chen Yuqing", "Mara Okafor", "Zhou Hang", "Priya Natarajan"]
_TOPICS = ["the Atlas migration", "sqlite-vec", "the on-call rota", "the eval harness", "the Northwind pilot",
           "release cadence", "the embedding cache", "CJK search", "the budget review", "dark mode",
           "the retry policy", "backup restores"]  # fmt: skip
_VERBS = ["discussed", "decided to keep", "asked about", "reported a bug in", "postponed", "reviewed",
          "wants to drop", "benchmarked", "documented", "rolled back"]  # fmt: skip
_ZH = ["今天讨论了向量检索的召回率问题。", "决定继续使用 SQLite 作为本地数据库。", "周航负责值班轮换，下周开始。",
       "林蔚希望用中文写周报摘要。", "鉴权模块需要重构，预计两周。", "客户反馈搜索结果太慢，需要优化。",
       "备份方案已经在测试环境验证。", "产品经理推迟了周五的发布。"]  # fmt: skip


def generate(root: Path, notes: int, seed: int = 2000) -> Path:
    """``notes`` daily notes from 2021-01-01 on; returns the newest, which holds MARKER."""
    rng = random.Random(seed)
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text(
        "# MEMORY.md\n\n" + "".join(f"- **{p}** works on {rng.choice(_TOPICS)}.\n" for p in _PEOPLE),
        encoding="utf-8",
    )
    start = dt.date(2021, 1, 1)
    newest = root
    for i in range(notes):
        day = start + dt.timedelta(days=i)
        folder = root / "memory" / f"{day:%Y}" / f"{day:%m}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [f"# {day.isoformat()}", ""]
        for _ in range(rng.randint(5, 11)):
            if rng.random() < 0.3:
                lines.append(f"- {rng.choice(_ZH)}")
            else:
                lines.append(
                    f"- {rng.choice(_PEOPLE)} {rng.choice(_VERBS)} {rng.choice(_TOPICS)}; "
                    f"follow-up #{rng.randint(1, 999)} at {rng.randint(8, 18)}:{rng.choice(['00', '30'])}."
                )
        if rng.random() < 0.3:
            lines += ["", "## Decisions", "", f"- Keep {rng.choice(_TOPICS)} as it is."]
        if i == notes - 1:
            lines += ["", f"- The {MARKER} marker lives only in the newest note."]
        newest = folder / f"{day.isoformat()}.md"
        newest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return newest


# --------------------------------------------------------------------------- child side


def child_index(workspace: Path, t0: float, until: str = "complete") -> int:
    """Runs in a fresh interpreter: open and sync like ``memdesk index``; print events.

    ``until="hybrid"`` cancels the sync when its passage-window phase begins (every chunk
    vector committed, as a user's cancel or quit would then): the index is hybrid-ready
    and searchable by meaning, its windows still missing (the next sync embeds them)."""
    from memdesk.core import engine, errors

    def emit(name: str, **extra: Any) -> None:
        print(json.dumps({"event": name, "t": round(time.time() - t0, 3), **extra}), flush=True)

    eng = engine.Engine.open(workspace, model="auto")
    emit("opened", db_path=str(eng.db_path), mode=eng.mode)
    seen: set[str] = set()

    def progress(p: Any) -> None:
        if p.phase in ("keyword", "windows", "finish") and p.phase not in seen:
            seen.add(p.phase)  # "windows": every chunk vector is committed (hybrid-ready)
            emit(p.phase, files=p.files_total, chunks=p.chunks_done)

    from startup import _status_kb

    sequences = _count_sequences(eng.embedder)
    stop = lambda: (until == "hybrid" and "windows" in seen) or (until == "keyword" and "keyword" in seen)  # noqa: E731
    try:
        report = eng.sync(progress=progress, cancelled=stop)
        chunks, files, embedded, mode = report.chunks, report.files, report.embedded, report.mode
    except errors.Cancelled:  # stopped at hybrid-ready or keyword-searchable: count what the index holds
        status = eng.status()
        chunks, files = status.chunks, status.files
        embedded, mode = None, eng.mode
    emit(
        "synced",
        chunks=chunks,
        files=files,
        embedded=embedded,
        mode=mode,
        stopped_at={"hybrid": "hybrid-ready", "keyword": "keyword-searchable"}.get(until),
        peak_rss_mb=round(_status_kb("VmHWM") / 1024, 1),
        sequences_encoded=sequences[0],
    )
    db_path = eng.db_path
    eng.close()
    emit("work", **_index_work(db_path))
    return 0


def _count_sequences(embedder: Any) -> list[int]:
    """A counter of the token sequences the embedder sends through llama.cpp (one forward
    pass each), wrapped around its ``_encode_sequences`` (instrumentation of this run)."""
    count = [0]
    real = getattr(embedder, "_encode_sequences", None)
    if real is None:
        return count

    def counting(context: Any, sequences: list[list[int]], *args: Any) -> Any:
        count[0] += len(sequences)
        return real(context, sequences, *args)

    embedder._encode_sequences = counting
    return count


def _index_work(db_path: Path) -> dict[str, Any]:
    """Vectors stored and bytes per table of the finished index (read-only)."""
    import apsw

    conn = apsw.Connection(str(db_path), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        one = lambda sql: conn.execute(sql).fetchall()[0][0]  # noqa: E731
        tables = {
            str(name): int(size)
            for name, size in conn.execute(
                "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"
            )
        }
        windows = conn.execute("SELECT name FROM sqlite_master WHERE name = 'window_vectors'").fetchall()
        return {
            "chunks": one("SELECT count(*) FROM chunks"),
            "chunk_vectors": one("SELECT count(*) FROM embedding_cache"),
            "window_vectors": one("SELECT coalesce(sum(count), 0) FROM window_vectors") if windows else None,
            "page_size": one("PRAGMA page_size"),
            "bytes_by_table": tables,
        }
    finally:
        conn.close()


def child_search(workspace: Path) -> int:
    """Runs in a fresh interpreter over the finished index: ``SEARCH_QUERIES`` hybrid
    searches, each timed without its query embedding; prints one JSON line."""
    from memdesk.core import engine
    from memdesk.core.search import settings as settings_mod

    rng = random.Random(26)
    words = [w for t in _TOPICS for w in t.split() if len(w) > 3] + _PEOPLE + ["向量检索", "值班", "发布"]
    queries = [" ".join(rng.sample(words, 2)) for _ in range(SEARCH_QUERIES)]
    eng = engine.Engine.open(workspace, model="auto")
    settings = settings_mod.SearchSettings.defaults("memdesk")
    embed_cpu = [0.0]  # this thread's CPU inside the query embedding (llama.cpp runs on it too)
    if eng.embedder is not None:
        real_embed = eng.embedder.embed_query

        def timed_embed(text: str) -> Any:
            t = time.thread_time()
            try:
                return real_embed(text)
            finally:
                embed_cpu[0] += time.thread_time() - t

        eng.embedder.embed_query = timed_embed  # type: ignore[method-assign]
    try:
        for q in queries[:5]:
            eng.search(q, settings)  # warm caches and the model
        times, cpu = [], []
        for q in queries:
            embed_cpu[0] = 0.0
            c, t = time.thread_time(), time.perf_counter()
            result = eng.search(q, settings)
            elapsed = (time.perf_counter() - t) * 1000 - result.pool.timings_ms.get("embed_ms", 0.0)
            times.append(elapsed)
            cpu.append((time.thread_time() - c - embed_cpu[0]) * 1000)
            if result.pool.mode != "hybrid":
                raise SystemExit(f"search ran {result.pool.mode}, not hybrid")
    finally:
        eng.close()
    times.sort()
    cpu.sort()
    pct = lambda xs, p: xs[min(len(xs) - 1, round(p / 100 * (len(xs) - 1)))]  # noqa: E731
    # Wall time is what a user waits; on a shared machine it also holds the other jobs'
    # turns, so the search thread's own CPU time (query embedding excluded) is printed too.
    print(json.dumps({"event": "search", "queries": len(times), "p50_ms": round(pct(times, 50), 2),
                      "p95_ms": round(pct(times, 95), 2), "max_ms": round(times[-1], 2),
                      "cpu_p50_ms": round(pct(cpu, 50), 2), "cpu_p95_ms": round(pct(cpu, 95), 2)}), flush=True)  # fmt: skip
    return 0


def _search(workspace: Path, env: dict[str, str]) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child-search", str(workspace)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            return dict(json.loads(line))
    return {"error": (out.stderr.strip().splitlines() or ["no output"])[-1]}


# --------------------------------------------------------------------------- parent side


def _poll_keyword(workspace: Path, db_path: Path, t0: float, stop: threading.Event) -> float | None:
    """Seconds from t0 to the first keyword hit for MARKER, over this process's own
    connections (a second reader, as the window's search thread is)."""
    from memdesk.core import engine
    from memdesk.core.search import settings as settings_mod

    reader = engine.Engine(workspace, embedder=None, db_path=db_path)
    settings = settings_mod.SearchSettings()
    try:
        while not stop.is_set():
            try:
                pool = reader.fetch_candidates(MARKER, settings, mode="fts")
                if pool.candidates:
                    return time.time() - t0
            except Exception:  # the writer may be mid-way through creating the schema
                pass
            time.sleep(0.05)
    finally:
        reader.close()
    return None


def _index(workspace: Path, env: dict[str, str], until: str = "complete") -> dict[str, Any]:
    t0 = time.time()
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child-index", str(workspace), "--t0", repr(t0),
           "--until", until]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    events: dict[str, Any] = {}
    stop = threading.Event()
    found: dict[str, float | None] = {}
    poller: threading.Thread | None = None
    assert proc.stdout is not None
    for line in proc.stdout:
        if not line.startswith("{"):
            continue
        data = json.loads(line)
        events[data.pop("event")] = data
        if "opened" in events and poller is None:
            db_path = Path(events["opened"]["db_path"])
            poller = threading.Thread(
                target=lambda db=db_path: found.setdefault("t", _poll_keyword(workspace, db, t0, stop)),
                daemon=True,
            )
            poller.start()
    code = proc.wait()
    total = time.time() - t0
    if poller is not None:
        poller.join(timeout=5.0)  # found already, or it finds the marker now at the latest
        stop.set()
        poller.join()
    db = Path(events.get("opened", {}).get("db_path", ""))
    size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*") if p.is_file()) if db.name else None
    return {
        "exit_code": code,
        "events": events,
        "all_notes_keyword_searchable_s": round(found["t"], 2) if found.get("t") is not None else None,
        "hybrid_ready_s": _hybrid_ready(events),
        "index_complete_s": round(total, 2) if until == "complete" else None,
        "stopped_s": round(total, 2),
        "peak_rss_mb": events.get("synced", {}).get("peak_rss_mb"),
        "index_bytes": size,
    }


def _hybrid_ready(events: dict[str, Any]) -> float | None:
    """Seconds until every chunk vector was committed: the indexer's second phase (the
    passage windows) began, or, with no windows to embed, the sync finished."""
    for name in ("windows", "finish"):
        if name in events:
            return float(events[name]["t"])
    return None


def _link_models(home: Path, models_dir: Path) -> str | None:
    from memdesk.core.embed.models import registry

    found = registry.find_default_model(models_dir)
    if found is None:
        return None
    target = home / "models"
    target.mkdir(parents=True, exist_ok=True)
    for item in models_dir.iterdir():
        if item.is_file() and item.name.endswith((".gguf", ".gguf.encoder", ".build.json", ".sha256")):
            (target / item.name).symlink_to(item.resolve())
    return found.name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--rest", type=float, default=3.0, help="seconds idle before RSS at rest")
    parser.add_argument("--models-dir", type=Path, default=None,
                        help="built models to use (default: this user's memdesk models dir)")  # fmt: skip
    parser.add_argument("--until", choices=("complete", "hybrid", "keyword"), default="complete",
                        help="'hybrid': stop the index at hybrid-ready (every chunk vector committed, the "
                             "passage windows not embedded) and search over that index; 'keyword': stop "
                             "when every note is keyword-searchable (no search step)")  # fmt: skip
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="build in this (new) directory and keep it, for --search-over later",
    )
    parser.add_argument("--search-over", type=Path, default=None,
                        help="only the search step, over a directory kept by --keep")  # fmt: skip
    parser.add_argument("--child-index", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--child-search", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--t0", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_index is not None:
        return child_index(args.child_index, args.t0, args.until)
    if args.child_search is not None:
        return child_search(args.child_search)

    from memdesk.core import paths

    if args.search_over is not None:
        kept = args.search_over.resolve()
        env = _env(kept / "home")
        load = os.getloadavg()[0]
        search = _search(kept / "workspace", env)
        print(json.dumps({"benchmark": "index_2000", "search_over": str(kept), "load_average_1m_at_start":
                          round(load, 2), "load_average_1m_at_end": round(os.getloadavg()[0], 2), "search": search}))  # fmt: skip
        return 0
    models_dir = args.models_dir or paths.models_dir()  # before MEMDESK_HOME points elsewhere
    if args.keep is not None:
        args.keep.mkdir(parents=True)
    tmp = (
        args.keep.resolve() if args.keep is not None else Path(tempfile.mkdtemp(prefix="memdesk-index2000-"))
    )
    try:
        home = tmp / "home"
        home.mkdir()
        model = _link_models(home, models_dir)
        if model is None:
            print(json.dumps({"benchmark": "index_2000", "error": f"no model built in {models_dir}"}))
            return 1
        workspace = tmp / "workspace"
        generate(workspace, args.notes)
        md_bytes = sum(p.stat().st_size for p in workspace.rglob("*.md"))
        env = _env(home)
        os.environ["MEMDESK_HOME"] = str(home)  # the parent's keyword reader uses the same data dir
        load = os.getloadavg()
        print(f"workspace: {args.notes} daily notes + MEMORY.md, {md_bytes / 1e6:.2f} MB of Markdown; "
              f"model: {model}; load average {load[0]:.1f}", flush=True)  # fmt: skip

        index = _index(workspace, env, args.until)
        synced = index["events"].get("synced", {})
        print(
            f"first index: every note keyword-searchable {index['all_notes_keyword_searchable_s']} s "
            f"(keyword phase committed at {index['events'].get('keyword', {}).get('t')} s), "
            f"hybrid-ready {index['hybrid_ready_s']} s, complete {index['index_complete_s']} s "
            f"(stopped at {synced.get('stopped_at') or 'complete'}: {index['stopped_s']} s), "
            f"{synced.get('chunks')} chunks [{synced.get('mode')}], "
            f"peak RSS {index['peak_rss_mb']} MB, index {((index['index_bytes'] or 0) / 1e6):.1f} MB",
            flush=True,
        )
        work = index["events"].get("work", {})
        chunks = work.get("chunks") or 1
        passes = synced.get("sequences_encoded")
        vectors = (work.get("chunk_vectors") or 0) + (work.get("window_vectors") or 0)
        print(
            f"work: {passes} sequences encoded ({(passes or 0) / chunks:.2f} per chunk), {vectors} vectors "
            f"stored ({vectors / chunks:.2f} per chunk: {work.get('chunk_vectors')} chunk, "
            f"{work.get('window_vectors')} window)",
            flush=True,
        )
        for name, size in list(work.get("bytes_by_table", {}).items())[:8]:
            print(f"  {name}: {size / 1e6:.2f} MB", flush=True)
        search = _search(workspace, env) if args.until != "keyword" else {"skipped": "no vectors yet"}
        over = {"hybrid": "hybrid-ready index, no passage windows", "keyword": "keyword-only index"}.get(
            args.until, "complete index"
        )
        print(f"search over the {over} (hybrid, query embedding excluded): {search}", flush=True)
        from startup import _gui

        app: dict[str, Any] = {"events": {}, "process_peak_rss_mb": None}
        if args.rest > 0 and args.until == "complete":  # the window's sync would embed the windows
            app = _gui(workspace, env, args.rest, "results")
        ev = app["events"]
        if args.rest > 0 and args.until == "complete":
            print(
                f"app over the index: window {ev.get('window_shown', {}).get('t')} s, first results "
                f"{ev.get('first_results', {}).get('t')} s ({ev.get('first_results', {}).get('mode')}), "
                f"RSS at rest {ev.get('rest', {}).get('rss_mb')} MB, peak {app['process_peak_rss_mb']} MB",
                flush=True,
            )
        summary = {
            "benchmark": "index_2000",
            "notes": args.notes,
            "markdown_bytes": md_bytes,
            "model": model,
            "load_average_1m_at_start": round(load[0], 2),
            "load_average_1m_at_end": round(os.getloadavg()[0], 2),
            "until": args.until,
            "index": {
                "stopped_at": synced.get("stopped_at") or "complete",
                "stopped_s": index["stopped_s"],
                "all_notes_keyword_searchable_s": index["all_notes_keyword_searchable_s"],
                "keyword_phase_committed_s": index["events"].get("keyword", {}).get("t"),
                "hybrid_ready_s": index["hybrid_ready_s"],
                "index_complete_s": index["index_complete_s"],
                "files": synced.get("files"),
                "chunks": synced.get("chunks"),
                "mode": synced.get("mode"),
                "peak_rss_mb": index["peak_rss_mb"],
                "index_bytes": index["index_bytes"],
                "exit_code": index["exit_code"],
                "sequences_encoded": synced.get("sequences_encoded"),
                "chunk_vectors": work.get("chunk_vectors"),
                "window_vectors": work.get("window_vectors"),
                "bytes_by_table": work.get("bytes_by_table"),
            },
            "search": dict(search, over=over),
            "app_at_rest": {
                "window_shown_s": ev.get("window_shown", {}).get("t"),
                "first_results_s": ev.get("first_results", {}).get("t"),
                "first_results_mode": ev.get("first_results", {}).get("mode"),
                "rss_at_rest_mb": ev.get("rest", {}).get("rss_mb"),
                "peak_rss_mb": app["process_peak_rss_mb"],
            },
            "targets": TARGETS_20000 if args.notes >= 20000 else TARGETS,
        }
        print(json.dumps(summary))
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ, MEMDESK_HOME=str(home), QT_QPA_PLATFORM="offscreen",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))  # fmt: skip
    env.pop("DISPLAY", None)
    return env


if __name__ == "__main__":
    raise SystemExit(main())
