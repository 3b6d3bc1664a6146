"""How fast the Changes view opens on a big history (issue 23: 2,000 notes x 50
versions in under a second), and how fast one note's diff follows a selection.

Builds a workspace of N notes with V versions each in a private MEMDESK_HOME (the
versions spread over today, the agent's and the user's in turn; kept in
--store to reuse), then, in the real window's Changes view (offscreen Qt, the real
job runner): from asking for the view to the period listed ("this week": every
version), and from selecting a note's group to its diff on screen. Prints one JSON
object last.

    nice -n 10 python benchmarks/changes_view.py [--notes 2000] [--versions 50] [--store DIR]
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


def build(root: Path, notes: int, versions: int) -> None:
    """The workspace's notes and their history (captured through the real store)."""
    from memdesk.core import history as history_mod

    (root / "memory").mkdir(parents=True, exist_ok=True)
    rng = random.Random(23)
    now = dt.datetime.now(dt.UTC)
    # All of them today (the view opens on today): since local midnight, or the last minute.
    midnight = dt.datetime.combine(now.astimezone().date(), dt.time(), tzinfo=now.astimezone().tzinfo)
    start = min(now - dt.timedelta(minutes=1), midnight.astimezone(dt.UTC) + (now - midnight) / 20)
    step = (now - start) / (notes * versions + 1)
    store = history_mod.open_history(root)
    try:
        at = start
        texts = {}
        for n in range(notes):
            rel = f"memory/topic-{n:05d}.md"
            lines = [f"# Topic {n}", ""] + [
                f"- fact {i} about topic {n}: {rng.random():.6f}" for i in range(20)
            ]
            texts[rel] = lines
        with store.batch():
            for v in range(versions):
                for rel, lines in texts.items():
                    lines[2 + rng.randrange(20)] = f"- fact changed in version {v}: {rng.random():.6f}"
                    at += step
                    source = "disk" if (v + hash(rel)) % 2 else "memdesk"
                    store.capture(rel, "\n".join(lines).encode("utf-8") + b"\n", source=source, at=at)
        for rel, lines in texts.items():
            (root / rel).write_text("\n".join(lines) + "\n", "utf-8")
    finally:
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--versions", type=int, default=50)
    parser.add_argument("--store", type=Path, default=None, help="keep the built history here")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    base = args.store or Path(tempfile.mkdtemp(prefix="memdesk-changes-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    os.environ["MEMDESK_HOME"] = str(base / "home")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    root = base / f"ws-{args.notes}x{args.versions}"
    built = 0.0
    if not (root / ".built").exists():
        t0 = time.perf_counter()
        build(root, args.notes, args.versions)
        built = time.perf_counter() - t0
        (root / ".built").write_text("ok")

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from memdesk import app as app_mod
    from memdesk.qt import compat

    compat.apply_refcount_workaround()
    qapp = QApplication.instance() or QApplication(sys.argv)
    window = app_mod.build_window(root, model="none", data_dir=base / "home")
    window.resize(1280, 800)
    window.show()

    def wait(signal: object, timeout_ms: int = 120_000) -> None:
        loop = QEventLoop()
        signal.connect(loop.quit)  # type: ignore[attr-defined]
        QTimer.singleShot(timeout_ms, loop.quit)
        loop.exec()
        signal.disconnect(loop.quit)  # type: ignore[attr-defined]

    wait(window.session.sync_finished)  # the first sync (and its baseline) out of the way
    opens: list[float] = []
    view = None
    for run in range(args.runs):
        t0 = time.perf_counter()
        if view is None:
            view = window.history_ui.show_changes()  # Ctrl+Shift+C: the window, then its list
        else:
            view.reload()
        wait(view.loaded)
        qapp.processEvents()  # the tree painted
        opens.append(time.perf_counter() - t0)
        del run
    assert view is not None and view.changes is not None
    rows = sum(view.tree.topLevelItem(i).childCount() for i in range(view.tree.topLevelItemCount()))
    versions_listed = sum(g.count for g in view.changes.groups)
    details: list[float] = []
    head = view.tree.topLevelItem(0)
    for index in range(1, min(args.runs, head.childCount() - 1) + 1):
        item = head.child((index * 7) % head.childCount() or 1)  # never the one selected at open
        t0 = time.perf_counter()
        view.tree.setCurrentItem(item)
        wait(view.detail_shown)
        qapp.processEvents()
        details.append(time.perf_counter() - t0)
    # CPU time of the same work, which the machine's load does not stretch: the job's
    # read (here on this thread) and the tree's fill on the GUI thread.
    cpu_read, cpu_fill = [], []
    from memdesk.qt import history_data

    for _ in range(args.runs):
        c0 = time.thread_time()
        changes = history_data.load_changes(root, view.start())
        cpu_read.append(time.thread_time() - c0)
        c0 = time.thread_time()
        view._changes = changes
        view._fill_tree()
        qapp.processEvents()
        cpu_fill.append(time.thread_time() - c0)
    result = {
        "benchmark": "changes_view",
        "notes": args.notes,
        "versions_per_note": args.versions,
        "versions_listed": versions_listed,
        "group_rows": rows,
        "first_open_s": round(opens[0], 3),
        "open_s_median": round(statistics.median(opens), 3) if opens else None,
        "open_s_max": round(max(opens), 3) if opens else None,
        "detail_s_median": round(statistics.median(details), 3) if details else None,
        "cpu_read_s_median": round(statistics.median(cpu_read), 3),
        "cpu_fill_s_median": round(statistics.median(cpu_fill), 3),
        "history_build_s": round(built, 1),
        "load": os.getloadavg()[0],
        "date": dt.date.today().isoformat(),
    }
    window.close()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
