"""Start-up and first-index latency as a user feels it, each step in a cold process.

On a generated workspace of N notes (the generator of ``ui_responsiveness.py``
plus one last note with a unique word), with the default model built:

1. **First launch** of the app on the un-indexed workspace: time from process
   start to the window shown, to the first results for the unique word (only
   the last note has it, so results mean every note is keyword-searchable; the
   query is re-sent every 250 ms, as a user retyping would), to the index being
   complete; peak RSS of that process.
2. **Second launch** over the finished index: window shown, first results (and
   in which mode), RSS at rest a few seconds after the results.
3. **CLI** wall times (median of ``--repeats`` cold runs) and peak RSS of
   ``memdesk status``, ``memdesk search`` and ``memdesk search --model none``.

Usage: python benchmarks/startup.py [--notes 2000] [--repeats 3] [--rest 3]
The last line of output is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

MARKER = "quokkabenchmark"
GUI_TIMEOUT_S = 3600.0


# --------------------------------------------------------------------------- child side


def _status_kb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def child_gui(t0: float, workspace: Path, rest_s: float, stop_after: str) -> int:
    """Runs in a fresh interpreter: open the app like ``memdesk gui`` and report events."""
    events: dict[str, Any] = {}

    def emit(name: str, **extra: Any) -> None:
        if name in events:
            return
        events[name] = dict(extra, t=round(time.time() - t0, 3))
        print(json.dumps({"event": name, **events[name]}), flush=True)

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from memdesk import app as app_mod

    emit("imported")
    qapp = QApplication.instance() or QApplication(sys.argv[:1])
    window = app_mod.build_window(workspace, model="auto")
    window.resize(1280, 800)
    window.show()
    QTimer.singleShot(0, lambda: emit("window_shown"))
    session = window.session
    state = {"synced": False}

    def finish() -> None:
        emit(
            "rest",
            rss_mb=round(_status_kb("VmRSS") / 1024, 1),
            peak_rss_mb=round(_status_kb("VmHWM") / 1024, 1),
        )
        retry.stop()
        window.confirm_unsaved = lambda count: "discard"  # type: ignore[method-assign]
        window.close()
        qapp.quit()

    def maybe_done() -> None:
        if "first_results" in events and (stop_after == "results" or state["synced"]):
            QTimer.singleShot(int(rest_s * 1000), finish)

    def on_results(results: Any) -> None:
        if results.query == MARKER and results.hits and "first_results" not in events:
            mode = results.pool.mode if results.pool is not None else None
            emit("first_results", mode=mode, hits=len(results.hits))
            maybe_done()

    def on_sync_finished(report: Any) -> None:
        if not state["synced"]:
            state["synced"] = True
            emit(
                "index_complete",
                chunks=getattr(report, "chunks", None),
                peak_rss_mb=round(_status_kb("VmHWM") / 1024, 1),
            )
            maybe_done()

    def resend() -> None:
        if "first_results" not in events:
            session.set_query(MARKER, immediate=True)

    session.results_changed.connect(on_results)
    session.sync_finished.connect(on_sync_finished)
    session.sync_failed.connect(lambda exc: (emit("sync_failed", error=repr(exc)), qapp.quit()))
    window.search_input.setText(MARKER)
    retry = QTimer()
    retry.setInterval(250)
    retry.timeout.connect(resend)
    retry.start()
    QTimer.singleShot(int(GUI_TIMEOUT_S * 1000), qapp.quit)
    qapp.exec()
    return 0


# --------------------------------------------------------------------------- parent side


# A child's peak RSS is read by the child itself (``VmHWM`` of its own memory map):
# ``wait4``'s ``ru_maxrss`` also counts the parent's RSS at fork time, which Linux carries
# across exec (a parent holding 400 MB made ``python -c pass`` report 413 MB).
CLI_WRAPPER = """
import atexit, os, runpy, sys

def _report_peak():
    with open("/proc/self/status", encoding="ascii") as status:
        kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    with open(os.environ["MEMDESK_BENCH_PEAK_FILE"], "w", encoding="ascii") as out:
        out.write(str(kb))

