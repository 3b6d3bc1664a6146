"""``memdesk mcp``: a memory_search round trip over stdio against the same search in-process.

For keyword-only and hybrid (query embedding included in both), on the example
workspace or N generated daily notes (``index_2000.generate``), each mode with its
own private data dir indexed beforehand:

1. **In-process**: ``Engine.search`` with the workspace's settings, as the app runs it.
2. **Over stdio**: ``memory_search`` through the official SDK's client to a
   ``memdesk mcp`` subprocess (JSON-RPC, validation, JSON both ways).

Both cycle the same queries after one warm-up each (the hybrid warm-up loads the
model). Then **start to first memory_status**: from spawning the server to the answer
of its first ``memory_status`` (the model is built; it loads on the first hybrid search).

Usage: python benchmarks/mcp_latency.py [--notes 0|2000] [--runs 60] [--model PATH]
                                        [--modes keyword_only,hybrid] [--starts 5]
The last line of output is one JSON object with every figure: ``start_to_status_s``
holds every start's seconds (``runs``), their median and max, and the load average
(``os.getloadavg``) before and after, since a shared machine's load shows in them,
and the server's CPU seconds until it answered (``server_cpu_*``), which the load does
not inflate as much.
Start to status is measured when the hybrid mode ran (its index is built).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import anyio

QUERIES = [
    "which database did we pick for the vector store",
    "deploy cadence",
    "who is on call next week",
    "Atlas migration follow-up",
    "CJK search tokenizer",
    "鉴权方案",
    "budget review decision",
    "Northwind pilot feedback",
    "retry policy bug",
    "backup restores tested",
]
TARGETS = {"p95_over_in_process_ms": 20.0, "start_to_status_s": 1.0}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(values), 2),
        "p95_ms": round(pct(values, 0.95), 2),
        "n": len(values),
    }


def in_process(workspace: Path, model: str, runs: int) -> list[float]:
    from memdesk.core import engine
    from memdesk.core.eval import tuned

    eng = engine.Engine.open(workspace, model=model)
    try:
        eng.sync()
        settings = tuned.current_settings(workspace)
        eng.search(QUERIES[0], settings)  # warm-up (loads the model)
        times = []
        for i in range(runs):
            t0 = time.perf_counter()
            eng.search(QUERIES[i % len(QUERIES)], settings)
            times.append((time.perf_counter() - t0) * 1000)
        return times
    finally:
        eng.close()


def _params(workspace: Path, model: str) -> Any:
    from mcp.client.stdio import StdioServerParameters

    env = {"MEMDESK_HOME": os.environ["MEMDESK_HOME"], "PYTHONPATH": str(ROOT)}
    args = ["-m", "memdesk", "mcp", "--workspace", str(workspace), "--model", model]
    return StdioServerParameters(command=sys.executable, args=args, env=env)


async def over_stdio(workspace: Path, model: str, runs: int) -> list[float]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    with open(os.devnull, "w") as err:
        async with (
            stdio_client(_params(workspace, model), errlog=err) as streams,
            ClientSession(*streams) as s,
        ):
            await s.initialize()
            while (await s.call_tool("memory_status", {})).structured_content["indexing"]:
                await anyio.sleep(0.1)
            await s.call_tool("memory_search", {"query": QUERIES[0]})  # warm-up
            times = []
            modes: set[str] = set()
            notices: set[str] = set()
            for i in range(runs):
                t0 = time.perf_counter()
                result = await s.call_tool("memory_search", {"query": QUERIES[i % len(QUERIES)]})
                times.append((time.perf_counter() - t0) * 1000)
                assert not result.is_error, result.content
                modes.add(result.structured_content["mode"])
                notices.update(result.structured_content["notices"])
            # The round trips must be the mode asked for (not a keyword-only fallback).
            assert modes == {"fts" if model == "none" else "hybrid"}, (modes, notices)
            return times


def children_cpu_s() -> float:
    """CPU seconds (user + system) the server process has used so far: this process's
    children, read from /proc (Linux). On a loaded machine the wall time also counts the
    time the server waited for a core; its CPU time does not."""
    me, total, tick = os.getpid(), 0.0, os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:  # ppid
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


async def start_to_status(workspace: Path, model: str) -> tuple[float, float]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    t0 = time.perf_counter()
    with open(os.devnull, "w") as err:
        async with (
            stdio_client(_params(workspace, model), errlog=err) as streams,
            ClientSession(*streams) as s,
        ):
            await s.initialize()
            result = await s.call_tool("memory_status", {})
            elapsed = time.perf_counter() - t0
            cpu = children_cpu_s()
            assert not result.is_error and result.structured_content["model_loaded"] is False
            return elapsed, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=0, help="generated daily notes (0: the example workspace)")
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--model", default=None, help="GGUF model (default: the default built model)")
    ap.add_argument("--modes", default="keyword_only,hybrid", help="which of keyword_only,hybrid to run")
    ap.add_argument("--starts", type=int, default=5, help="server starts to time (0: none)")
    args = ap.parse_args()
    modes = [m for m in ("keyword_only", "hybrid") if m in args.modes.split(",")]

    from memdesk.core import paths
    from memdesk.core.embed.models import registry

    model = args.model or str(registry.find_default_model(paths.models_dir()) or "")
    if not model:
        sys.exit("no embedding model built (memdesk model build)")
    tmp = Path(tempfile.mkdtemp(prefix="memdesk-mcp-bench-"))
    workspace = tmp / "workspace"
    if args.notes:
        import index_2000

        index_2000.generate(workspace, args.notes)
    else:
        shutil.copytree(ROOT / "examples" / "workspace", workspace)
    figures: dict[str, Any] = {"notes": args.notes or "example workspace", "runs": args.runs}
    try:
        for mode, spec in (("keyword_only", "none"), ("hybrid", model)):
            if mode not in modes:
                continue
            os.environ["MEMDESK_HOME"] = str(tmp / f"home-{mode}")  # each mode its own index
            t0 = time.perf_counter()
            local = in_process(workspace, spec, args.runs)
            print(f"{mode}: indexed and searched in-process in {time.perf_counter() - t0:.1f} s", flush=True)
            remote = anyio.run(over_stdio, workspace, spec, args.runs)
            a, b = summary(local), summary(remote)
            figures[mode] = {
                "in_process": a,
                "stdio": b,
                "p50_over_in_process_ms": round(b["p50_ms"] - a["p50_ms"], 2),
                "p95_over_in_process_ms": round(b["p95_ms"] - a["p95_ms"], 2),
            }
            print(f"{mode}: {json.dumps(figures[mode])}", flush=True)
        if "hybrid" in modes and args.starts:
            load_before = os.getloadavg()
            measured = [anyio.run(start_to_status, workspace, model) for _ in range(args.starts)]
            starts = [wall for wall, _cpu in measured]
            cpus = [cpu for _wall, cpu in measured]
            figures["start_to_status_s"] = {
                "runs": [round(s, 3) for s in starts],
                "median": round(statistics.median(starts), 3),
                "max": round(max(starts), 3),
                "server_cpu_runs": [round(c, 2) for c in cpus],
                "server_cpu_median": round(statistics.median(cpus), 2),
                "load_avg_before": [round(x, 2) for x in load_before],
                "load_avg_after": [round(x, 2) for x in os.getloadavg()],
            }
            print(f"start to first memory_status: {figures['start_to_status_s']}", flush=True)
        figures["targets"] = TARGETS
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
