"""Search latency on synthetic indexes of ~10k and ~100k chunks.

Chunks are random bilingual "notes" (Zipf-distributed vocabulary, some Chinese)
with random 384-dim unit vectors, written straight into a real index (apsw +
FTS5 + sqlite-vec) through ``Store.insert_chunk``. It times the keyword leg, the
vector leg and a whole hybrid search (fetch + rank) excluding query embedding
under the memdesk profile, and reports the index size per chunk. (The OpenClaw
profiles search indexes of their own, built from the workspace's files as OpenClaw
builds them; this corpus exists only in memdesk's index, so they are not timed here.)

Targets: memdesk hybrid p95 <= 15 ms at 10k chunks and <= 50 ms at 100k, and the
memdesk keyword leg's p95 <= 20 ms at 100k; each is printed with pass/fail.

Usage: python benchmarks/search_latency.py [--sizes 10000,100000] [--queries 200] [--cache DIR]
``--cache DIR`` keeps the built indexes there and reuses them on the next run (the
corpus is deterministic; the file name carries the schema and corpus versions).
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
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memdesk.core import engine
from memdesk.core.base import lexical
from memdesk.core.embed.embedder import EmbedderIdentity
from memdesk.core.index import indexer
from memdesk.core.index import store as store_mod
from memdesk.core.index.store import Store
from memdesk.core.search.settings import SearchSettings

DIMS = 384
EN = (
    "memory vector search index decision deploy auth oauth token sqlite postgres team release "
    "meeting agent note workspace weekly plan bug fix latency cache embed model query user data "
    "migration schema review design api server client test build ship metric alert budget"
).split()
ZH = list("向量检索数据库迁移部署流程周会纪要鉴权方案模型索引缓存发布测试用户团队决定")


class RandomEmbedder:
    """Random unit vectors; only query embedding is called, and it is excluded from timing."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.identity = EmbedderIdentity(provider="bench", model="random-384", dims=DIMS)
        self.dims = DIMS
        self.max_input_tokens = 512

    def count_tokens(self, text: str) -> int:
        return len(text) // 4

    def embed_query(self, text: str) -> np.ndarray:
        v = self.rng.standard_normal(DIMS).astype(np.float32)
        return v / np.linalg.norm(v)

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        return np.stack([self.embed_query(t) for t in texts])


def _vocabulary(size: int = 20000, seed: int = 5) -> list[str]:
    """Core words first (most frequent), then pseudo-words: a Zipf-shaped vocabulary."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnoprstuvwy"
    extra = {"".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(size)}
    return EN + sorted(extra)


VOCAB = _vocabulary()


def _zh_vocabulary(size: int = 8000, seed: int = 6) -> list[str]:
    """Chinese-like words: 2-4 characters from ~2,500 Han characters, common words first."""
    rng = random.Random(seed)
    chars = ZH + [chr(0x4E00 + rng.randrange(0x5000)) for _ in range(2500)]
    return ["".join(rng.choice(chars) for _ in range(rng.randint(2, 4))) for _ in range(size)]


ZH_VOCAB = _zh_vocabulary()


def _zipf_rank(rng: random.Random, size: int, s: float = 1.1) -> int:
    """A Zipf(s) rank in [0, size): natural language's word-frequency law (p(1) ~ 10%)."""
    while True:
        # Inverse-transform sampling of the continuous Pareto, floored: a close,
        # dependency-free stand-in for numpy.random.zipf that a seeded Random drives.
        rank = int(rng.paretovariate(s - 1.0)) - 1
        if rank < size:
            return rank


def _text(rng: random.Random) -> str:
    words = [
        VOCAB[_zipf_rank(rng, len(VOCAB))]
        if rng.random() < 0.85
        else ZH_VOCAB[_zipf_rank(rng, len(ZH_VOCAB))]
        for _ in range(rng.randint(60, 220))
    ]
    return " ".join(words)


def _query(rng: random.Random) -> str:
    """1-4 words like a person types: mostly content words (frequency ranks 40-5,000),
    sometimes a very common one; 30% of queries are Chinese."""
    if rng.random() < 0.3:
        return "".join(ZH_VOCAB[rng.randrange(20, 3000)] for _ in range(rng.randint(1, 2)))
    words = [
        VOCAB[rng.randrange(40, 5000)] if rng.random() < 0.8 else VOCAB[_zipf_rank(rng, len(VOCAB))]
        for _ in range(rng.randint(1, 4))
    ]
    return " ".join(words)


# Bump when the generated corpus changes, so cached indexes of the old one are not reused.
CORPUS_VERSION = 1
# (size, figure) -> target in ms: the figure's p95 must not exceed it.
TARGETS = {
    ("10000", "memdesk_hybrid_p95_ms"): 15.0,
    ("100000", "memdesk_hybrid_p95_ms"): 50.0,
    ("100000", "memdesk_keyword_p95_ms"): 20.0,
}


