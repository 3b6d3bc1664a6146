"""Full dev-split retrieval evaluation; writes docs/quality.md.

Runs every dataset in ../shared/eval (SciFact, XQuAD-zh, XQuAD-en) × both ranking
profiles × the four modes with the default embedder, then ablates each of the
memdesk profile's departures from OpenClaw (one at a time, hybrid mode), and
writes the tables with the published baselines beside them. ``locomo`` runs the
five LoCoMo conversations (agent memory: daily notes over months, each question
at its own clock) under both profiles, with OpenClaw's always-on 30-day decay
beside memdesk's recency.

Sections of datasets not run this time are kept from the existing docs/quality.md.

Usage: python benchmarks/quality.py [--datasets scifact,xquad-zh,xquad-en,locomo] [--model PATH]
The last line of output is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memdesk.core import engine, paths
from memdesk.core.eval import datasets as eval_datasets
from memdesk.core.eval import golden as eval_golden
from memdesk.core.eval import metrics as eval_metrics
from memdesk.core.eval import runner as eval_runner
from memdesk.core.search import ranking

EVAL_DIR = ROOT.parent / "shared" / "eval"
# Published nDCG@10 baselines (from each dataset's README in shared/eval; on the
# datasets' published test/validation splits, so only indicative for dev).
BASELINES = {
    "scifact": "BM25 0.665 (BEIR) / 0.679 (Anserini flat) / 0.687 (bm25s); all-MiniLM-L6-v2 0.645",
    "xquad-zh": "BM25 without segmentation 0.121; all-MiniLM-L6-v2 0.242; paraphrase-multilingual-MiniLM-L12-v2 0.852",
    "xquad-en": "BM25 0.965; all-MiniLM-L6-v2 0.944",
}
TARGETS = {"scifact": 0.70, "xquad-zh": 0.90, "xquad-en": 0.96}
DATASET_ORDER = ("scifact", "xquad-zh", "xquad-en", "locomo")
ABLATIONS: list[tuple[str, dict[str, Any], str]] = [
    (
        "unsegmented keyword index",
        {"segmented_index": False},
        "OpenClaw's unicode61 table instead of CJK character bigrams",
    ),
    ("AND-joined keywords", {"or_terms": False}, "every query word required, as OpenClaw"),
    ("keep stop words", {"stop_words": False}, "stop words stay in keyword queries"),
    (
        "keyword-only hits' cosine = 0",
        {"complete_vector": False},
        "a chunk only the keyword leg found scores 0 on the vector side, as OpenClaw",
    ),
    (
        "vector-only hits' BM25 computed",
        {"complete_text": True},
        "tried: compute BM25 for chunks only the vector leg found (OpenClaw uses 0)",
    ),
    (
        "bm25 ÷ best bm25 in the pool",
        {"text_norm": "max"},
        "tried instead of OpenClaw's r/(1+r), which memdesk keeps",
    ),
]

# Ranking settings switched one at a time (the pools stay those of the defaults).
SETTING_ABLATIONS: list[tuple[str, dict[str, Any], str]] = [
    ("weights 0.6/0.4", {"vector_weight": 0.6, "text_weight": 0.4}, "the memdesk weights until session 4"),
    (
        "no same-note penalty",
        {"same_note_penalty": 0.0},
        "a note's further chunks keep their full score, as OpenClaw",
    ),
]

DIFFERENCES = """\
## Every difference between the profiles

