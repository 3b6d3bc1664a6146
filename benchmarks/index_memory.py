"""Where a first index's memory goes as the notes grow, without the model.

Generates ``index_2000.py``'s daily notes, then indexes them to hybrid-ready (the sync is
cancelled when the passage-window phase begins, as ``index_2000.py --until hybrid``)
with a model-free embedder (one constant 384-dimension vector per text): what grows with
the notes here is memdesk's own, not llama.cpp's. Per phase: tracemalloc's peak of
Python allocations, the RSS and its high-water mark (``VmHWM``; tracemalloc's own
bookkeeping is in it too), and at the keyword and embed phases' starts the five source
lines holding the most memory.

Usage: python benchmarks/index_memory.py [--notes 20000]
The last line of output is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import shutil
import sys
import tempfile
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

DIMS = 384


class _Constant:
    """A model-free embedder: the same unit vector for every text."""

    def __init__(self) -> None:
        from memdesk.core.embed.embedder import EmbedderIdentity

        self.identity = EmbedderIdentity(provider="fake", model=f"const-{DIMS}", dims=DIMS)
        self.dims = DIMS
        self.max_input_tokens = 512

    def count_tokens(self, text: str) -> int:
        return len(text) // 4

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts), DIMS), dtype=np.float32) / np.sqrt(DIMS)

    def embed_query(self, text: str) -> np.ndarray:
        return np.ones(DIMS, dtype=np.float32) / np.sqrt(DIMS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=20000)
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="memdesk-memory-"))
    os.environ["MEMDESK_HOME"] = str(tmp / "home")
    load = os.getloadavg()[0]
    try:
        import index_2000
        from startup import _status_kb

        from memdesk.core import engine, errors

        ws = tmp / "workspace"
        index_2000.generate(ws, args.notes)
        gc.collect()
        eng = engine.Engine(ws, embedder=_Constant(), db_path=tmp / "index.sqlite")  # type: ignore[arg-type]
        tracemalloc.start(1)
        phases: dict[str, Any] = {}
        current = ["open"]

        def progress(step: Any) -> None:
            if step.phase == current[0]:
                return
            peak = tracemalloc.get_traced_memory()[1]
            phases[current[0]] = {
                "traced_peak_mb": round(peak / 2**20, 1),
                "rss_mb": round(_status_kb("VmRSS") / 1024, 1),
                "hwm_mb": round(_status_kb("VmHWM") / 1024, 1),
            }
            if current[0] in ("keyword", "embed"):
                for stat in tracemalloc.take_snapshot().statistics("lineno")[:5]:
                    print(f"{args.notes} notes, {current[0]} phase done: {stat}", flush=True)
            tracemalloc.reset_peak()
            current[0] = step.phase

        with contextlib.suppress(errors.Cancelled):  # stopped at hybrid-ready
            eng.sync(progress=progress, cancelled=lambda: current[0] == "windows")
        summary = {
            "benchmark": "index_memory",
            "notes": args.notes,
            "phases": phases,
            "peak_rss_mb": round(_status_kb("VmHWM") / 1024, 1),
            "load_average_1m_at_start": round(load, 2),
            "load_average_1m_at_end": round(os.getloadavg()[0], 2),
        }
        eng.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
