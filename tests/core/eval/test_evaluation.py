"""Evaluation: trec_eval metrics, golden files, BEIR import, auto-tune."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import pytest

from memdesk.core import engine, errors
from memdesk.core.eval import datasets as eval_datasets
from memdesk.core.eval import golden as eval_golden
from memdesk.core.eval import metrics as eval_metrics
from memdesk.core.eval import runner as eval_runner
from memdesk.core.eval import tune as eval_tune
from memdesk.core.search.settings import SearchSettings
from tests.conftest import REPO

GOLDEN = REPO / "examples" / "golden.jsonl"


def test_metrics_match_hand_computed_values() -> None:
    ranked = ["a", "x", "b", "y"]
    relevant = {"a", "b", "c"}
    dcg = 1 + 1 / math.log2(4)
    idcg = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert eval_metrics.ndcg_at(ranked, relevant) == pytest.approx(dcg / idcg)
    assert eval_metrics.recall_at(ranked, relevant, 10) == pytest.approx(2 / 3)
    assert eval_metrics.recall_at(ranked, relevant, 1) == pytest.approx(1 / 3)
    assert eval_metrics.mrr_at(["x", "b"], relevant) == 0.5
    assert eval_metrics.mrr_at(["x"] * 10 + ["a"], relevant) == 0.0  # beyond @10
    # A document counts once, at its best-ranked chunk.
    assert eval_metrics.score_ranking(["a", "a", "b"], {"a", "b"}).ndcg10 == pytest.approx(1.0)


def test_relevant_items_parse_and_match() -> None:
    item = eval_golden.Relevant.parse("MEMORY.md#L10-L20")
    assert (item.path, item.start, item.end) == ("MEMORY.md", 10, 20)
    assert eval_golden.Relevant.parse("memory/a.md").start is None
    assert eval_golden.Relevant.parse("MEMORY.md#L7").end == 7


def test_golden_file_errors_name_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "g.jsonl"
    bad.write_text('{"query": "x", "relevant": ["a.md"]}\n{"nope": 1}\n', encoding="utf-8")
    with pytest.raises(errors.EvalError, match=":2:"):
        eval_golden.load_golden(bad)


def test_example_golden_set_paths_exist() -> None:
    golden = eval_golden.load_golden(GOLDEN)
    assert len(golden) >= 15
    for item in golden:
        for rel in item.relevant:
            path = REPO / "examples" / "workspace" / rel.path
            assert path.is_file(), rel.label()
            if rel.end is not None:
                assert rel.end <= len(path.read_text(encoding="utf-8").splitlines())


def test_golden_eval_fts_only(example_workspace: Path) -> None:
    report = eval_runner.evaluate_golden(
        example_workspace, GOLDEN, profiles=("memdesk", "openclaw-2026.4"), modes=["fts"], model=None
    )
    by_profile = {r["profile"]: r for r in report["results"]}
    assert report["queries"] >= 15 and set(by_profile) == {"memdesk", "openclaw-2026.4"}
    # Bigram keyword search must beat OpenClaw's unicode61 AND search on this bilingual set.
    assert by_profile["memdesk"]["ndcg@10"] > by_profile["openclaw-2026.4"]["ndcg@10"]
    assert 0 < by_profile["memdesk"]["recall@100"] <= 1


def test_an_evaluation_keeps_no_history_of_the_workspace(example_workspace: Path) -> None:
    """Evaluating reads a workspace; versions of it (or of a BEIR corpus of thousands of
    documents) must not pile up in the data dir's history."""
    from memdesk.core import paths

    eval_runner.evaluate_golden(example_workspace, GOLDEN, profiles=("memdesk",), modes=["fts"], model=None)
    history = paths.data_dir() / "history"
    assert not history.exists() or not any(history.iterdir())


def _tiny_beir(folder: Path, split: str = "dev") -> Path:
    docs = {
        "d1": ("Deploy", "We deploy on Wednesdays after the freeze."),
        "d2": ("Auth", "The API uses OAuth 2.0 with PKCE for desktop clients."),
        "d3": ("数据库", "最终决定使用 SQLite 和 sqlite-vec 做向量检索。"),
        "d 4/x": ("Odd id", "Document ids with spaces and slashes still map to notes."),
    }
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text(
        "".join(
            json.dumps({"_id": k, "title": t, "text": x}, ensure_ascii=False) + "\n"
            for k, (t, x) in docs.items()
        ),
        encoding="utf-8",
    )
    queries = {
        "q1": "which day do we deploy",
        "q2": "desktop OAuth PKCE",
        "q3": "向量检索用什么数据库",
        "q4": "ids with slashes",
    }
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": k, "text": v}, ensure_ascii=False) + "\n" for k, v in queries.items()),
        encoding="utf-8",
    )
    (folder / "qrels" / f"{split}.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq3\td3\t1\nq4\td 4/x\t1\n", encoding="utf-8"
    )
    return folder