| memdesk profile | openclaw profile (OpenClaw v2026.4.12) | measured effect |
|---|---|---|
| keyword index of CJK characters + character bigrams (porter + unicode61 for the rest) | FTS5 `unicode61` over raw text | ablation "unsegmented keyword index" below: XQuAD-zh −0.027 nDCG@10 without it; OpenClaw's fts mode on XQuAD-zh is 0.13 |
| query terms ORed, stop words dropped, terms whose idf FTS5 clamps to ~0 skipped | every token ANDed, stop words included | ablation "AND-joined keywords"; "keep stop words"; the idf rule only saves time (FTS5 gives those terms weight 1e-6) |
| a keyword-only hit shows (and is scored with) its real cosine | its vector score is 0 | ablation "keyword-only hits' cosine = 0": SciFact −0.003 without it, XQuAD unchanged; the score pane also shows how close the vector leg came |
| weights 0.75 vector / 0.25 text (0.6 / 0.4 until session 4) | 0.7 / 0.3 | rows "weights 0.6/0.4" (LoCoMo, golden study, each BEIR ablation list): better on LoCoMo and the golden set, XQuAD within 0.003 (BEIR tables from runs before that row lack it: closing note, session 4) |
| max results 10, min score 0 | 6, 0.35 | not a ranking change; evaluation asks both for 100 results at min score 0 |
| MMR on at λ 0.85, on whole chunk text with a tokenizer that keeps every script | MMR off (λ 0.7 when on), on the 700-char snippet, ASCII + CJK tokens only | `hybrid+mmr` rows below; golden-set study |
| temporal decay off; when on, half-life 90 days and `memory/YYYY-MM-DD-slug.md` and date folders are dated too | decay off; half-life 30; only `memory/YYYY-MM-DD.md` dated (current releases: always on at 30 days) | golden-set study; LoCoMo rows "decay 30 d" (BEIR documents carry no dates) |
| passage windows: a chunk of three or more short lines (dialog turns, bullets) is also embedded as windows of ≤ 400 characters of whole lines and as line pairs (each line with the line before it); when its best window beats the chunk, its cosine moves 0.9 of the way to that window's (max-passage); prose chunks get none | one vector per chunk | LoCoMo rows "chunk vectors only" and "packed windows only (no line pairs)" (session 6 note); SciFact and XQuAD-zh have no chunk with windows, XQuAD-en 5 of 255 |
| recency on: for questions that ask for the current state (now, finally, still, 现在, 最终…; not "how long" / "since when" questions, nor ones about a past occasion ("what did they end up playing during the charity event") or a named period ("currently … in August 2023")), a note gains up to +0.1, `0.1 × 2^(-age / half-life)`, evergreen notes +0.1; added, not multiplied, so it only reorders near-ties | none | LoCoMo "recency off" rows; golden-set study "recency" rows |
| newest statement wins (current-state questions only): a dated hit with a line that sets the subject the query names ("Ferry owner: Sam", "X is now Y", "switched from A to B", "负责人：…", "改为") gains +0.1 (the recency weight) when an older dated hit states that subject otherwise, and the explanation names that hit; a hit whose lines matching the query only ask or plan (a question, a to-do, "will", "下周再定") takes no recency bonus | none | section "Session 8: the newest statement wins" (golden set +0.018 on its 25 questions, LoCoMo and BEIR sets unchanged) |
| date match: notes dated in a period the query names ("in July 2023", "on 3 June", "7月14日", "last week"; up to 3 days after) gain +0.1 | none | LoCoMo row "recency and date match off" |
| same-note penalty: a chunk of a note below that note's best-scored chunk loses 0.02, so a near-tie from another note ranks before a second look into the same note | none | LoCoMo rows "same-note penalty off" (+0.0035 with it); golden study row "no same-note penalty" (−0.0036 with it); ablation "no same-note penalty" of each BEIR table (XQuAD: unchanged, session 5 note) |
| chunk size shrinks for embedders with a context under ~530 tokens | always 400/80 | identical for both bundled models (512-token context) |
"""


class _QueryCache:
    """The engine's embedder with each query embedded once: every profile, mode and
    ablation of a run asks for the same query vectors (the embedder is deterministic)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._cache: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def embed_query(self, text: str) -> Any:
        if text not in self._cache:
            self._cache[text] = self._inner.embed_query(text)
        return self._cache[text]


def _cache_queries(eng: Any) -> None:
    if eng.embedder is not None:
        eng.set_embedder(_QueryCache(eng.embedder))


# The memdesk profile with its passage windows switched off (MemdeskOptions.window_vectors).
NO_WINDOWS = "memdesk/no-windows"
# The memdesk profile with its packed windows only (MemdeskOptions.line_pairs off).
NO_PAIRS = "memdesk/no-pairs"
# The weights before this session's change (0.6 vector / 0.4 text), as a row of each table.
OLD_WEIGHTS = {"vector_weight": 0.6, "text_weight": 0.4}


