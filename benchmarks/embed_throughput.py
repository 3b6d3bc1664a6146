"""Embedding throughput against the machine's own float32 GEMM ceiling, measured in one run.

Engines, each fed the same deterministic bilingual note chunks of ~290 MiniLM
tokens (260-320), 8 chunks per call as the indexer sends them:

* memdesk's ``GgufEmbedder`` on every buildable model (all-MiniLM-L6-v2,
  multilingual-e5-small), with the settings memdesk indexes with;
* sentence-transformers + torch (CPU, float32) on the same MiniLM weights,
  when both are importable (``pip install torch sentence-transformers``);
* the ceiling: numpy's float32 GEMM (2048³, OpenBLAS) on the same thread count,
  in a child process so its thread pool cannot disturb the others.

The engines and the ceiling run interleaved, round after round (``--rounds``),
so a burst of load from other processes hits them alike; each figure is the
best round (other processes only ever make a run slower) and the median.
A model's work per token is counted from its header: per layer
``2n(4h² + 2h·ff) + 4n²h`` FLOPs for a sequence of n tokens (projections, FFN,
attention scores and mix); share = achieved FLOP/s / ceiling FLOP/s.

Usage: python benchmarks/embed_throughput.py [--rounds 5] [--chunks 48] [--threads N]
The last line of output is one JSON object with every figure.

``--sweep`` instead times memdesk's GGUF engines under each llama.cpp setting it can
change: threads (1, 2), OpenMP wait policy (PASSIVE as memdesk sets it, ACTIVE) and
the packing budget per call (256 tokens, memdesk's default, and 512, the models'
trained context), each in its own process (libgomp reads the wait policy when it
loads), with the 2-thread GEMM ceiling measured between them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memdesk.core.embed import gguf_embedder
from memdesk.core.embed.models import registry, wheels
from memdesk.core.errors import MemdeskError

# The checkout's own builds (like the tests' .cache/test-models): the user's models dir
# may hold files of another memdesk version.
BENCH_MODELS = Path(__file__).resolve().parents[1] / ".cache" / "bench-models"
PER_CALL = 8  # chunks per embed_documents call, as the indexer sends them

_EN_SUBJECTS = ["The user", "Alice", "Bob", "The agent", "Our team", "The build", "The indexer",
                "My manager", "The customer", "The nightly job"]  # fmt: skip
_EN_VERBS = ["prefers", "decided to use", "asked about", "reported a bug in", "postponed",
             "reviewed", "wants to migrate", "benchmarked", "documented", "rolled back"]  # fmt: skip
_EN_OBJECTS = ["dark mode in the editor", "the SQLite index", "vector search with hybrid BM25",
               "the Friday release", "Python 3.11", "weekly status emails", "the GPU server",
               "OpenClaw memory files", "the quarterly budget", "a new embedding model",
               "Markdown front matter", "the retry policy", "coffee without sugar"]  # fmt: skip
_EN_TAILS = ["because latency matters", "after the incident on Tuesday", "for the demo",
             "until the next sprint", "as discussed in the standup", "with no objections",
             "pending legal review", "to reduce cost", "per the design doc"]  # fmt: skip
_ZH_SUBJECTS = ["用户", "我们团队", "产品经理", "张三", "李四", "客户", "运维同学", "这个代理"]
_ZH_VERBS = ["更喜欢", "决定采用", "询问了", "推迟了", "评审了", "希望迁移", "记录了", "回滚了"]
_ZH_OBJECTS = ["深色主题", "向量检索", "周五的发布", "数据库索引", "每周例会", "新的嵌入模型",
               "季度预算", "重试策略", "中文分词", "备份方案"]  # fmt: skip
_ZH_TAILS = ["因为延迟很重要", "在周二的事故之后", "为了演示", "直到下一个迭代", "按照设计文档",
             "以降低成本", "会议上没有异议"]  # fmt: skip


def _sentence(rng: random.Random) -> str:
    if rng.random() < 0.35:
        return (
            f"{rng.choice(_ZH_SUBJECTS)}{rng.choice(_ZH_VERBS)}{rng.choice(_ZH_OBJECTS)}，"
            f"{rng.choice(_ZH_TAILS)}。"
        )
    date = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    return (
        f"{rng.choice(_EN_SUBJECTS)} {rng.choice(_EN_VERBS)} {rng.choice(_EN_OBJECTS)} "
        f"{rng.choice(_EN_TAILS)} ({date})."
    )


def make_corpus(count_tokens: Callable[[str], int], n: int, seed: int = 20260401) -> list[str]:
    """Deterministic note-like chunks of 260-320 tokens (the indexer's ~290 on average)."""
    rng = random.Random(seed)
    chunks: list[str] = []
    for i in range(n):
        target = rng.randint(260, 320)
        text = f"## {rng.choice(['Decisions', 'Preferences', 'Meeting', '决定', '偏好', 'Notes'])} {i}\n"
        while True:
            candidate = text + ("- " if rng.random() < 0.3 else "") + _sentence(rng) + " "
            if count_tokens(candidate) > target:
                break
            text = candidate
        chunks.append(text.strip())
    return chunks


def flops_per_sequence(n: int, *, layers: int, hidden: int, ff: int) -> float:
    """Multiply-adds x2 of one BERT encoder pass over n tokens."""
    return layers * (2.0 * n * (4 * hidden * hidden + 2 * hidden * ff) + 4.0 * n * n * hidden)


_GEMM = r"""
import sys, time
import numpy as np
n = int(sys.argv[1])
rng = np.random.default_rng(0)
a = rng.standard_normal((n, n), dtype=np.float32)
b = rng.standard_normal((n, n), dtype=np.float32)
a @ b
best = min((lambda t: (a @ b, time.perf_counter() - t)[1])(time.perf_counter()) for _ in range(4))
print(2.0 * n ** 3 / best)
"""


def gemm_flops(threads: int, n: int = 2048) -> float:
    """float32 GEMM FLOP/s of numpy (OpenBLAS) on ``threads`` threads, in a child process."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))  # fmt: skip
    out = subprocess.run([sys.executable, "-c", _GEMM, str(n)], env=env, capture_output=True,
                         text=True, check=True)  # fmt: skip
    return float(out.stdout.strip())


class Engine:
    """One thing that embeds: a name, a call per group of chunks, its token count and work."""

    def __init__(self, name: str, embed: Callable[[Sequence[str]], np.ndarray], tokens: int,
                 flops: float) -> None:  # fmt: skip
        self.name = name
        self.embed = embed
        self.tokens = tokens
        self.flops = flops
        self.seconds: list[float] = []
        self.vectors: np.ndarray | None = None

    def run(self, texts: Sequence[str]) -> None:
        start = time.perf_counter()
        parts = [self.embed(texts[i : i + PER_CALL]) for i in range(0, len(texts), PER_CALL)]
        self.seconds.append(time.perf_counter() - start)
        self.vectors = np.concatenate(parts, axis=0)


def gguf_engine(name: str, path: Path, texts: Sequence[str], threads: int) -> tuple[Engine, Any]:
    emb = gguf_embedder.GgufEmbedder(path, n_threads=threads)
    info = emb.info
    layers, hidden = int(info.arch_key("block_count")), int(info.embedding_length)
    ff = int(info.arch_key("feed_forward_length"))
    lengths = [len(w) for t in texts for w in emb.token_windows(t)]
    flops = sum(flops_per_sequence(n, layers=layers, hidden=hidden, ff=ff) for n in lengths)
    return Engine(name, emb.embed_documents, sum(lengths), flops), emb


def st_engine(texts: Sequence[str], threads: int, tokens: int, flops: float) -> Engine | None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        print(f"sentence-transformers yardstick skipped (not importable: {exc})")
        return None
    try:
        model_dir = wheels.locate(wheels.MINILM_SOURCE)
    except MemdeskError as exc:
        print(f"sentence-transformers yardstick skipped: {exc}")
        return None
    torch.set_num_threads(threads)
    model = SentenceTransformer(str(model_dir), device="cpu")
    model.max_seq_length = 512  # its config truncates at 256; embed the same full texts

    def embed(group: Sequence[str]) -> np.ndarray:
        with torch.inference_mode():
            return np.asarray(model.encode(list(group), batch_size=PER_CALL, normalize_embeddings=True,
                                           convert_to_numpy=True, show_progress_bar=False))  # fmt: skip

    return Engine(f"minilm sentence-transformers {torch.__version__}", embed, tokens, flops)


_SWEEP_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from benchmarks import embed_throughput as et
from memdesk.core.embed import gguf_embedder
path, counter_path = sys.argv[2], sys.argv[3]
threads, batch, chunks, rounds = (int(v) for v in sys.argv[4:8])
counter = gguf_embedder.GgufEmbedder(counter_path, n_threads=threads)
texts = et.make_corpus(counter.count_tokens, chunks)
counter.close()
emb = gguf_embedder.GgufEmbedder(path, n_threads=threads, batch_tokens=batch)
info = emb.info
layers, hidden = int(info.arch_key("block_count")), int(info.embedding_length)
ff = int(info.arch_key("feed_forward_length"))
lengths = [len(w) for t in texts for w in emb.token_windows(t)]
flops = sum(et.flops_per_sequence(n, layers=layers, hidden=hidden, ff=ff) for n in lengths)
emb.embed_documents(texts[: et.PER_CALL])
seconds = []
for _ in range(rounds):
    start = time.perf_counter()
    for i in range(0, len(texts), et.PER_CALL):
        emb.embed_documents(texts[i : i + et.PER_CALL])
    seconds.append(time.perf_counter() - start)
emb.close()
print(json.dumps({"tokens": sum(lengths), "flops": flops, "seconds": seconds}))
"""


def sweep(paths_by_name: dict[str, Path], chunks: int, rounds: int) -> int:
    """``--sweep``: every (model, threads, wait policy, budget) in its own process."""
    repo = str(Path(__file__).resolve().parents[1])
    load = os.getloadavg()[0]
    ceilings = [gemm_flops(2)]
    rows = []
    for name, path in paths_by_name.items():
        for threads in (2, 1):
            for wait in ("PASSIVE", "ACTIVE"):
                for batch in (256, 512):
                    env = dict(os.environ, OMP_WAIT_POLICY=wait)
                    args = [repo, str(path), str(paths_by_name["minilm"]), str(threads), str(batch),
                            str(chunks), str(rounds)]  # fmt: skip
                    out = subprocess.run([sys.executable, "-c", _SWEEP_CHILD, *args], env=env,
                                         capture_output=True, text=True, check=True)  # fmt: skip
                    run = json.loads(out.stdout.strip().splitlines()[-1])
                    best = min(run["seconds"])
                    row = {"model": name, "threads": threads, "omp_wait_policy": wait, "batch_tokens": batch,
                           "tok_s_best": round(run["tokens"] / best),
                           "gflop_s_best": round(run["flops"] / best / 1e9, 1),
                           "share_of_ceiling_best": round(run["flops"] / best / max(ceilings), 3)}  # fmt: skip
                    rows.append(row)
                    print(json.dumps(row), flush=True)
            ceilings.append(gemm_flops(2))
    ceiling = max(ceilings)
    for row in rows:  # against the best ceiling of the whole sweep
        row["share_of_ceiling_best"] = round(row["gflop_s_best"] * 1e9 / ceiling, 3)
    print(json.dumps({"benchmark": "embed_throughput_sweep", "chunks": chunks, "per_call": PER_CALL,
                      "rounds": rounds, "load_average_1m_at_start": round(load, 2),
                      "load_average_1m_at_end": round(os.getloadavg()[0], 2),
                      "ceiling_gflop_s_2_threads": [round(c / 1e9, 1) for c in ceilings],
                      "runs": rows}, sort_keys=True))  # fmt: skip
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--chunks", type=int, default=48)
    parser.add_argument("--threads", type=int, default=gguf_embedder.physical_cores())
    parser.add_argument("--models-dir", type=Path, default=BENCH_MODELS,
                        help="where to build/find the GGUF files (default: .cache/bench-models)")  # fmt: skip
    parser.add_argument("--sweep", action="store_true",
                        help="time the GGUF engines under each thread count, wait policy and budget")  # fmt: skip
    args = parser.parse_args(argv)
    threads = args.threads
    paths_by_name: dict[str, Path] = {}
    for name in registry.MODEL_NAMES:
        try:
            paths_by_name[name] = registry.build_model(name, args.models_dir)
        except MemdeskError as exc:
            print(f"{name}: not built ({exc})")
    if "minilm" not in paths_by_name:
        print(json.dumps({"benchmark": "embed_throughput", "error": "MiniLM could not be built"}))
        return 1
    if args.sweep:
        return sweep(paths_by_name, args.chunks, args.rounds)

    load = os.getloadavg()[0]
    counter = gguf_embedder.GgufEmbedder(paths_by_name["minilm"], n_threads=threads)
    texts = make_corpus(counter.count_tokens, args.chunks)
    counter.close()
    engines: list[Engine] = []
    embedders: list[Any] = []
    for name in ("minilm", "e5-small"):
        if name in paths_by_name:
            engine, emb = gguf_engine(f"{name} memdesk GGUF", paths_by_name[name], texts, threads)
            engines.append(engine)
            embedders.append(emb)
    minilm = engines[0]
    st = st_engine(texts, threads, minilm.tokens, minilm.flops)
    if st is not None:
        engines.append(st)
    print(f"corpus: {len(texts)} chunks, {minilm.tokens} MiniLM tokens "
          f"({minilm.tokens / len(texts):.0f} per chunk), {PER_CALL} per call; {threads} threads; "
          f"load average {load:.1f}")  # fmt: skip

    for engine in engines:  # warm-up: page weights in, allocate buffers
        engine.embed(texts[:PER_CALL])
    ceilings: list[float] = []
    for _ in range(args.rounds):
        ceilings.append(gemm_flops(threads))
        for engine in engines:
            engine.run(texts)
    ceiling = max(ceilings)
    print(f"ceiling: numpy float32 GEMM on {threads} threads, best {ceiling / 1e9:.1f} GFLOP/s "
          f"(rounds: {', '.join(f'{c / 1e9:.0f}' for c in ceilings)})")  # fmt: skip

    results: dict[str, Any] = {}
    for engine in engines:
        best, median = min(engine.seconds), statistics.median(engine.seconds)
        figures = {
            "tok_s_best": round(engine.tokens / best),
            "tok_s_median": round(engine.tokens / median),
            "mflop_per_token": round(engine.flops / engine.tokens / 1e6, 2),
            "gflop_s_best": round(engine.flops / best / 1e9, 1),
            "share_of_ceiling_best": round(engine.flops / best / ceiling, 3),
            "share_of_ceiling_median": round(engine.flops / median / statistics.median(ceilings), 3),
        }
        results[engine.name] = figures
        print(f"{engine.name:<40} {figures['tok_s_best']:>6} tok/s best, {figures['tok_s_median']:>6} "
              f"median; {figures['gflop_s_best']:5.1f} GFLOP/s = {figures['share_of_ceiling_best']:.0%} "
              f"of the ceiling")  # fmt: skip
    summary: dict[str, Any] = {
        "benchmark": "embed_throughput", "threads": threads, "chunks": len(texts),
        "per_call": PER_CALL, "rounds": args.rounds, "load_average_1m_at_start": round(load, 2),
        "ceiling_gflop_s_best": round(ceiling / 1e9, 1),
        "ceiling_gflop_s_rounds": [round(c / 1e9, 1) for c in ceilings], "engines": results,
    }  # fmt: skip
    if st is not None and minilm.vectors is not None and st.vectors is not None:
        cosines = np.sum(st.vectors * minilm.vectors, axis=1)
        summary["minilm_ratio_gguf_over_st_best"] = round(min(st.seconds) / min(minilm.seconds), 3)
        summary["minilm_ratio_gguf_over_st_median"] = round(
            statistics.median(st.seconds) / statistics.median(minilm.seconds), 3
        )
        summary["minilm_cosine_gguf_vs_st_min"] = round(float(cosines.min()), 6)
        print(f"MiniLM GGUF / sentence-transformers: {summary['minilm_ratio_gguf_over_st_best']:.2f}x best, "
              f"{summary['minilm_ratio_gguf_over_st_median']:.2f}x median; min cosine {cosines.min():.6f}")  # fmt: skip
    for emb in embedders:
        emb.close()
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
