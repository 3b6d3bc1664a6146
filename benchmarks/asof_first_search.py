"""The first ``memory_search_as_of`` of a new day: how long until its answer.

A copy of the example workspace (or N generated daily notes, ``index_2000.generate``)
is indexed with the default model in ``MEMDESK_HOME``; then ``--changed`` of its notes
get an older version on ``--day`` in the history (each chunk's text differs from the
live index's, as notes the agent rewrote since), the day's snapshot folder is removed,
and ``MemoryTools.memory_search_as_of`` is timed in-process after a warm-up search (the
server's model is loaded by then). With the background finish of this branch it also
reports when the day's vectors were in and the next answer (hybrid).

Usage: MEMDESK_HOME=DIR python benchmarks/asof_first_search.py [--notes 0|N]
                                  [--changed 40] [--day YYYY-MM-DD] [--keep DIR]
Run it from a tree to measure that tree (``PYTHONPATH``). The last line is one JSON
object with every figure and the load average before and after.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

QUERY = "who owns the ferry project"


def give_older_versions(root: Path, day: dt.date, count: int) -> int:
    """``count`` notes get a version on ``day`` whose every chunk reads differently."""
    from memdesk.core.history import open_history

    history = open_history(root)
    try:
        notes = sorted(root.rglob("*.md"))[:count]
        at = dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)
        for path in notes:
            old = path.read_text("utf-8").replace(" the ", " that ").replace("\n- ", "\n* ")
            history.capture(path.relative_to(root).as_posix(), old.encode(), source="disk", at=at)
    finally:
        history.close()
    return len(notes)


def measure(root: Path, day: str) -> dict[str, Any]:
    from memdesk.core import paths
    from memdesk.mcp.tools import MemoryTools

    shutil.rmtree(paths.data_dir() / "asof", ignore_errors=True)  # a new day
    tools = MemoryTools(root, sync_on_start=False)
    out: dict[str, Any] = {}
    try:
        tools.engine().sync()
        tools.memory_search("warm up the model", max_results=1)
        t0, c0 = time.perf_counter(), time.process_time()
        first = tools.memory_search_as_of(QUERY, day)
        t1, c1 = time.perf_counter(), time.process_time()
        out.update(
            first_answer_s=round(t1 - t0, 3),
            first_answer_cpu_s=round(c1 - c0, 3),
            first_mode=first["mode"],
            pending_chunks=first["as_of"].get("pending_chunks"),
            first_hits=len(first["results"]),
        )
        wait = getattr(tools, "wait_for_as_of", None)
        if wait is not None:
            wait(3600)
            t2 = time.perf_counter()
            second = tools.memory_search_as_of(QUERY, day)
            out.update(
                vectors_in_after_s=round(t2 - t1, 1),
                next_answer_s=round(time.perf_counter() - t2, 3),
                next_mode=second["mode"],
            )
    finally:
        tools.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=0, help="generated daily notes (0: the example)")
    ap.add_argument("--changed", type=int, default=40, help="notes given an older version on --day")
    ap.add_argument("--day", default="2026-12-01")
    ap.add_argument("--keep", type=Path, help="keep the workspace here (reused when it exists)")
    args = ap.parse_args()
    if "MEMDESK_HOME" not in os.environ:
        sys.exit("set MEMDESK_HOME to a private data dir (with the built models in its models/)")
    tmp = Path(tempfile.mkdtemp(prefix="memdesk-asof-"))
    root = args.keep or tmp / "ws"
    try:
        if not root.exists():
            if args.notes:
                import index_2000

                index_2000.generate(root, args.notes)
            else:
                shutil.copytree(ROOT / "examples" / "workspace", root)
            from memdesk.core import engine

            eng = engine.Engine.open(root)
            try:
                eng.sync()  # the live index, as it is now
            finally:
                eng.close()
            give_older_versions(root, dt.date.fromisoformat(args.day), args.changed)
        load_before = os.getloadavg()
        result = measure(root, args.day)
        result.update(notes=args.notes or "example", changed=args.changed, day=args.day)
        result.update(load_before=[round(x, 2) for x in load_before])
        result.update(load_after=[round(x, 2) for x in os.getloadavg()])
        print(json.dumps(result))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