# LoCoMo rows: (label, profile, evaluation mode, settings changes). "Decay 30 d" is
# what current OpenClaw releases apply to every search (30-day half-life, always on).
OC4 = "openclaw-2026.4"
OC9 = "openclaw-2026.9"
LOCOMO_ROWS: list[tuple[str, str, str, dict[str, Any]]] = [
    ("memdesk hybrid (defaults: recency + date match)", "memdesk", "hybrid", {}),
    ("memdesk hybrid, recency off", "memdesk", "hybrid", {"recency": False}),
    ("memdesk hybrid, same-note penalty off", "memdesk", "hybrid", {"same_note_penalty": 0.0}),
    (
        "memdesk hybrid, recency and same-note penalty off",
        "memdesk",
        "hybrid",
        {"recency": False, "same_note_penalty": 0.0},
    ),
    (
        "memdesk hybrid, recency and date match off",
        "memdesk",
        "hybrid",
        {"recency": False, "date_boost": 0.0},
    ),
    ("memdesk hybrid+mmr (search defaults)", "memdesk", "hybrid+mmr", {}),
    ("memdesk hybrid+mmr, recency off", "memdesk", "hybrid+mmr", {"recency": False}),
    ("memdesk fts", "memdesk", "fts", {}),
    ("memdesk vector", "memdesk", "vector", {}),
    # The same two rows with chunk vectors only (no passage windows, as before).
    ("memdesk hybrid, recency off, weights 0.6/0.4", "memdesk", "hybrid", {"recency": False, **OLD_WEIGHTS}),
    ("memdesk hybrid (defaults), weights 0.6/0.4", "memdesk", "hybrid", dict(OLD_WEIGHTS)),
    ("memdesk hybrid (defaults), packed windows only (no line pairs)", NO_PAIRS, "hybrid", {}),
    (
        "memdesk hybrid, recency off, packed windows only (no line pairs)",
        NO_PAIRS,
        "hybrid",
        {"recency": False},
    ),
    ("memdesk hybrid, recency off, chunk vectors only", NO_WINDOWS, "hybrid", {"recency": False}),
    ("memdesk vector, chunk vectors only", NO_WINDOWS, "vector", {}),
    (
        "memdesk hybrid, decay 30 d",
        "memdesk",
        "hybrid",
        {"decay": True, "half_life_days": 30, "recency": False},
    ),
    ("openclaw-2026.4 hybrid", OC4, "hybrid", {}),
    ("openclaw-2026.4 fts", OC4, "fts", {}),
    ("openclaw-2026.4 vector", OC4, "vector", {}),
    ("openclaw-2026.4 hybrid, decay 30 d", OC4, "hybrid", {"decay": True, "half_life_days": 30}),
    (
        "openclaw-2026.4 hybrid, decay 30 d + MMR λ 0.7",
        OC4,
        "hybrid",
        {"decay": True, "half_life_days": 30, "mmr": True, "mmr_lambda": 0.7},
    ),
    # 2026.9 ranks with its own pipeline: 30-day decay and MMR λ 0.7 always on.
    ("openclaw-2026.9 hybrid (its pipeline: decay 30 d + MMR λ 0.7, always on)", OC9, "hybrid", {}),
]