def build(db: Path, n_chunks: int, seed: int = 1) -> tuple[Store, RandomEmbedder]:
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    store = Store(db)
    emb = RandomEmbedder(seed)
    ident = emb.identity
    store.set_meta(
        {
            "provider": ident.provider,
            "model": ident.model,
            "provider_key": ident.provider_key,
            "dims": DIMS,
            "chunk_tokens": 400,
            "chunk_overlap": 80,
            "fts_seg_tokenizer": "cjk-bigram+porter",
        }
    )
    per_file = 4
    batch = 2000
    for start in range(0, n_chunks, batch):
        vecs = nprng.standard_normal((min(batch, n_chunks - start), DIMS)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        with store.transaction():
            # The indexer always fills the embedding cache too; so does this build.
            store.put_embeddings(
                ident.provider,
                ident.model,
                ident.provider_key,
                {f"h{start + i}": vec for i, vec in enumerate(vecs)},
            )
            for i, vec in enumerate(vecs):
                k = start + i
                rel = f"memory/2026-{1 + (k // per_file) % 12:02d}-{1 + (k // per_file) % 28:02d}-n{k // per_file}.md"
                text = _text(rng)
                store.insert_chunk(
                    chunk_id=f"c{k}",
                    path=rel,
                    source="memory",
                    start_line=1 + (k % per_file) * 20,
                    end_line=20 + (k % per_file) * 20,
                    hash=f"h{k}",
                    model=ident.model,
                    text=text,
                    segmented=lexical.segment_for_index(text),
                    embedding=vec,
                    shared=True,
                    mmr_tokens=indexer.stored_mmr_tokens(store, text),
                )
                if k % per_file == 0:
                    store.upsert_file(rel, hash=f"f{k}", mtime=0, size=0)
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return store, emb


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def measure(n_chunks: int, n_queries: int, workdir: Path, cache: Path | None) -> dict[str, float]:
    name = f"bench-{n_chunks}-s{store_mod.SCHEMA_VERSION}-c{CORPUS_VERSION}.sqlite"
    db = (cache or workdir) / name
    build_s = 0.0
    if db.exists():
        store, emb = Store(db), RandomEmbedder(1)
    else:
        db.parent.mkdir(parents=True, exist_ok=True)
        partial = db.with_suffix(".partial")
        store_mod.remove_index_files(partial)
        t0 = time.perf_counter()
        store, emb = build(partial, n_chunks)
        build_s = time.perf_counter() - t0
        store.close()
        partial.rename(db)  # only a finished build is ever reused
        store = Store(db)
    size = store.size_bytes()
    store.close()
    ws = workdir / f"ws-{n_chunks}"
    ws.mkdir(exist_ok=True)
    eng = engine.Engine(ws, embedder=emb, db_path=db)  # type: ignore[arg-type]
    rng = random.Random(7)
    queries = [_query(rng) for _ in range(n_queries)]
    out: dict[str, float] = {
        "chunks": n_chunks,
        "build_seconds": round(build_s, 1),  # 0: reused from --cache
        "index_bytes_per_chunk": round(size / n_chunks, 1),
    }
    for profile in ("memdesk",):
        settings = SearchSettings.defaults(profile)  # type: ignore[arg-type]
        kw, vec, total = [], [], []
        for q in queries[:5]:
            eng.search(q, settings)  # warm caches
        for q in queries:
            t = time.perf_counter()
            result = eng.search(q, settings)
            elapsed = (time.perf_counter() - t) * 1000 - result.pool.timings_ms.get("embed_ms", 0.0)
            kw.append(result.pool.timings_ms.get("keyword_ms", 0.0))
            vec.append(result.pool.timings_ms.get("vector_ms", 0.0))
            total.append(elapsed)
        for name, values in (("keyword", kw), ("vector", vec), ("hybrid", total)):
            out[f"{profile}_{name}_p50_ms"] = round(pct(values, 50), 2)
            out[f"{profile}_{name}_p95_ms"] = round(pct(values, 95), 2)
    eng.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--cache", type=Path, default=None, help="keep and reuse built indexes here")
    args = parser.parse_args()
    os.environ.setdefault("MEMDESK_HOME", tempfile.mkdtemp(prefix="memdesk-bench-"))
    results = {}
    with tempfile.TemporaryDirectory(prefix="memdesk-latency-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            figures = measure(size, args.queries, Path(tmp), args.cache)
            print(f"{size} chunks: " + ", ".join(f"{k}={v}" for k, v in figures.items()), flush=True)
            results[str(size)] = figures
    targets = []
    for (size_key, figure), limit in TARGETS.items():
        if size_key in results:
            value = results[size_key][figure]
            verdict = "pass" if value <= limit else "FAIL"
            print(f"target {figure} at {size_key} chunks <= {limit:g} ms: {value} ms, {verdict}")
            targets.append(
                {"chunks": int(size_key), "figure": figure, "target_ms": limit, "value_ms": value,
                 "pass": value <= limit}
            )  # fmt: skip
    summary = {
        "benchmark": "search_latency",
        "results": results,
        "targets": targets,
        "meets_targets": all(t["pass"] for t in targets),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
