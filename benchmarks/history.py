"""The version store (``core/history``): capture on the sync path, size, the Changes view.

1. **Capture on the sync path**: a workspace of N notes (``--notes``, ~3 KB each, plus a
   100 KB ``MEMORY.md``) indexed keyword-only (its history baseline taken); then one note
   at a time is changed on disk and ``Engine.sync(paths=[note])`` runs, as after a watcher
   event. Each sync's capture (``captures.SyncCaptures.flush``: digest, the previous
   version read, a zstd delta, the +/- counts, one SQLite commit) is timed: median and
   p95 ms per changed note, small notes and the 100 KB note apart. The baseline's time
   is reported too.
2. **Size**: ``--versions`` versions of a 100 KB note (each edits 1-3 lines, a third of
   them also append one), captured in order; the store's file size (after a WAL
   checkpoint) against the zstd-compressed size of the distinct content: every distinct
   version concatenated and compressed by zstd (level 3, long-distance matching, a
   128 MB window) as one stream, the way ``zstd --long`` would keep them as one file;
   and against each version compressed on its own (what storing them plainly costs).
3. **The Changes view's data**: ``--cv-notes`` notes × ``--cv-versions`` versions, one
   version per note per day; ``History.changes`` over the last week +
   ``changes.by_note`` + each note's +/- counts summed: median of 5 runs (target < 1 s).

Usage: python benchmarks/history.py [--notes 200] [--versions 10000] [--cv-notes 2000]
                                    [--cv-versions 50]
The last line of output is one JSON object with every figure and the load average
(``os.getloadavg``) before and after each part.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = (
    "ferry owner project memory agent note decision postgres budget atlas deploy review plan cadence".split()
)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def load() -> float:
    return round(os.getloadavg()[0], 2)


def line(rng: random.Random, n: int) -> str:
    return f"- {n}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randrange(4, 14))) + "\n"


def big_note(rng: random.Random, size: int = 100_000) -> list[str]:
    lines: list[str] = []
    while sum(len(x) for x in lines) < size:
        lines.append(line(rng, len(lines)))
    return lines


def edit(rng: random.Random, lines: list[str], i: int) -> None:
    for _ in range(rng.randrange(1, 4)):
        lines[rng.randrange(len(lines))] = line(rng, i)
    if rng.random() < 1 / 3:
        lines.append(line(rng, i))


def capture_on_sync_path(notes: int, rounds: int) -> dict[str, Any]:
    from memdesk.core import engine as engine_mod
    from memdesk.core.index import captures

    timings: list[tuple[float, int]] = []
    real_flush = captures.SyncCaptures.flush

    def timed_flush(self: captures.SyncCaptures) -> None:
        pending = len(self.pending)
        start = time.perf_counter()
        real_flush(self)
        if pending:
            timings.append((time.perf_counter() - start, pending))

    captures.SyncCaptures.flush = timed_flush  # type: ignore[method-assign]
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="memdesk-history-bench-") as tmp:
        os.environ["MEMDESK_HOME"] = str(Path(tmp) / "home")
        root = Path(tmp) / "ws"
        (root / "memory").mkdir(parents=True)
        big = big_note(rng)
        (root / "MEMORY.md").write_text("".join(big), encoding="utf-8")
        small: dict[str, list[str]] = {}
        for n in range(notes):
            rel = f"memory/2026-{1 + n // 28 % 12:02d}-{1 + n % 28:02d}-{n}.md"
            small[rel] = [line(rng, k) for k in range(40)]
            (root / rel).write_text("".join(small[rel]), encoding="utf-8")
        eng = engine_mod.Engine(root, embedder=None)
        before = load()
        start = time.perf_counter()
        eng.sync()
        first_sync = time.perf_counter() - start
        history = eng.history
        assert history is not None
        baseline_versions = len(history.notes())
        timings.clear()
        small_ms: list[float] = []
        big_ms: list[float] = []
        names = sorted(small)
        for i in range(rounds):
            for rel, lines, out in (
                (names[i % len(names)], small[names[i % len(names)]], small_ms),
                ("MEMORY.md", big, big_ms),
            ):
                edit(rng, lines, i)
                path = root / rel
                path.write_text("".join(lines), encoding="utf-8")
                st = path.stat()
                os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 3_000_000_000))
                timings.clear()
                eng.sync(paths=[rel])
                out.extend(1000 * seconds / count for seconds, count in timings)
        eng.close()
    captures.SyncCaptures.flush = real_flush  # type: ignore[method-assign]
    return {
        "notes": notes + 1,
        "first_sync_s_with_baseline": round(first_sync, 3),
        "baseline_versions": baseline_versions,
        "small_note_ms_median": round(statistics.median(small_ms), 3),
        "small_note_ms_p95": round(pct(small_ms, 0.95), 3),
        "note_100kb_ms_median": round(statistics.median(big_ms), 3),
        "note_100kb_ms_p95": round(pct(big_ms, 0.95), 3),
        "captures_timed": len(small_ms) + len(big_ms),
        "load_before": before,
        "load_after": load(),
    }


def store_size(versions: int) -> dict[str, Any]:
    import zstandard

    from memdesk.core.base import sqlite
    from memdesk.core.history import open_history

    rng = random.Random(11)
    lines = big_note(rng)
    params = zstandard.ZstdCompressionParameters.from_level(3, enable_ldm=True, window_log=27)
    stream = zstandard.ZstdCompressor(compression_params=params).compressobj()
    plain = zstandard.ZstdCompressor(level=3)
    long_bytes = 0
    each_bytes = 0
    seen: set[bytes] = set()
    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    before = load()
    capture_s = 0.0
    with tempfile.TemporaryDirectory(prefix="memdesk-history-size-") as tmp:
        os.environ["MEMDESK_HOME"] = str(Path(tmp) / "home")
        root = Path(tmp) / "ws"
        root.mkdir()
        history = open_history(root)
        for i in range(versions):
            if i:
                edit(rng, lines, i)
            data = "".join(lines).encode()
            start = time.perf_counter()
            history.capture("MEMORY.md", data, source="disk", at=t0 + dt.timedelta(minutes=i))
            capture_s += time.perf_counter() - start
            if data not in seen:
                seen.add(data)
                long_bytes += len(stream.compress(data))
                each_bytes += len(plain.compress(data))
        long_bytes += len(stream.flush())
        sqlite.rows(history._conn, "PRAGMA wal_checkpoint(TRUNCATE)")
        size = sum(
            os.path.getsize(f"{history.path}{suffix}")
            for suffix in ("", "-wal")
            if os.path.exists(f"{history.path}{suffix}")
        )
        history._blobs.cache.clear()
        timeline = history.timeline("MEMORY.md", git=False)
        start = time.perf_counter()
        for v in timeline[:: max(1, len(timeline) // 50)]:
            history._blobs.cache.clear()
            assert history.content(v) is not None
        read_ms = 1000 * (time.perf_counter() - start) / len(timeline[:: max(1, len(timeline) // 50)])
        history.close()
    return {
        "versions": versions,
        "distinct": len(seen),
        "note_bytes": len(data),
        "store_bytes": size,
        "distinct_zstd_long_bytes": long_bytes,
        "ratio_to_distinct_zstd_long": round(size / long_bytes, 3),
        "each_version_zstd_bytes": each_bytes,
        "ratio_to_each_version_zstd": round(size / each_bytes, 4),
        "capture_ms_mean": round(1000 * capture_s / versions, 3),
        "read_any_version_ms_mean_cold": round(read_ms, 3),
        "load_before": before,
        "load_after": load(),
    }


def changes_view(notes: int, per_note: int) -> dict[str, Any]:
    from memdesk.core.history import changes, open_history

    rng = random.Random(5)
    end = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    before = load()
    with tempfile.TemporaryDirectory(prefix="memdesk-history-cv-") as tmp:
        os.environ["MEMDESK_HOME"] = str(Path(tmp) / "home")
        root = Path(tmp) / "ws"
        root.mkdir()
        history = open_history(root)
        texts = {f"memory/n{n}.md": [line(rng, k) for k in range(30)] for n in range(notes)}
        build = time.perf_counter()
        for day in range(per_note):
            with history.batch():
                for note, lines in texts.items():
                    edit(rng, lines, day)
                    at = end - dt.timedelta(days=per_note - day) + dt.timedelta(seconds=rng.randrange(86_400))
                    source = "disk" if rng.random() < 0.7 else "memdesk"
                    history.capture(note, "".join(lines).encode(), source=source, at=at)
        build_s = time.perf_counter() - build
        runs: list[float] = []
        for _ in range(5):
            start = time.perf_counter()
            found = history.changes(end - dt.timedelta(days=7), end)
            groups = changes.by_note(found)
            stats = [(g.note, g.added, g.removed, g.sources) for g in groups]
            runs.append(time.perf_counter() - start)
        history.close()
    return {
        "notes": notes,
        "versions_per_note": per_note,
        "versions_total": notes * per_note,
        "versions_in_week": len(found),
        "notes_in_week": len(stats),
        "changes_view_s_median": round(statistics.median(runs), 3),
        "changes_view_s_max": round(max(runs), 3),
        "build_s": round(build_s, 1),
        "load_before": before,
        "load_after": load(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=100, help="changes per note kind on the sync path")
    ap.add_argument("--versions", type=int, default=10_000)
    ap.add_argument("--cv-notes", type=int, default=2000)
    ap.add_argument("--cv-versions", type=int, default=50)
    args = ap.parse_args()
    out: dict[str, Any] = {"date": dt.date.today().isoformat(), "cpus": os.cpu_count()}
    out["capture"] = capture_on_sync_path(args.notes, args.rounds)
    print(json.dumps(out["capture"]), flush=True)
    out["changes_view"] = changes_view(args.cv_notes, args.cv_versions)
    print(json.dumps(out["changes_view"]), flush=True)
    out["size"] = store_size(args.versions)
    print(json.dumps(json.loads(json.dumps(out))))


if __name__ == "__main__":
    main()