def run_locomo(model: Any, eval_dir: Path) -> dict[str, Any]:
    """The five LoCoMo conversations, pooled over all their queries (each at its own ``now``).

    Each query's candidates are fetched once per profile and leg, then re-ranked under
    every row's settings; a hit counts as the labelled line range it claims, as in
    ``memdesk eval --golden`` and the tuning lab (``golden.score_hits``).
    """
    folder = eval_dir / "locomo"
    if not folder.is_dir():
        raise SystemExit(f"{folder}: no LoCoMo eval set here (see --eval-dir)")
    per_row: dict[str, list[eval_metrics.Scores]] = {label: [] for label, *_ in LOCOMO_ROWS}
    per_cat: dict[str, dict[str, list[eval_metrics.Scores]]] = {label: {} for label, *_ in LOCOMO_ROWS}
    conversations = sorted(p for p in folder.glob("conv-*") if (p / "golden.jsonl").is_file())
    total = 0
    index_seconds = 0.0
    model_name = "none"
    for conv in conversations:
        golden = eval_golden.load_golden(conv / "golden.jsonl")
        total += len(golden)
        eng = engine.Engine.open(conv / "workspace", model=model, history=False)
        _cache_queries(eng)
        t0 = time.perf_counter()
        eng.sync()
        index_seconds += time.perf_counter() - t0
        model_name = eng.embedder.identity.model if eng.embedder else "none"
        pools: dict[tuple[str, str], list[Any]] = {}
        default_options = eng.memdesk_options
        wanted = {(variant, eval_runner.MODES[mode][0]) for _, variant, mode, _ in LOCOMO_ROWS}
        for variant, leg in sorted(wanted):
            profile = variant.split("/")[0]
            if leg != "fts" and eng.embedder is None:
                continue
            eng.memdesk_options = dataclasses.replace(
                default_options, window_vectors=variant != NO_WINDOWS, line_pairs=variant != NO_PAIRS
            )
            fetch = eval_runner.eval_settings(profile, mmr=False)
            # openclaw-2026.9 decays inside its pipeline: it needs each query's clock now.
            pools[(variant, leg)] = [
                eng.fetch_candidates(g.query, fetch, mode=leg, now=g.now) for g in golden
            ]
        eng.memdesk_options = default_options
        eng.close()
        for label, variant, mode, changes in LOCOMO_ROWS:
            leg, mmr = eval_runner.MODES[mode]
            if (variant, leg) not in pools:
                continue
            profile = variant.split("/")[0]
            settings = eval_runner.eval_settings(profile, mmr=mmr).replace(**changes)
            for g, pool in zip(golden, pools[(variant, leg)], strict=True):
                scores = eval_golden.score_hits(ranking.rank(pool, settings, now=g.now), g.relevant)
                per_row[label].append(scores)
                per_cat[label].setdefault(g.category or "-", []).append(scores)
        print(f"  locomo: {conv.name} done ({len(golden)} queries)", flush=True)
    rows = []
    for label, profile, mode, changes in LOCOMO_ROWS:
        if not per_row[label]:
            continue
        rows.append(
            {
                "row": label,
                "profile": profile,
                "mode": mode,
                "changes": changes,
                **eval_metrics.scores_json(eval_metrics.Scores.mean(per_row[label])),
                "by_category": {
                    c: {"queries": len(v), **eval_metrics.scores_json(eval_metrics.Scores.mean(v))}
                    for c, v in sorted(per_cat[label].items())
                },
            }
        )
    return {
        "dataset": "locomo",
        "conversations": [c.name for c in conversations],
        "queries": total,
        "index_seconds": round(index_seconds, 1),
        "model": model_name,
        "rows": rows,
    }


def run_dataset(name: str, model: Any, modes: list[str], eval_dir: Path) -> dict[str, Any]:
    folder = eval_dir / name
    dataset = eval_datasets.load_beir(folder, "dev")
    root = paths.data_dir() / "eval" / f"{dataset.name}-{dataset.corpus_sha256[:12]}"
    mapping = eval_datasets.import_corpus(dataset, root)
    eng = engine.Engine.open(root, model=model, history=False)
    _cache_queries(eng)
    t0 = time.perf_counter()
    eng.sync()
    index_seconds = time.perf_counter() - t0
    queries = {q: t for q, t in dataset.queries.items() if q in dataset.qrels}

    judge = eval_runner.beir_judge(dataset.qrels, lambda hit: mapping.get(hit.path, hit.path))

    def progress(msg: str) -> None:
        print(f"  {name}: {msg}", flush=True)

    results = eval_runner.evaluate_engine(
        eng,
        queries,
        judge,
        profiles=("memdesk", "openclaw-2026.4"),
        modes=modes,
        progress=progress,
    )
    ablations = []
    if eng.embedder is not None:
        default = engine.MemdeskOptions()
        # (label, MemdeskOptions changes, ranking settings changes, why)
        runs = [(label, change, {}, why) for label, change, why in ABLATIONS]
        runs += [(label, {}, change, why) for label, change, why in SETTING_ABLATIONS]
        for label, options, ranking_change, why in runs:
            eng.memdesk_options = dataclasses.replace(default, **options)
            res = eval_runner.evaluate_engine(
                eng,
                queries,
                judge,
                profiles=("memdesk",),
                modes=["hybrid"],
                progress=progress,
                settings_for=eval_runner.settings_with(ranking_change),
            )[0]
            ablations.append({"change": label, "why": why, **res.to_json()})
        eng.memdesk_options = default
    model_name = eng.embedder.identity.model if eng.embedder else "none"
    eng.close()
    return {
        "dataset": name,
        "queries": len(queries),
        "index_seconds": round(index_seconds, 1),
        "model": model_name,
        "results": [r.to_json() for r in results],
        "ablations": ablations,
    }


