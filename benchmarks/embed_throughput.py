"""Embedding throughput: memdesk's GGUF models under llama.cpp vs sentence-transformers.

A fixed, deterministic corpus of ~200 bilingual memory-note chunks (50-300
MiniLM tokens each) is embedded by every GGUF model that can be built (MiniLM,
multilingual-e5-small) and, when torch + sentence-transformers are importable,
by the same MiniLM under sentence-transformers on CPU as a yardstick. Each
figure is the best of ``--repeats`` timed runs after a warm-up (best-of, since
other processes on a shared machine only ever make a run slower).

Tokens are counted with each model's own tokenizer, special tokens and prefixes
included; the MiniLM figures of both engines use the same count.

Usage: python benchmarks/embed_throughput.py [--models-dir DIR] [--repeats N] [--tune]
The last line of output is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memdesk.core.embed import gguf_embedder
from memdesk.core.embed.models import registry, wheels
from memdesk.core.errors import MemdeskError

N_CHUNKS = 200

_EN_SUBJECTS = [
    "The user",
    "Alice",
    "Bob",
    "The agent",
    "Our team",
    "The build",
    "The indexer",
    "My manager",
    "The customer",
    "The nightly job",
]
_EN_VERBS = [
    "prefers",
    "decided to use",
    "asked about",
    "reported a bug in",
    "postponed",
    "reviewed",
    "wants to migrate",
    "benchmarked",
    "documented",
    "rolled back",
]
_EN_OBJECTS = [
    "dark mode in the editor",
    "the SQLite index",
    "vector search with hybrid BM25",
    "the Friday release",
    "Python 3.11",
    "weekly status emails",
    "the GPU server",
    "OpenClaw memory files",
    "the quarterly budget",
    "a new embedding model",
    "Markdown front matter",
    "the retry policy",
    "coffee without sugar",
]
_EN_TAILS = [
    "because latency matters",
    "after the incident on Tuesday",
    "for the demo",
    "until the next sprint",
    "as discussed in the standup",
    "with no objections",
    "pending legal review",
    "to reduce cost",
    "per the design doc",
]
_ZH_SUBJECTS = ["用户", "我们团队", "产品经理", "张三", "李四", "客户", "运维同学", "这个代理"]
_ZH_VERBS = ["更喜欢", "决定采用", "询问了", "推迟了", "评审了", "希望迁移", "记录了", "回滚了"]
_ZH_OBJECTS = [
    "深色主题",
    "向量检索",
    "周五的发布",
    "数据库索引",
    "每周例会",
    "新的嵌入模型",
    "季度预算",
    "重试策略",
    "中文分词",
    "备份方案",
]
_ZH_TAILS = [
    "因为延迟很重要",
    "在周二的事故之后",
    "为了演示",
    "直到下一个迭代",
    "按照设计文档",
    "以降低成本",
    "会议上没有异议",
]


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


def make_corpus(count_tokens: Callable[[str], int], n: int = N_CHUNKS, seed: int = 20260401) -> list[str]:
    """Deterministic note-like chunks, each grown to a target of 50-300 tokens."""
    rng = random.Random(seed)
    chunks: list[str] = []
    for i in range(n):
        target = rng.randint(50, 300)
        heading = f"## {rng.choice(['Decisions', 'Preferences', 'Meeting', '决定', '偏好', 'Notes'])} {i}\n"
        text = heading
        while True:
            candidate = text + ("- " if rng.random() < 0.3 else "") + _sentence(rng) + " "
            if count_tokens(candidate) > target:
                break
            text = candidate
        chunks.append(text.strip())
    return chunks


def best_time(fn: Callable[[], Any], repeats: int) -> float:
    fn()  # warm-up: page in weights, allocate buffers
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_gguf(
    path: Path, texts: Sequence[str], repeats: int, **kwargs: Any
) -> tuple[float, int, np.ndarray]:
    emb = gguf_embedder.GgufEmbedder(path, **kwargs)
    try:
        tokens = sum(emb.count_tokens(t) for t in texts)
        vectors = emb.embed_documents(texts)
        seconds = best_time(lambda: emb.embed_documents(texts), repeats)
    finally:
        emb.close()
    return tokens / seconds, tokens, vectors


def bench_sentence_transformers(
    texts: Sequence[str], repeats: int, threads: int
) -> tuple[float, np.ndarray] | None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        print(f"sentence-transformers yardstick skipped: {exc}")
        return None
    torch.set_num_threads(threads)
    model_dir = wheels.locate(wheels.MINILM_SOURCE)
    model = SentenceTransformer(str(model_dir), device="cpu")
    # Its config truncates at 256; embed the same full texts as llama.cpp does.
    model.max_seq_length = 512

    def run() -> np.ndarray:
        with torch.inference_mode():
            return model.encode(
                list(texts),
                batch_size=32,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )

    vectors = run()
    seconds = best_time(run, repeats)
    return seconds, vectors


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models-dir",
        type=Path,
        default=None,
        help="where to build/find the GGUF files (default: a temp dir)",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--tune", action="store_true", help="also sweep batch_tokens and n_threads for MiniLM"
    )
    args = parser.parse_args(argv)

    tmp = None
    models_dir = args.models_dir
    if models_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="memdesk-bench-")
        models_dir = Path(tmp.name)
    threads = gguf_embedder.physical_cores()
    results: dict[str, Any] = {
        "threads": threads,
        "repeats": args.repeats,
        "batch_tokens": gguf_embedder.DEFAULT_BATCH_TOKENS,
    }

    paths: dict[str, Path] = {}
    for name in registry.MODEL_NAMES:
        try:
            paths[name] = registry.build_model(name, models_dir)
        except MemdeskError as exc:
            print(f"{name}: not built ({exc})")
    if "minilm" not in paths:
        print(json.dumps(results))
        return 1

    counter = gguf_embedder.GgufEmbedder(paths["minilm"])
    texts = make_corpus(counter.count_tokens)
    lengths = [counter.count_tokens(t) for t in texts]
    counter.close()
    results["corpus"] = {
        "chunks": len(texts),
        "minilm_tokens": int(sum(lengths)),
        "min_tokens": min(lengths),
        "max_tokens": max(lengths),
    }
    print(
        f"corpus: {len(texts)} chunks, {sum(lengths)} MiniLM tokens ({min(lengths)}-{max(lengths)} per chunk)"
    )

    rate, tokens, minilm_vectors = bench_gguf(paths["minilm"], texts, args.repeats)
    results["minilm_gguf_tok_s"] = round(rate)
    print(f"minilm   GGUF/llama.cpp: {rate:8.0f} tok/s  ({tokens} tokens)")

    if "e5-small" in paths:
        rate, tokens, _ = bench_gguf(paths["e5-small"], texts, args.repeats)
        results["e5_small_gguf_tok_s"] = round(rate)
        results["e5_small_tokens"] = tokens
        print(f"e5-small GGUF/llama.cpp: {rate:8.0f} tok/s  ({tokens} tokens)")

    if args.tune:
        tuning: dict[str, int] = {}
        for n_threads in sorted({1, threads}):
            for batch_tokens in (128, 256, 512, 1024):
                rate, _, _ = bench_gguf(
                    paths["minilm"], texts, args.repeats, n_threads=n_threads, batch_tokens=batch_tokens
                )
                tuning[f"threads={n_threads},batch={batch_tokens}"] = round(rate)
                print(f"  tune minilm threads={n_threads} batch_tokens={batch_tokens}: {rate:8.0f} tok/s")
        results["tuning_minilm_tok_s"] = tuning

    st = bench_sentence_transformers(texts, args.repeats, threads)
    if st is not None:
        seconds, st_vectors = st
        st_rate = sum(lengths) / seconds
        results["minilm_sentence_transformers_tok_s"] = round(st_rate)
        results["ratio_gguf_over_st"] = round(results["minilm_gguf_tok_s"] / st_rate, 3)
        cosines = np.sum(st_vectors * minilm_vectors, axis=1)
        results["cosine_gguf_vs_st_min"] = round(float(cosines.min()), 6)
        print(f"minilm   sentence-transformers (torch CPU): {st_rate:8.0f} tok/s")
        print(
            f"ratio GGUF / sentence-transformers: {results['ratio_gguf_over_st']:.2f}x; "
            f"min cosine between the two: {cosines.min():.6f}"
        )
    if tmp is not None:
        tmp.cleanup()
    print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