def test_beir_dataset_fts(tmp_path: Path) -> None:
    folder = _tiny_beir(tmp_path / "tiny")
    report = eval_runner.evaluate_dataset(folder, modes=["fts"], model=None)
    assert report["queries"] == 4 and report["split"] == "dev"
    memdesk = next(r for r in report["results"] if r["profile"] == "memdesk")
    assert memdesk["ndcg@10"] == pytest.approx(1.0)
    assert set(memdesk) == {
        "profile",
        "mode",
        "ndcg@10",
        "recall@5",
        "recall@10",
        "recall@100",
        "mrr@10",
        "latency_ms_p50",
        "latency_ms_p95",
    }
    again = eval_runner.evaluate_dataset(folder, modes=["fts"], model=None)  # index reused
    assert again["results"] == [
        dict(
            r,
            latency_ms_p50=again["results"][i]["latency_ms_p50"],
            latency_ms_p95=again["results"][i]["latency_ms_p95"],
        )
        for i, r in enumerate(report["results"])
    ]


@pytest.mark.model
def test_beir_dataset_all_modes_real_model(tmp_path: Path, minilm_path: Path) -> None:
    folder = _tiny_beir(tmp_path / "tiny")
    said: list[str] = []
    report = eval_runner.evaluate_dataset(
        folder, profiles=("memdesk",), model=minilm_path, progress=said.append
    )
    modes = {r["mode"]: r for r in report["results"]}
    assert set(modes) == {"fts", "vector", "hybrid", "hybrid+mmr"}
    assert modes["hybrid"]["ndcg@10"] >= 0.75
    # The embedding phase reports itself, ending with every chunk embedded.
    embedding = [line for line in said if line.startswith("embedding ")]
    assert embedding, said
    done, total = embedding[-1].split()[1].split("/")
    assert done == total != "0"


def test_holdout_is_refused_without_opt_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMDESK_ALLOW_HOLDOUT", raising=False)
    folder = _tiny_beir(tmp_path / "tiny", split="holdout")
    with pytest.raises(errors.EvalError, match="holdout"):
        eval_datasets.load_beir(folder, "holdout")


def test_auto_tune_never_gets_worse(example_workspace: Path) -> None:
    eng = engine.Engine.open(example_workspace, model=None)
    eng.sync()
    golden = eval_golden.load_golden(GOLDEN)
    settings = SearchSettings.defaults("memdesk").replace(max_results=20, min_score=0.0)
    pools = {g.query: eng.fetch_candidates(g.query, settings) for g in golden}
    eng.close()
    result = eval_tune.auto_tune(pools, golden, settings)
    assert result.after.ndcg10 >= result.before.ndcg10
    assert result.tried > 10
    assert eval_golden.score_golden(pools, golden, result.settings).ndcg10 == pytest.approx(
        result.after.ndcg10
    )


def test_the_tune_grid_is_the_settings_auto_tune_tries() -> None:
    settings = SearchSettings.defaults("memdesk")
    grid = eval_tune.tune_grid(settings)
    expected = len(eval_tune.WEIGHTS)
    expected *= len(eval_tune.MMR_LAMBDAS) if settings.mmr else 1
    expected *= len(eval_tune.HALF_LIVES) if settings.decay else 1
    assert len(grid) == expected == len(set(grid))
    assert all(s.vector_weight + s.text_weight == pytest.approx(1.0) for s in grid)
    # Only the tuned fields move.
    untouched = {f.name for f in dataclasses.fields(SearchSettings)} - set(eval_tune.TUNED_FIELDS)
    assert all(getattr(s, name) == getattr(settings, name) for s in grid for name in untouched)
    plain = settings.replace(mmr=False, decay=False)
    assert len(eval_tune.tune_grid(plain)) == len(eval_tune.WEIGHTS)