def run_golden(model: Any) -> dict[str, Any]:
    """The bundled example workspace with its labelled queries, plus the settings study
    behind the memdesk profile's decay and MMR defaults (re-ranking cached pools)."""
    import datetime
    import shutil
    import tempfile

    from memdesk.core.search.settings import SearchSettings

    golden_file = ROOT / "examples" / "golden.jsonl"
    with tempfile.TemporaryDirectory(prefix="memdesk-golden-") as tmp:
        root = Path(tmp) / "workspace"
        shutil.copytree(ROOT / "examples" / "workspace", root)
        report = eval_runner.evaluate_golden(root, golden_file, model=model)
        golden = eval_golden.load_golden(golden_file)
        eng = engine.Engine.open(root, model=model, history=False)
        eng.sync()
        now = datetime.date(2026, 12, 1)  # the day after the last note
        base = eval_runner.eval_settings("memdesk", mmr=False)
        pools = {g.query: eng.fetch_candidates(g.query, base) for g in golden}
        eng.memdesk_options = dataclasses.replace(eng.memdesk_options, window_vectors=False)
        chunk_only = {g.query: eng.fetch_candidates(g.query, base) for g in golden}
        eng.close()
        study = []
        plain = {"recency": False, "date_boost": 0.0}
        for label, change in [
            ("no decay, no recency, no date match, no MMR", plain),
            ("decay, half-life 30 days (OpenClaw's)", {**plain, "decay": True, "half_life_days": 30}),
            ("decay, half-life 90 days", {**plain, "decay": True, "half_life_days": 90}),
            ("decay, half-life 180 days", {**plain, "decay": True, "half_life_days": 180}),
            ("decay, half-life 365 days", {**plain, "decay": True, "half_life_days": 365}),
            ("MMR λ 0.7", {**plain, "mmr": True, "mmr_lambda": 0.7}),
            ("MMR λ 0.85", {**plain, "mmr": True, "mmr_lambda": 0.85}),
            ("MMR λ 0.85 + date match", {"recency": False, "mmr": True}),
            ("MMR λ 0.85 + date match + recency (memdesk defaults)", {"mmr": True}),
            ("recency, half-life 30 days", {"mmr": True, "half_life_days": 30}),
            ("recency, half-life 180 days", {"mmr": True, "half_life_days": 180}),
            ("recency weight 0.05", {"mmr": True, "recency_weight": 0.05}),
            ("recency weight 0.2", {"mmr": True, "recency_weight": 0.2}),
            (
                "MMR λ 0.85 + date match, chunk vectors only",
                {"recency": False, "mmr": True, "chunk_vectors_only": True},
            ),
            ("memdesk defaults, chunk vectors only", {"mmr": True, "chunk_vectors_only": True}),
            ("MMR λ 0.85 + date match, weights 0.6/0.4", {"recency": False, "mmr": True, **OLD_WEIGHTS}),
            ("memdesk defaults, weights 0.6/0.4", {"mmr": True, **OLD_WEIGHTS}),
            ("memdesk defaults, no same-note penalty", {"mmr": True, "same_note_penalty": 0.0}),
        ]:
            chosen = chunk_only if change.pop("chunk_vectors_only", False) else pools
            scores = eval_golden.score_golden(chosen, golden, base.replace(**change), now=now)
            study.append(
                {
                    "settings": label,
                    "ndcg@10": round(scores.ndcg10, 4),
                    "recall@10": round(scores.recall10, 4),
                }
            )
    report["study"] = study
    report["defaults"] = SearchSettings.defaults("memdesk").to_json()
    return report


