"""Evaluation runs: every query of a BEIR dataset or golden file under each profile × mode.

Metrics follow trec_eval with binary gains (see :mod:`memdesk.core.eval.metrics`).
Evaluation measures ranking, not the cut-off: it asks for 100 results at min score 0.
Ranking settings can be overridden (the flags of ``memdesk search``); a golden
query's own ``now`` is its clock, and its category splits the scores (``by_category``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from memdesk.core import errors, paths
from memdesk.core.eval.datasets import import_corpus, load_beir
from memdesk.core.eval.golden import load_golden, score_hits
from memdesk.core.eval.metrics import Scores, score_ranking, scores_json
from memdesk.core.search import ranking
from memdesk.core.search import settings as settings_mod
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
# What an evaluation compares by default: memdesk against the OpenClaw release its
# published figures were measured with.
EVAL_PROFILES = (settings_mod.MEMDESK, settings_mod.OPENCLAW_2026_4)


SettingsFor = Callable[[str, bool], SearchSettings]  # (profile, MMR on) -> settings
Judge = Callable[[str, Sequence[Hit]], Scores]  # (query id, ranked hits) -> that query's scores
# Which clock a query without ``--now`` runs at: its golden line's own ``now`` if it has
# one, else the workspace's ("query"); always the workspace's ("workspace"); or the
# wall clock ("wall").
Clock = Literal["query", "workspace", "wall"]


@dataclasses.dataclass(frozen=True)
class ModeResult:
    profile: str
    mode: str
    scores: Scores
    latency_p50: float
    latency_p95: float
    # category name -> (queries, mean scores); empty when no query has a category
    by_category: Mapping[str, tuple[int, Scores]] = dataclasses.field(default_factory=dict)
    per_query: Mapping[str, Scores] = dataclasses.field(default_factory=dict, repr=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"profile": self.profile, "mode": self.mode, **scores_json(self.scores)}
        out |= {
            "latency_ms_p50": round(self.latency_p50, 2),
            "latency_ms_p95": round(self.latency_p95, 2),
        }
        if self.by_category:
            out["by_category"] = {
                name: {"queries": n, **scores_json(scores)} for name, (n, scores) in self.by_category.items()
            }
        return out


def _percentile(values: Sequence[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def eval_settings(profile: str, *, mmr: bool) -> SearchSettings:
    """A profile's defaults, asking for 100 results at min score 0, MMR as the mode says."""
    base = SearchSettings.defaults(profile)
    return base.replace(max_results=EVAL_MAX_RESULTS, min_score=0.0, mmr=mmr)


def settings_with(overrides: Mapping[str, Any]) -> SettingsFor:
    """``eval_settings`` with ranking overrides (weights, decay, half-life, MMR, lambda...).

    An ``mmr`` override wins over the mode's own MMR switch; the cut-off stays at
    100 results and min score 0 unless overridden too.
    """

    def settings_for(profile: str, mmr: bool) -> SearchSettings:
        return eval_settings(profile, mmr=mmr).replace(**overrides)

    return settings_for


def needs_embedder(modes: Sequence[str]) -> bool:
    return any(MODES[m][0] != "fts" for m in modes if m in MODES)


def _resolve_model(model: Any, modes: Sequence[str]) -> Any:
    # "auto" means the default model *if a mode needs one*: a keyword-only evaluation
    # must not embed the whole corpus first.
    return None if isinstance(model, str) and model == "auto" and not needs_embedder(modes) else model


def _open_engine(root: Path, model: Any, modes: Sequence[str]) -> Any:
    from memdesk.core import engine

    model = _resolve_model(model, modes)
    db_path = None
    if model is None:
        # A keyword-only index of its own: evaluating without a model must not turn
        # the workspace's real index (and its vectors) into an FTS-only one.
        main = paths.index_path_for(root)
        db_path = main.with_name(main.stem + "-fts" + main.suffix)
    # An evaluation reads the workspace; it keeps no history of it (a BEIR corpus of
    # thousands of documents would otherwise be captured as versions in the data dir).
    return engine.Engine.open(root, model=model, db_path=db_path, history=False)


