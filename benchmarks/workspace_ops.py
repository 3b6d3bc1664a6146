"""What a large workspace costs on every save: the per-operation work that grows with the notes.

Generates ``index_2000.py``'s daily notes (default 20,000), indexes them keyword-only
(no model: the operations timed here do not embed), then times, in CPU seconds of
this process (best of ``--repeat``; the machine is shared, wall time would hold
other jobs' turns), what the app and the CLI do after each change:

- listing the workspace (discovery: every sync, the clock, a status read);
- the workspace clock (``Engine.default_clock``, read again after each sync);
- a status read and the per-file states (the app's snapshot after each sync);
- opening one note (``Engine.read_note``: the path is checked against discovery);
- a sync with nothing changed, and a sync of one changed note (``paths=``);
- what the app pays for one save, with the engine ``watched`` as the app's session sets
  it while its watcher runs: the sync of the saved note, then the read the tree and the
  status bar make after it (``workers.ReaderWorker.snapshot``: the listing, the file
  states, the status, the clock): ``save_snapshot_ms`` alone, ``per_save_ms`` both.
  (Before ``Engine.watched`` existed, the per-save total is the sum of the sync of one
  note, the listing, the clock, the status and the file states: each listed anew.)

``--notes 2000,20000`` measures each size in turn, in the one run, and prints how each
figure grows (the ratio of the last size's to the first's).

Usage: python benchmarks/workspace_ops.py [--notes 20000 | --notes 2000,20000] [--repeat 3]
The last line of output is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _cpu_ms(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        run()
        best = min(best, time.process_time() - t)
    return round(best * 1000, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", default="20000", help="one size, or sizes separated by commas")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.notes.split(",")]
    load = os.getloadavg()[0]
    runs = [_measure(n, args.repeat) for n in sizes]
    summary: dict[str, object] = {
        "benchmark": "workspace_ops",
        "runs": runs,
        "load_average_1m_at_start": round(load, 2),
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),
    }
    if len(runs) > 1:
        first, last = runs[0]["cpu_ms"], runs[-1]["cpu_ms"]
        summary["growth"] = {
            "notes": round(sizes[-1] / sizes[0], 2),
            **{k: round(last[k] / first[k], 2) for k in first if first[k] > 0},
            "first_index_keyword_only_cpu_s": round(
                runs[-1]["first_index_keyword_only_cpu_s"] / runs[0]["first_index_keyword_only_cpu_s"], 2
            ),
        }
    print(json.dumps(summary))
    return 0


def _measure(notes: int, repeat: int) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="memdesk-wsops-"))
    os.environ["MEMDESK_HOME"] = str(tmp / "home")
    try:
        import index_2000

        from memdesk.core import engine
        from memdesk.core.index import workspace
        from memdesk.core.search import clock

        ws = tmp / "workspace"
        newest = index_2000.generate(ws, notes)
        rel = workspace.rel_path(ws, newest)
        eng = engine.Engine(ws, embedder=None, db_path=tmp / "index.sqlite")
        try:
            t = time.process_time()
            eng.sync()
            first = round(time.process_time() - t, 2)
            figures = {
                "list_ms": _cpu_ms(lambda: workspace.list_memory_files(ws), repeat),
                # What ``Engine.default_clock`` does after each sync.
                "clock_ms": _cpu_ms(lambda: clock.default_clock(ws, workspace.list_memory_files(ws)), repeat),
                "status_ms": _cpu_ms(eng.status, repeat),
                "file_states_ms": _cpu_ms(eng.file_states, repeat),
                "read_note_ms": _cpu_ms(lambda: eng.read_note(rel), repeat),
                "sync_nothing_changed_ms": _cpu_ms(eng.sync, repeat),
            }

            def one_note() -> None:
                with newest.open("a", encoding="utf-8") as handle:
                    handle.write("- one more line\n")
                eng.sync(paths=[rel])

            figures["sync_one_note_ms"] = _cpu_ms(one_note, repeat)

            # What the app runs after each save, its engine watched as the session sets it.
            eng.watched = True
            eng.sync()  # the app's first sync: a full one

            def snapshot() -> None:  # ``workers.ReaderWorker.snapshot``, without Qt
                eng.listed_rels()
                eng.file_states()
                eng.status()
                eng.default_clock()

            snapshot()

            def save() -> None:
                one_note()
                snapshot()

            figures["save_snapshot_ms"] = _cpu_ms(snapshot, repeat)
            figures["per_save_ms"] = _cpu_ms(save, repeat)
        finally:
            eng.close()
        for name, value in figures.items():
            print(f"{notes} notes: {name}: {value} ms of CPU", flush=True)
        return {
            "notes": notes,
            "first_index_keyword_only_cpu_s": first,
            "cpu_ms": figures,
            "memdesk": str(Path(engine.__file__).resolve().parents[2]),
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