def locomo_markdown(rep: dict[str, Any]) -> list[str]:
    cats = sorted({c for r in rep["rows"] for c in r["by_category"]})
    lines = [
        f"## locomo ({rep['queries']} dev queries in {len(rep['conversations'])} conversations, "
        f"model {rep['model']}, indexed in {rep['index_seconds']} s)",
        "",
        "Agent memory: five LoCoMo conversations as daily notes over months "
        "(`../shared/eval/locomo`), line-level labels, every query at its own clock (`now`: the "
        "day of the conversation's last session). Pooled over all queries of the five. "
        "Target: memdesk hybrid ≥ 0.82, with recency on ≥ 0.80.",
        "",
        "| settings | nDCG@10 | Recall@5 | Recall@10 | MRR@10 | "
        + " | ".join(f"{c} nDCG@10" for c in cats)
        + " |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(cats),
    ]
    for r in rep["rows"]:
        per = " | ".join(
            f"{r['by_category'][c]['ndcg@10']:.4f}" if c in r["by_category"] else "-" for c in cats
        )
        lines.append(
            f"| {r['row']} | {r['ndcg@10']:.4f} | {r['recall@5']:.4f} | {r['recall@10']:.4f} | "
            f"{r['mrr@10']:.4f} | {per} |"
        )
    counts = next(iter(rep["rows"]))["by_category"] if rep["rows"] else {}
    lines += [
        "",
        "Queries per category: " + ", ".join(f"{c} {v['queries']}" for c, v in counts.items()) + ".",
        "",
    ]
    return lines


def _sections(text: str) -> list[tuple[str, str]]:
    """Level-2 sections of a previous docs/quality.md, in order, as (first word of the
    heading, section). The first word names a generated section (a dataset, "Example");
    hand-written notes may share it ("Session 5 closing note", "Session 6 ..."), so
    they are kept as a list, not keyed by it."""
    return [(part.split(None, 1)[0], "## " + part.rstrip("\n") + "\n") for part in text.split("\n## ")[1:]]


