"""Evaluation runs: every query of a BEIR dataset or golden file under each profile × mode.

Metrics follow trec_eval with binary gains (see :mod:`memdesk.core.eval.metrics`).
Evaluation measures ranking, not the cut-off: it asks for 100 results at min score 0.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from memdesk.core import errors, paths
from memdesk.core.eval.datasets import import_corpus, load_beir
from memdesk.core.eval.golden import load_golden
from memdesk.core.eval.metrics import Scores, score_ranking
from memdesk.core.search import ranking
from memdesk.core.search.hits import Hit, Mode
from memdesk.core.search.settings import SearchSettings

log = logging.getLogger(__name__)

MODES: dict[str, tuple[Mode, bool]] = {  # name -> (engine mode, MMR on)
    "fts": ("fts", False),
    "vector": ("vector", False),
    "hybrid": ("hybrid", False),
    "hybrid+mmr": ("hybrid", True),
}
EVAL_MAX_RESULTS = 100


@dataclasses.dataclass(frozen=True)
class ModeResult:
    profile: str
    mode: str
    scores: Scores
    latency_p50: float
    latency_p95: float

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "mode": self.mode,
            "ndcg@10": round(self.scores.ndcg10, 4),
            "recall@10": round(self.scores.recall10, 4),
            "recall@100": round(self.scores.recall100, 4),
            "mrr@10": round(self.scores.mrr10, 4),
            "latency_ms_p50": round(self.latency_p50, 2),
            "latency_ms_p95": round(self.latency_p95, 2),
        }


def _percentile(values: Sequence[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def eval_settings(profile: str, *, mmr: bool) -> SearchSettings:
    """A profile's defaults, asking for 100 results at min score 0, MMR as the mode says."""
    base = SearchSettings.defaults(profile)  # type: ignore[arg-type]
    return base.replace(max_results=EVAL_MAX_RESULTS, min_score=0.0, mmr=mmr)


def evaluate_engine(
    eng: Any,
    queries: Mapping[str, str],
    qrels: Mapping[str, set[str]],
    doc_of: Callable[[str, Hit], str],
    *,
    profiles: Sequence[str],
    modes: Sequence[str],
    progress: Callable[[str], None] | None = None,
    settings_for: Callable[[str, bool], SearchSettings] = lambda p, m: eval_settings(p, mmr=m),
) -> list[ModeResult]:
    """Run every query under each profile × mode; one fetch serves hybrid and hybrid+mmr."""
    results: list[ModeResult] = []
    ids = [q for q in queries if q in qrels]
    for profile in profiles:
        for mode_name in modes:
            if mode_name not in MODES:
                raise errors.EvalError(f"unknown mode {mode_name!r} (one of {', '.join(MODES)})")
            engine_mode, mmr = MODES[mode_name]
            if engine_mode != "fts" and eng.embedder is None:
                log.warning("skipping %s/%s: no embedding model", profile, mode_name)
                continue
            settings = settings_for(profile, mmr)
            per_query: list[Scores] = []
            latencies: list[float] = []
            for qid in ids:
                t0 = time.perf_counter()
                pool = eng.fetch_candidates(queries[qid], settings, mode=engine_mode)
                hits = ranking.rank(pool, settings)
                latencies.append((time.perf_counter() - t0) * 1000)
                per_query.append(score_ranking([doc_of(qid, h) for h in hits], qrels[qid]))
            result = ModeResult(
                profile,
                mode_name,
                Scores.mean(per_query),
                _percentile(latencies, 50),
                _percentile(latencies, 95),
            )
            if progress is not None:
                progress(f"{profile:<8} {mode_name:<10} nDCG@10 {result.scores.ndcg10:.4f}")
            results.append(result)
    return results


def evaluate_dataset(
    folder: Path,
    *,
    split: str = "dev",
    profiles: Sequence[str] = ("memdesk", "openclaw"),
    modes: Sequence[str] = tuple(MODES),
    model: Any = "auto",
    limit: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    from memdesk.core import engine

    dataset = load_beir(folder, split)
    root = paths.data_dir() / "eval" / f"{dataset.name}-{dataset.corpus_sha256[:12]}"
    mapping = import_corpus(dataset, root)
    eng = engine.Engine.open(root, model=model)
    try:
        if eng.fallback_reason and any(MODES[m][0] != "fts" for m in modes) and progress is not None:
            progress(f"warning: {eng.fallback_reason}; only the fts mode can run")
        t0 = time.perf_counter()

        def report(p: Any) -> None:
            if progress is not None and p.files_done % 500 == 0 and p.phase == "index":
                progress(f"indexing {p.files_done}/{p.files_total}")

        eng.sync(progress=report)
        index_seconds = time.perf_counter() - t0
        queries = {q: t for q, t in dataset.queries.items() if q in dataset.qrels}
        if limit:
            queries = dict(list(queries.items())[:limit])
        results = evaluate_engine(
            eng,
            queries,
            dataset.qrels,
            lambda _q, h: mapping.get(h.path, h.path),
            profiles=profiles,
            modes=modes,
            progress=progress,
        )
        ident = eng.embedder.identity.model if eng.embedder else None
    finally:
        eng.close()
    return {
        "dataset": dataset.name,
        "split": split,
        "queries": len(queries),
        "index_seconds": round(index_seconds, 2),
        "model": ident,
        "results": [r.to_json() for r in results],
    }


def evaluate_golden(
    root: Path,
    golden_file: Path,
    *,
    profiles: Sequence[str] = ("memdesk", "openclaw"),
    modes: Sequence[str] = tuple(MODES),
    model: Any = "auto",
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    from memdesk.core import engine

    golden = load_golden(golden_file)
    eng = engine.Engine.open(root, model=model)
    try:
        t0 = time.perf_counter()
        eng.sync()
        index_seconds = time.perf_counter() - t0
        queries = {str(i): g.query for i, g in enumerate(golden)}
        relevant = {str(i): g.relevant for i, g in enumerate(golden)}
        labels = {str(i): {r.label() for r in g.relevant} for i, g in enumerate(golden)}

        def doc_of(qid: str, hit: Hit) -> str:
            # Golden items may be line ranges: a hit counts as the item it overlaps.
            return next((r.label() for r in relevant[qid] if r.matches(hit)), "chunk:" + hit.chunk_id)

        results = evaluate_engine(
            eng, queries, labels, doc_of, profiles=profiles, modes=modes, progress=progress
        )
    finally:
        eng.close()
    return {
        "dataset": str(golden_file),
        "split": "golden",
        "queries": len(golden),
        "index_seconds": round(index_seconds, 2),
        "results": [r.to_json() for r in results],
    }
