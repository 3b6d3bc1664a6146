"""Retrieval-quality evaluation: BEIR datasets and a user's own golden queries.

Metrics follow trec_eval with binary gains: nDCG@10, Recall@10, Recall@100 and
MRR@10. A document counts as retrieved at its best-ranked chunk. Evaluation
measures ranking, not the cut-off: it asks for 100 results at min score 0.

The metric functions are pure and work on cached candidate pools too, which is
what the app's live quality readout and auto-tune use.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import logging
import math
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from memdesk.core import errors, paths, ranking, workspace
from memdesk.core.hits import CandidatePool, Hit, Mode
from memdesk.core.settings import SearchSettings

log = logging.getLogger(__name__)

MODES: dict[str, tuple[Mode, bool]] = {  # name -> (engine mode, MMR on)
    "fts": ("fts", False),
    "vector": ("vector", False),
    "hybrid": ("hybrid", False),
    "hybrid+mmr": ("hybrid", True),
}
EVAL_MAX_RESULTS = 100


# -- metrics ---------------------------------------------------------------------------
def dedupe(ranked: Iterable[str]) -> list[str]:
    """Keep each document at its best (first) rank."""
    seen: set[str] = set()
    return [d for d in ranked if not (d in seen or seen.add(d))]  # type: ignore[func-returns-value]


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal if ideal > 0 else 0.0


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    return len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0


def mrr_at(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    for i, d in enumerate(ranked[:k]):
        if d in relevant:
            return 1.0 / (i + 1)
    return 0.0


@dataclasses.dataclass(frozen=True)
class Scores:
    ndcg10: float
    recall10: float
    recall100: float
    mrr10: float

    @staticmethod
    def mean(per_query: Sequence[Scores]) -> Scores:
        if not per_query:
            return Scores(0.0, 0.0, 0.0, 0.0)
        return Scores(*(statistics.fmean(getattr(s, f.name) for s in per_query)
                        for f in dataclasses.fields(Scores)))


def score_ranking(ranked_docs: Sequence[str], relevant: set[str]) -> Scores:
    docs = dedupe(ranked_docs)
    return Scores(ndcg_at(docs, relevant, 10), recall_at(docs, relevant, 10),
                  recall_at(docs, relevant, 100), mrr_at(docs, relevant, 10))


# -- golden sets (a user's own labels) -----------------------------------------------------
_RANGE = re.compile(r"^(?P<path>.+?)(?:#L(?P<start>\d+)(?:-L?(?P<end>\d+))?)?$")


@dataclasses.dataclass(frozen=True)
class Relevant:
    """A labelled relevant item: a whole file, or a line range of it."""

    path: str
    start: int | None = None
    end: int | None = None

    @classmethod
    def parse(cls, text: str) -> Relevant:
        match = _RANGE.match(text.strip())
        if not match:
            raise errors.EvalError(f"cannot read relevant item {text!r}")
        start = int(match["start"]) if match["start"] else None
        end = int(match["end"]) if match["end"] else start
        return cls(match["path"].removeprefix("./"), start, end)

    def label(self) -> str:
        if self.start is None:
            return self.path
        return f"{self.path}#L{self.start}-L{self.end}"

    def matches(self, hit: Hit) -> bool:
        if hit.path != self.path:
            return False
        if self.start is None or self.end is None:
            return True
        return hit.start_line <= self.end and hit.end_line >= self.start


@dataclasses.dataclass(frozen=True)
class GoldenQuery:
    query: str
    relevant: tuple[Relevant, ...]


def load_golden(path: Path) -> list[GoldenQuery]:
    """JSON lines ``{"query": ..., "relevant": ["memory/x.md", "MEMORY.md#L10-L20"]}``."""
    out: list[GoldenQuery] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise errors.EvalError(f"{path}: cannot read golden file ({exc})") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            query = str(obj["query"])
            rel = tuple(Relevant.parse(str(r)) for r in obj["relevant"])
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise errors.EvalError(f"{path}:{number}: expected "
                                   '{"query": ..., "relevant": [...]} ({exc})') from None
        out.append(GoldenQuery(query, rel))
    return out


def save_golden(path: Path, queries: Sequence[GoldenQuery]) -> None:
    text = "".join(json.dumps({"query": q.query, "relevant": [r.label() for r in q.relevant]},
                              ensure_ascii=False) + "\n" for q in queries)
    workspace.write_note_atomic(path, text)


def hit_labels(hits: Sequence[Hit], relevant: Sequence[Relevant]) -> list[str]:
    """Each hit as the label of the relevant item it matches, else its chunk id."""
    out = []
    for hit in hits:
        label = next((r.label() for r in relevant if r.matches(hit)), None)
        out.append(label if label is not None else "chunk:" + hit.chunk_id)
    return out


def score_golden(pools: Mapping[str, CandidatePool], golden: Sequence[GoldenQuery],
                 settings: SearchSettings, *, now: Any = None) -> Scores:
    """Mean scores of the golden set, re-ranking cached pools only (no I/O)."""
    per_query = []
    for item in golden:
        pool = pools.get(item.query)
        if pool is None:
            continue
        hits = ranking.rank(pool, settings, now=now)
        labels = hit_labels(hits, item.relevant)
        per_query.append(score_ranking(labels, {r.label() for r in item.relevant}))
    return Scores.mean(per_query)


@dataclasses.dataclass(frozen=True)
class TuneResult:
    before: Scores
    after: Scores
    settings: SearchSettings
    tried: int


def auto_tune(pools: Mapping[str, CandidatePool], golden: Sequence[GoldenQuery],
              settings: SearchSettings, *, now: Any = None,
              cancelled: Callable[[], bool] | None = None,
              progress: Callable[[int, int], None] | None = None) -> TuneResult:
    """Grid search of vector weight × MMR lambda × half-life for the best mean nDCG@10.

    Re-ranks cached pools only, so a few hundred settings take seconds. Ties keep
    the current settings (no change without a measured gain).
    """
    before = score_golden(pools, golden, settings, now=now)
    weights = [round(0.1 * i, 2) for i in range(11)]
    lambdas = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0] if settings.mmr else [settings.mmr_lambda]
    half_lives = [7, 14, 30, 60, 90, 180, 365] if settings.decay else [settings.half_life_days]
    grid = list(itertools.product(weights, lambdas, half_lives))
    best, best_scores = settings, before
    for n, (w, lam, hl) in enumerate(grid, 1):
        if cancelled is not None and cancelled():
            raise errors.Cancelled("auto-tune cancelled")
        trial = settings.replace(vector_weight=w, text_weight=round(1 - w, 2), mmr_lambda=lam,
                                 half_life_days=hl)
        scores = score_golden(pools, golden, trial, now=now)
        if scores.ndcg10 > best_scores.ndcg10 + 1e-12:
            best, best_scores = trial, scores
        if progress is not None:
            progress(n, len(grid))
    return TuneResult(before, best_scores, best, len(grid))


# -- BEIR datasets ------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Dataset:
    name: str
    corpus: dict[str, tuple[str, str]]  # doc id -> (title, text)
    queries: dict[str, str]
    qrels: dict[str, set[str]]  # query id -> relevant doc ids (score > 0)
    corpus_sha256: str


def load_beir(folder: Path, split: str = "dev") -> Dataset:
    folder = Path(folder)
    if "holdout" in split and not _holdout_allowed():
        raise errors.EvalError("the holdout split is for final measurement only; "
                               "set MEMDESK_ALLOW_HOLDOUT=1 to run it deliberately")
    needed = [folder / "corpus.jsonl", folder / "queries.jsonl", folder / "qrels" / f"{split}.tsv"]
    for path in needed:
        if not path.is_file():
            raise errors.EvalError(f"{path}: missing (BEIR layout: corpus.jsonl, queries.jsonl, "
                                   f"qrels/{split}.tsv)")
    digest = hashlib.sha256()
    corpus: dict[str, tuple[str, str]] = {}
    with needed[0].open("rb") as handle:
        for raw in handle:
            digest.update(raw)
            if raw.strip():
                obj = json.loads(raw)
                corpus[str(obj["_id"])] = (str(obj.get("title") or ""), str(obj.get("text") or ""))
    queries = {}
    for line in needed[1].read_text(encoding="utf-8").splitlines():
        if line.strip():
            obj = json.loads(line)
            queries[str(obj["_id"])] = str(obj["text"])
    qrels: dict[str, set[str]] = {}
    for n, line in enumerate(needed[2].read_text(encoding="utf-8").splitlines()):
        parts = line.split("\t")
        if n == 0 and parts[0] == "query-id" or len(parts) < 3:
            continue
        if float(parts[2]) > 0:
            qrels.setdefault(parts[0], set()).add(parts[1])
    qrels = {q: docs for q, docs in qrels.items() if q in queries}
    return Dataset(folder.name, corpus, queries, qrels, digest.hexdigest())


def _holdout_allowed() -> bool:
    import os

    return os.environ.get("MEMDESK_ALLOW_HOLDOUT") == "1"


def doc_note_path(doc_id: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", doc_id)
    if safe != doc_id or len(safe) > 80:
        safe = safe[:40] + "-" + hashlib.sha1(doc_id.encode()).hexdigest()[:12]
    return f"memory/doc-{safe}.md"


def import_corpus(dataset: Dataset, root: Path) -> dict[str, str]:
    """Write one note per document (title as heading) and return note path -> doc id.

    Idempotent: a marker holding the corpus hash skips the work on later runs.
    """
    marker = root / ".memdesk" / "corpus.json"
    mapping = {doc_note_path(d): d for d in dataset.corpus}
    if marker.is_file():
        try:
            if json.loads(marker.read_text())["sha256"] == dataset.corpus_sha256:
                return mapping
        except (ValueError, KeyError):
            pass
    (root / "memory").mkdir(parents=True, exist_ok=True)
    for rel, doc_id in mapping.items():
        title, text = dataset.corpus[doc_id]
        body = (f"# {title.strip()}\n\n" if title.strip() else "") + text.strip() + "\n"
        (root / rel).write_text(body, encoding="utf-8")
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps({"sha256": dataset.corpus_sha256, "docs": len(mapping)}))
    return mapping


@dataclasses.dataclass(frozen=True)
class ModeResult:
    profile: str
    mode: str
    scores: Scores
    latency_p50: float
    latency_p95: float

    def to_json(self) -> dict[str, Any]:
        return {"profile": self.profile, "mode": self.mode,
                "ndcg@10": round(self.scores.ndcg10, 4), "recall@10": round(self.scores.recall10, 4),
                "recall@100": round(self.scores.recall100, 4), "mrr@10": round(self.scores.mrr10, 4),
                "latency_ms_p50": round(self.latency_p50, 2),
                "latency_ms_p95": round(self.latency_p95, 2)}


def _percentile(values: Sequence[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def eval_settings(profile: str, *, mmr: bool) -> SearchSettings:
    """A profile's defaults, asking for 100 results at min score 0, MMR as the mode says."""
    base = SearchSettings.defaults(profile)  # type: ignore[arg-type]
    return base.replace(max_results=EVAL_MAX_RESULTS, min_score=0.0, mmr=mmr)