atexit.register(_report_peak)
sys.argv = ["memdesk", *sys.argv[1:]]
runpy.run_module("memdesk", run_name="__main__", alter_sys=True)
"""


def _popen(cmd: list[str], env: dict[str, str]) -> tuple[float, str, int]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return time.perf_counter() - start, proc.stdout, proc.returncode


def _gui(workspace: Path, env: dict[str, str], rest_s: float, stop_after: str) -> dict[str, Any]:
    t0 = time.time()
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child-gui",
        str(workspace),
        "--t0",
        repr(t0),
        "--rest",
        str(rest_s),
        "--stop-after",
        stop_after,
    ]
    wall, out, code = _popen(cmd, env)
    events: dict[str, Any] = {}
    for line in out.splitlines():
        if line.startswith("{"):
            data = json.loads(line)
            events[data.pop("event")] = data
    return {
        "events": events,
        "process_peak_rss_mb": events.get("rest", {}).get("peak_rss_mb"),  # the child's own VmHWM
        "exit_code": code,
        "wall_s": round(wall, 2),
    }


def _cli(args: list[str], env: dict[str, str], repeats: int) -> dict[str, Any]:
    walls, rss, modes = [], [], []
    with tempfile.NamedTemporaryFile(prefix="memdesk-peak-") as peak_file:
        env = dict(env, MEMDESK_BENCH_PEAK_FILE=peak_file.name)
        for _ in range(repeats):
            wall, out, code = _popen([sys.executable, "-c", CLI_WRAPPER, *args], env)
            if code != 0:
                return {"error": f"exit code {code}"}
            walls.append(wall)
            rss.append(int(Path(peak_file.name).read_text(encoding="ascii")) / 1024)
            try:
                modes.append(json.loads(out).get("mode"))
            except json.JSONDecodeError:
                modes.append(None)
    return {
        "wall_s_median": round(statistics.median(walls), 3),
        "wall_s_min": round(min(walls), 3),
        "peak_rss_mb": round(max(rss), 1),
        "mode": modes[-1],
    }


def _link_models(home: Path) -> str | None:
    """The checkout's own model builds (``.cache/bench-models``, built once) in the data dir."""
    from memdesk.core.embed.models import registry

    source = ROOT / ".cache" / "bench-models"
    registry.build_model(registry.DEFAULT_MODEL, source)
    found = registry.find_default_model(source)
    if found is None:
        return None
    target = home / "models"
    target.mkdir(parents=True, exist_ok=True)
    for item in source.iterdir():
        if item.is_file() and item.name.endswith((".gguf", ".build.json", ".sha256")):
            (target / item.name).symlink_to(item)
    return found.name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rest", type=float, default=3.0, help="seconds idle before RSS at rest")
    parser.add_argument("--child-gui", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--t0", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--stop-after", default="index", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_gui is not None:
        return child_gui(args.t0, args.child_gui, args.rest, args.stop_after)

    from ui_responsiveness import generate

    tmp = Path(tempfile.mkdtemp(prefix="memdesk-startup-"))
    try:
        home = tmp / "home"
        home.mkdir()
        model = _link_models(home)
        workspace = tmp / "workspace"
        generate(workspace, args.notes)
        (workspace / "memory" / "topics" / "zz-last.md").write_text(
            f"# Last note\n\n- The {MARKER} marker lives only here.\n", encoding="utf-8"
        )
        env = dict(
            os.environ,
            MEMDESK_HOME=str(home),
            QT_QPA_PLATFORM="offscreen",
            PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        )
        env.pop("DISPLAY", None)
        load = os.getloadavg()
        print(f"workspace: {args.notes + 1} notes; model: {model}; load average {load[0]:.1f}", flush=True)

        first = _gui(workspace, env, args.rest, "index")
        ev = first["events"]
        print(
            f"first launch: window {ev.get('window_shown', {}).get('t')} s, keyword results "
            f"{ev.get('first_results', {}).get('t')} s ({ev.get('first_results', {}).get('mode')}), "
            f"index complete {ev.get('index_complete', {}).get('t')} s, "
            f"peak RSS {first['process_peak_rss_mb']} MB",
            flush=True,
        )
        second = _gui(workspace, env, args.rest, "results")
        ev2 = second["events"]
        print(
            f"second launch: window {ev2.get('window_shown', {}).get('t')} s, results "
            f"{ev2.get('first_results', {}).get('t')} s ({ev2.get('first_results', {}).get('mode')}), "
            f"RSS at rest {ev2.get('rest', {}).get('rss_mb')} MB",
            flush=True,
        )
        ws = ["--workspace", str(workspace), "--json"]
        cli = {
            "status": _cli(["status", *ws], env, args.repeats),
            "search": _cli(["search", MARKER, *ws], env, args.repeats),
            "search_model_none": _cli(["search", MARKER, "--model", "none", *ws], env, args.repeats),
        }
        for name, figures in cli.items():
            print(f"cli {name}: {figures}", flush=True)
        summary = {
            "benchmark": "startup",
            "notes": args.notes + 1,
            "model": model,
            "load_average_1m_at_start": round(load[0], 2),
            "first_launch": {
                "window_shown_s": ev.get("window_shown", {}).get("t"),
                "all_notes_keyword_searchable_s": ev.get("first_results", {}).get("t"),
                "first_results_mode": ev.get("first_results", {}).get("mode"),
                "index_complete_s": ev.get("index_complete", {}).get("t"),
                "chunks": ev.get("index_complete", {}).get("chunks"),
                "peak_rss_mb": first["process_peak_rss_mb"],
            },
            "second_launch": {
                "window_shown_s": ev2.get("window_shown", {}).get("t"),
                "first_results_s": ev2.get("first_results", {}).get("t"),
                "first_results_mode": ev2.get("first_results", {}).get("mode"),
                "rss_at_rest_mb": ev2.get("rest", {}).get("rss_mb"),
                "peak_rss_mb": second["process_peak_rss_mb"],
            },
            "cli": cli,
            "targets": {"window_shown_s": 2.0, "all_notes_keyword_searchable_s": 10.0, "peak_rss_mb": 400},
        }
        print(json.dumps(summary))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