def sync_reporter(progress: Callable[[str], None] | None) -> Callable[[Any], None] | None:
    """Turns a sync's progress into a line every 500 files and about every 5 % of the
    embedding: a first SciFact index embeds for tens of minutes, and said nothing."""
    if progress is None:
        return None
    say = progress
    last_share = -1

    def report(p: Any) -> None:
        nonlocal last_share
        if p.phase == "index" and p.files_done % 500 == 0:
            say(f"indexing {p.files_done}/{p.files_total}")
        elif p.phase == "embed" and p.to_embed:
            share = p.embedded * 20 // p.to_embed
            if share != last_share:
                last_share = share
                say(f"embedding {p.embedded}/{p.to_embed} chunks")

    return report


def beir_judge(qrels: Mapping[str, set[str]], doc_of: Callable[[Hit], str]) -> Judge:
    """Scores against document qrels: a hit counts as the document it belongs to."""
    return lambda qid, hits: score_ranking([doc_of(h) for h in hits], qrels[qid])


def evaluate_engine(
    eng: Any,
    queries: Mapping[str, str],
    judge: Judge,
    *,
    profiles: Sequence[str],
    modes: Sequence[str],
    progress: Callable[[str], None] | None = None,
    settings_for: SettingsFor = lambda p, m: eval_settings(p, mmr=m),
    now: dt.date | dt.datetime | None = None,
    nows: Mapping[str, dt.datetime | None] | None = None,
    categories: Mapping[str, str | None] | None = None,
    clock: Clock = "query",
) -> list[ModeResult]:
    """Run every query under each profile × mode; ``judge`` scores each ranking.

    ``now`` is the clock for decay and recency; ``nows`` gives a query its own clock
    (used when ``clock`` is "query"); without either, ``clock`` decides: the
    workspace's own clock ("query", "workspace": ``Engine.clock``) or the wall clock
    ("wall", memdesk's clock before workspaces had their own); ``categories`` (query
    id -> name) adds a per-category breakdown.
    """
    results: list[ModeResult] = []
    default_clock: dt.date | dt.datetime | None = (
        dt.datetime.now(dt.UTC) if clock == "wall" else getattr(eng, "clock", lambda: None)()
    )
    ids = list(queries)
    for profile in profiles:
        for mode_name in modes:
            if mode_name not in MODES:
                raise errors.EvalError(f"unknown mode {mode_name!r} (one of {', '.join(MODES)})")
            engine_mode, mmr = MODES[mode_name]
            if engine_mode != "fts" and eng.embedder is None:
                log.warning("skipping %s/%s: no embedding model", profile, mode_name)
                continue
            settings = settings_for(profile, mmr)
            per_query: dict[str, Scores] = {}
            latencies: list[float] = []
            for qid in ids:
                at = ((nows or {}).get(qid) if clock == "query" else None) or now or default_clock
                t0 = time.perf_counter()
                pool = eng.fetch_candidates(queries[qid], settings, mode=engine_mode, now=at)
                hits = ranking.rank(pool, settings, now=at)
                latencies.append((time.perf_counter() - t0) * 1000)
                per_query[qid] = judge(qid, hits)
            result = ModeResult(
                profile,
                mode_name,
                Scores.mean(list(per_query.values())),
                _percentile(latencies, 50),
                _percentile(latencies, 95),
                by_category=_by_category(per_query, categories or {}),
                per_query=per_query,
            )
            if progress is not None:
                progress(f"{profile:<8} {mode_name:<10} nDCG@10 {result.scores.ndcg10:.4f}")
            results.append(result)
    return results