def write_markdown(reports: list[dict[str, Any]], out: Path, golden: dict[str, Any] | None = None) -> None:
    sections = _sections(out.read_text(encoding="utf-8")) if out.is_file() else []
    previous = dict(sections)  # generated sections by name (one each)
    lines = [
        "# Retrieval quality",
        "",
        f"Measured {dt.date.today().isoformat()} with `python benchmarks/quality.py` on the **dev** "
        "splits of `../shared/eval` (holdout qrels untouched), default embedder, 100 results at "
        "min score 0, every other setting at the profile's defaults (MMR only in `hybrid+mmr`). "
        "nDCG@10, Recall@k and MRR@10 as in trec_eval, binary gains; a document counts at its "
        "best-ranked chunk. Latency is per query, including query embedding, on a 2-core machine. "
        '"Indexed in" is the sync time of this run (an index reused from an earlier run syncs in '
        "well under a second). A dataset section not re-run keeps the figures of the run that "
        "measured it (`--datasets` picks what runs).",
        "",
        DIFFERENCES,
    ]
    by_name = {rep["dataset"]: rep for rep in reports}
    for name in (*DATASET_ORDER, *sorted(set(by_name) - set(DATASET_ORDER))):
        rep = by_name.get(name)
        if rep is None:
            if name in previous:
                lines += [previous[name].rstrip("\n"), ""]  # not re-run: kept as last measured
            continue
        if name == "locomo":
            lines += locomo_markdown(rep)
            continue
        lines += [
            f"## {name} ({rep['queries']} dev queries, model {rep['model']}, "
            f"indexed in {rep['index_seconds']} s)",
            "",
            f"Published baselines (nDCG@10, test split): {BASELINES.get(name, '-')}. "
            f"Target for memdesk hybrid: ≥ {TARGETS.get(name, 0):.2f}.",
            "",
            "| profile | mode | nDCG@10 | Recall@10 | Recall@100 | MRR@10 | p50 ms | p95 ms |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        for r in rep["results"]:
            lines.append(
                f"| {r['profile']} | {r['mode']} | {r['ndcg@10']:.4f} | {r['recall@10']:.4f} | "
                f"{r['recall@100']:.4f} | {r['mrr@10']:.4f} | {r['latency_ms_p50']:.1f} | "
                f"{r['latency_ms_p95']:.1f} |"
            )
        if rep["ablations"]:
            base = next(r for r in rep["results"] if r["profile"] == "memdesk" and r["mode"] == "hybrid")
            lines += [
                "",
                "Each memdesk difference switched back to OpenClaw's behaviour, one at a time "
                "(memdesk profile, hybrid):",
                "",
                "| change | nDCG@10 | Δ vs memdesk hybrid |",
                "|---|---:|---:|",
            ]
            for a in rep["ablations"]:
                lines.append(
                    f"| {a['change']} ({a['why']}) | {a['ndcg@10']:.4f} | "
                    f"{a['ndcg@10'] - base['ndcg@10']:+.4f} |"
                )
        lines.append("")
    if golden is not None:
        lines += [
            "## Example workspace, labelled queries (`examples/golden.jsonl`)",
            "",
            f"{golden['queries']} bilingual questions about `examples/workspace` (current state "
            "and history of decisions), run with `memdesk eval --workspace ... --golden ...`.",
            "",
            "| profile | mode | nDCG@10 | Recall@10 | Recall@100 | MRR@10 |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for r in golden["results"]:
            lines.append(
                f"| {r['profile']} | {r['mode']} | {r['ndcg@10']:.4f} | {r['recall@10']:.4f} | "
                f"{r['recall@100']:.4f} | {r['mrr@10']:.4f} |"
            )
        lines += [
            "",
            "Decay, recency and MMR on this set (memdesk profile, hybrid, clock at 2026-12-01). "
            "These numbers set the memdesk defaults: decay off, recency on (weight 0.1, half-life "
            "90 days), date match on, MMR on at λ 0.85.",
            "",
            "| settings | nDCG@10 | Recall@10 |",
            "|---|---:|---:|",
        ]
        for row in golden["study"]:
            lines.append(f"| {row['settings']} | {row['ndcg@10']:.4f} | {row['recall@10']:.4f} |")
        lines.append("")
    elif "Example" in previous:
        lines += [previous["Example"].rstrip("\n"), ""]
    # Hand-written sections (indexing time, embedder choice, notes on changes) stay as they are.
    generated = {"Every", "Example", *DATASET_ORDER, *by_name}
    for key, text in sections:
        if key not in generated:
            lines += [text.rstrip("\n"), ""]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="scifact,xquad-zh,xquad-en,locomo")
    parser.add_argument("--model", default="auto")
    parser.add_argument("--modes", default="fts,vector,hybrid,hybrid+mmr")
    parser.add_argument("--out", default=str(ROOT / "docs" / "quality.md"))
    parser.add_argument(
        "--eval-dir", default=str(EVAL_DIR), help="the shared eval sets (default: ../shared/eval of the repo)"
    )
    args = parser.parse_args()
    model: Any = args.model if args.model in ("auto", "none") else Path(args.model)
    reports = [
        run_locomo(model, Path(args.eval_dir))
        if n == "locomo"
        else run_dataset(n, model, args.modes.split(","), Path(args.eval_dir))
        for n in args.datasets.split(",")
        if n
    ]
    golden = run_golden(model)
    write_markdown(reports, Path(args.out), golden)
    print(f"wrote {args.out}")
    print(json.dumps({"benchmark": "quality", "reports": reports, "golden": golden}))


if __name__ == "__main__":
    main()