def evaluate_engine(eng: Any, queries: Mapping[str, str], qrels: Mapping[str, set[str]],
                    doc_of: Callable[[str, Hit], str], *, profiles: Sequence[str], modes: Sequence[str],
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
            result = ModeResult(profile, mode_name, Scores.mean(per_query),
                                _percentile(latencies, 50), _percentile(latencies, 95))
            if progress is not None:
                progress(f"{profile:<8} {mode_name:<10} nDCG@10 {result.scores.ndcg10:.4f}")
            results.append(result)
    return results


def evaluate_dataset(folder: Path, *, split: str = "dev", profiles: Sequence[str] = ("memdesk", "openclaw"),
                     modes: Sequence[str] = tuple(MODES), model: Any = "auto", limit: int | None = None,
                     progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    from memdesk.core import engine

    dataset = load_beir(folder, split)
    root = paths.data_dir() / "eval" / f"{dataset.name}-{dataset.corpus_sha256[:12]}"
    mapping = import_corpus(dataset, root)
    eng = engine.Engine.open(root, model=model)
    try:
        if eng.fallback_reason and any(MODES[m][0] != "fts" for m in modes):
            if progress is not None:
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
        results = evaluate_engine(eng, queries, dataset.qrels, lambda _q, h: mapping.get(h.path, h.path),
                                  profiles=profiles, modes=modes, progress=progress)
        ident = eng.embedder.identity.model if eng.embedder else None
    finally:
        eng.close()
    return {"dataset": dataset.name, "split": split, "queries": len(queries),
            "index_seconds": round(index_seconds, 2), "model": ident,
            "results": [r.to_json() for r in results]}


def evaluate_golden(root: Path, golden_file: Path, *, profiles: Sequence[str] = ("memdesk", "openclaw"),
                    modes: Sequence[str] = tuple(MODES), model: Any = "auto",
                    progress: Callable[[str], None] | None = None) -> dict[str, Any]:
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

        results = evaluate_engine(eng, queries, labels, doc_of, profiles=profiles, modes=modes,
                                  progress=progress)
    finally:
        eng.close()
    return {"dataset": str(golden_file), "split": "golden", "queries": len(golden),
            "index_seconds": round(index_seconds, 2),
            "results": [r.to_json() for r in results]}


def format_table(report: Mapping[str, Any]) -> str:
    lines = [f"{report['dataset']} ({report['split']}, {report['queries']} queries, "
             f"indexed in {report['index_seconds']}s)",
             f"{'profile':<9} {'mode':<11} {'nDCG@10':>8} {'R@10':>7} {'R@100':>7} {'MRR@10':>7} "
             f"{'p50 ms':>7} {'p95 ms':>7}"]
    for r in report["results"]:
        lines.append(f"{r['profile']:<9} {r['mode']:<11} {r['ndcg@10']:>8.4f} {r['recall@10']:>7.4f} "
                     f"{r['recall@100']:>7.4f} {r['mrr@10']:>7.4f} {r['latency_ms_p50']:>7.1f} "
                     f"{r['latency_ms_p95']:>7.1f}")
    return "\n".join(lines)


def run_cli(args: Any) -> int:
    """``memdesk eval``: see the CLI help."""
    profiles = ["memdesk", "openclaw"] if args.profile == "both" else [args.profile]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for m in modes:
        if m not in MODES:
            raise errors.EvalError(f"unknown mode {m!r} (one of {', '.join(MODES)})")
    model: Any = Path(args.model) if args.model else "auto"
    if args.model and args.model.lower() == "none":
        model = None

    def progress(msg: str) -> None:
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()

    if args.golden:
        if not args.workspace:
            raise errors.EvalError("--golden needs --workspace DIR")
        report = evaluate_golden(Path(args.workspace).expanduser(), Path(args.golden),
                                 profiles=profiles, modes=modes, model=model, progress=progress)
    elif args.dataset:
        report = evaluate_dataset(Path(args.dataset), split=args.split, profiles=profiles,
                                  modes=modes, model=model, limit=args.limit, progress=progress)
    else:
        raise errors.EvalError("give --dataset DIR (BEIR layout) or --workspace DIR --golden FILE")
    if args.json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(format_table(report) + "\n")
    return 0