def _by_category(
    per_query: Mapping[str, Scores], categories: Mapping[str, str | None]
) -> dict[str, tuple[int, Scores]]:
    groups: dict[str, list[Scores]] = {}
    for qid, scores in per_query.items():
        name = categories.get(qid)
        if name is not None:
            groups.setdefault(name, []).append(scores)
    return {name: (len(group), Scores.mean(group)) for name, group in sorted(groups.items())}


def evaluate_dataset(
    folder: Path,
    *,
    split: str = "dev",
    profiles: Sequence[str] = EVAL_PROFILES,
    modes: Sequence[str] = tuple(MODES),
    model: Any = "auto",
    limit: int | None = None,
    progress: Callable[[str], None] | None = None,
    settings_for: SettingsFor = lambda p, m: eval_settings(p, mmr=m),
    now: dt.date | dt.datetime | None = None,
    clock: Clock = "query",
) -> dict[str, Any]:
    dataset = load_beir(folder, split)
    # Owner-only like the rest of the data dir (the umask aside); the copies inside are public.
    root = paths.private_dir(paths.data_dir() / "eval") / f"{dataset.name}-{dataset.corpus_sha256[:12]}"
    mapping = import_corpus(dataset, root)
    eng = _open_engine(root, model, modes)
    try:
        if eng.fallback_reason and needs_embedder(modes) and progress is not None:
            progress(f"warning: {eng.fallback_reason}; only the fts mode can run")
        t0 = time.perf_counter()

        eng.sync(progress=sync_reporter(progress))
        index_seconds = time.perf_counter() - t0
        # The imported corpus does not change during the run: the OpenClaw profiles need
        # not list and check its 5,000 files on every query.
        eng.freeze_profile_indexes()
        queries = {q: t for q, t in dataset.queries.items() if q in dataset.qrels}
        if limit:
            queries = dict(list(queries.items())[:limit])
        results = evaluate_engine(
            eng,
            queries,
            beir_judge(dataset.qrels, lambda h: mapping.get(h.path, h.path)),
            profiles=profiles,
            modes=modes,
            progress=progress,
            settings_for=settings_for,
            now=now,
            clock=clock,
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
    profiles: Sequence[str] = EVAL_PROFILES,
    modes: Sequence[str] = tuple(MODES),
    model: Any = "auto",
    progress: Callable[[str], None] | None = None,
    settings_for: SettingsFor = lambda p, m: eval_settings(p, mmr=m),
    now: dt.date | dt.datetime | None = None,
    keep_per_query: bool = False,
    clock: Clock = "query",
) -> dict[str, Any]:
    """``memdesk eval --workspace --golden``. ``keep_per_query`` adds the ``ModeResult``
    objects (with every query's scores) under ``"mode_results"``, for callers that
    pool several golden sets (not JSON)."""
    golden = load_golden(golden_file)
    eng = _open_engine(root, model, modes)
    try:
        t0 = time.perf_counter()
        eng.sync(progress=sync_reporter(progress))
        index_seconds = time.perf_counter() - t0
        queries = {str(i): g.query for i, g in enumerate(golden)}
        relevant = {str(i): g.relevant for i, g in enumerate(golden)}
        results = evaluate_engine(
            eng,
            queries,
            # Golden items may be line ranges: a hit counts as the item it claims,
            # exactly as in the tuning lab (one scoring function for both).
            lambda qid, hits: score_hits(hits, relevant[qid]),
            profiles=profiles,
            modes=modes,
            progress=progress,
            settings_for=settings_for,
            now=now,
            nows={str(i): g.now for i, g in enumerate(golden)},
            categories={str(i): g.category for i, g in enumerate(golden)},
            clock=clock,
        )
        ident = eng.embedder.identity.model if eng.embedder else None
    finally:
        eng.close()
    report: dict[str, Any] = {
        "dataset": str(golden_file),
        "split": "golden",
        "queries": len(golden),
        "index_seconds": round(index_seconds, 2),
        "model": ident,
        "results": [r.to_json() for r in results],
    }
    if keep_per_query:
        report["mode_results"] = results
    return report