def test_tune_result_rows_and_changes() -> None:
    start = SearchSettings.defaults("memdesk").replace(vector_weight=0.5, text_weight=0.5)
    tuned = start.replace(vector_weight=0.3, text_weight=0.7)
    worse, better = eval_metrics.Scores(0.2, 0.0, 0.0, 0.0, 0.0), eval_metrics.Scores(0.9, 0.0, 0.0, 0.0, 0.0)
    result = eval_tune.TuneResult(
        worse, better, tuned, 3, (("gains", worse, better), ("loses", better, worse))
    )
    assert [(r.query, round(r.delta, 3)) for r in result.rows()] == [("loses", -0.7), ("gains", 0.7)]
    assert result.changes(start) == [
        eval_tune.SettingChange("vector_weight", 0.5, 0.3),
        eval_tune.SettingChange("text_weight", 0.5, 0.7),
    ]
    assert result.changes(tuned) == []


@pytest.mark.model
def test_beir_eval_lists_the_corpus_once_per_profile_and_scores_the_same(
    tmp_path: Path, minilm_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``evaluate_dataset`` freezes the imported corpus: the OpenClaw profiles list and
    check its files once, not on every query (over SciFact's 5,183 notes that was about a
    second per query), and every query scores as with the checks."""
    from memdesk.core.eval.datasets import import_corpus, load_beir
    from memdesk.core.search.profiles import runner_common

    folder = _tiny_beir(tmp_path / "tiny")
    dataset = load_beir(folder)
    root = tmp_path / "corpus"
    mapping = import_corpus(dataset, root)
    profiles = ("memdesk", "openclaw-2026.4", "openclaw-2026.9")
    listed: list[str] = []
    real = runner_common.memory_files
    monkeypatch.setattr(runner_common, "memory_files", lambda *a: listed.append("x") or real(*a))

    def run(frozen: bool) -> list[eval_runner.ModeResult]:
        eng = engine.Engine.open(root, model=minilm_path, db_path=tmp_path / f"i-{frozen}.sqlite")
        try:
            eng.sync()
            if frozen:
                eng.freeze_profile_indexes()
            judge = eval_runner.beir_judge(dataset.qrels, lambda h: mapping.get(h.path, h.path))
            return eval_runner.evaluate_engine(
                eng, dataset.queries, judge, profiles=profiles, modes=["fts", "hybrid"]
            )
        finally:
            eng.close()

    checked = run(frozen=False)
    per_query_checks = len(listed)
    listed.clear()
    frozen = run(frozen=True)
    # 2026.4 lists through memory_files on each search; frozen, once per mode's first build.
    assert per_query_checks >= 2 * len(dataset.queries) and len(listed) <= 2
    for a, b in zip(checked, frozen, strict=True):
        assert (a.profile, a.mode, a.per_query) == (b.profile, b.mode, b.per_query)


@pytest.mark.model
def test_a_re_run_embeds_only_the_queries(
    tmp_path: Path, minilm_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``memdesk eval`` run again (after a ranking change, say) reuses the corpus's vectors
    from the data dir, memdesk's index and the OpenClaw profile's own, so it costs only
    the searches; and it scores as the first run did."""
    from memdesk.core.embed import gguf_embedder

    folder = _tiny_beir(tmp_path / "tiny")
    documents: list[int] = []  # texts embedded as documents, per call
    reference: list[int] = []  # one-sequence encodes (the OpenClaw recipes': documents and queries)
    real_embed, real_reference = (
        gguf_embedder.GgufEmbedder._embed,
        gguf_embedder.GgufEmbedder.encode_reference,
    )

    def embed(self: Any, prefixes: Any, texts: Any, *, queries: bool, **kw: Any) -> Any:
        if not queries:
            documents.append(len(texts))
        return real_embed(self, prefixes, texts, queries=queries, **kw)

    def encode(self: Any, tokens: Any, **kw: Any) -> Any:
        reference.append(len(tokens))
        return real_reference(self, tokens, **kw)

    monkeypatch.setattr(gguf_embedder.GgufEmbedder, "_embed", embed)
    monkeypatch.setattr(gguf_embedder.GgufEmbedder, "encode_reference", encode)

    def run() -> dict[str, Any]:
        return eval_runner.evaluate_dataset(
            folder, profiles=("memdesk", "openclaw-2026.4"), modes=["fts", "hybrid"], model=minilm_path
        )

    first = run()
    assert sum(documents) >= 4 and len(reference) >= 4 + 4  # the corpus, then the queries
    documents.clear()
    reference.clear()
    again = run()
    assert documents == []
    assert len(reference) == 4  # 2026.4's hybrid queries: one encode each, no document
    assert [dict(r, latency_ms_p50=0, latency_ms_p95=0) for r in again["results"]] == [
        dict(r, latency_ms_p50=0, latency_ms_p95=0) for r in first["results"]
    ]
