"""What the OpenClaw profiles' own indexes cost: time to build, time on the next run, disk.

The ``openclaw-2026.4`` and ``openclaw-2026.9`` profiles index the workspace the way
that release does (its chunking, its files, bare-text embeddings one sequence per
llama.cpp call), beside memdesk's main index. This generates N daily notes (the
generator of ``index_2000.py``), syncs the main index with the model, then for each
profile measures, in this process:

1. the first build (every chunk embedded with the release's recipe; the search the
   user ran waits for it),
2. the next run's build (a fresh engine on the same data dir: vectors read from the
   ``<index>.openclaw-vectors`` file, nothing embedded),

and reports the chunk counts, the vectors file's size next to the main index's, and
the main index's own sync time for scale.

``--background`` measures what the app does instead (issue 26): in the engine that just
built the main index, each profile's index is built ahead of use (``Engine.prepare_profile``,
the background job's work; how many vectors it reused from the main index or the other
profile, how many it embedded), then the first search with that profile is timed: the
wait the user sees once memdesk's index is complete (target: <= 2 s at 2,000 notes).

Usage: python benchmarks/openclaw_profile_index.py [--notes 200] [--model PATH] [--background]
The last line of output is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", type=int, default=200)
    ap.add_argument("--model", help="GGUF file (default: the built default model)")
    ap.add_argument(
        "--background", action="store_true", help="the app's way: built ahead of the first search"
    )
    args = ap.parse_args(argv)

    import index_2000

    from memdesk.core import engine as engine_mod
    from memdesk.core.search import settings as settings_mod
    from memdesk.core.search.profiles import runner_common as profile_common

    tmp = Path(tempfile.mkdtemp(prefix="memdesk-ocprofile-"))
    ws = tmp / "workspace"
    index_2000.generate(ws, args.notes)
    db = tmp / "index.sqlite"
    model = args.model or "auto"
    out: dict[str, Any] = {"notes": args.notes}
    try:
        eng = engine_mod.Engine.open(ws, model=Path(model) if model != "auto" else "auto", db_path=db)
        assert eng.embedder is not None, eng.fallback_reason
        out["model"] = eng.embedder.identity.model
        t0 = time.perf_counter()
        eng.sync()
        out["main_index_sync_s"] = round(time.perf_counter() - t0, 2)
        if args.background:
            eng.pin_agent_settings(profile_common.AgentSettings())
            for profile in (settings_mod.OPENCLAW_2026_9, settings_mod.OPENCLAW_2026_4):
                t0 = time.perf_counter()
                prep = eng.prepare_profile(profile)
                row = {"background_build_s": round(time.perf_counter() - t0, 2), **prep}
                runner = eng._runners[profile]
                row["chunks"] = len(
                    runner.index(eng.embedder, None, eng.embed_lock).chunks
                    if profile == settings_mod.OPENCLAW_2026_4
                    else runner.searcher(eng.embedder, None, eng.embed_lock).index.chunks
                )
                settings = settings_mod.SearchSettings.defaults(profile)
                eng.search("warm the model", settings_mod.SearchSettings.defaults("memdesk"))
                t0 = time.perf_counter()
                result = eng.search("sqlite-vec", settings)
                row["first_search_s"] = round(time.perf_counter() - t0, 3)
                row["embedded_by_first_search"] = runner.reuse.embedded - prep.get("embedded", 0)
                row["hits"] = len(result.hits)
                row["failure"] = str(runner.failure) if runner.failure else None
                out[profile] = row
            eng.close()
            out["vectors_file_bytes"] = _size(db.with_name(db.name + ".openclaw-vectors"))
            print(json.dumps(out))
            return 0
        eng.close()
        out["main_index_bytes"] = _size(db)
        for profile in (settings_mod.OPENCLAW_2026_4, settings_mod.OPENCLAW_2026_9):
            settings = settings_mod.SearchSettings.defaults(profile)
            row: dict[str, Any] = {}
            for run in ("first", "next"):
                eng = engine_mod.Engine.open(ws, model=Path(model) if model != "auto" else "auto", db_path=db)
                eng.pin_agent_settings(profile_common.AgentSettings())
                eng.search("warm the model", settings_mod.SearchSettings.defaults("memdesk"))
                t0 = time.perf_counter()
                result = eng.search("sqlite-vec", settings)
                row[f"{run}_search_s"] = round(time.perf_counter() - t0, 2)
                runner = eng._runners[profile]
                row[f"{run}_embedded"] = runner.reuse.embedded
                row["hits"] = len(result.hits)
                eng.close()
            # Cumulative: both profiles share the file (rows keyed by recipe and text hash).
            row["vectors_file_bytes_so_far"] = _size(db.with_name(db.name + ".openclaw-vectors"))
            out[profile] = row
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not args.background:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
