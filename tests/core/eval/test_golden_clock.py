"""Golden sets with a clock per query and categories: parsing, saving, and evaluation.

``clock_workspace`` (tests/conftest.py) is small and labelled by hand: a dated note
that answers the query, and MEMORY.md (evergreen, so it never decays) that mentions
the words less. With decay on, the dated note wins while it is fresh and loses once
it is a year old, so which clock a query is scored at is visible in its score.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from memdesk.core import errors, paths
from memdesk.core.eval import golden as eval_golden
from memdesk.core.eval import runner as eval_runner
from memdesk.core.index import store as store_mod
from tests.conftest import CLOCK_QUERY as QUERY


def _golden(path: Path, lines: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_now_category_and_id_are_read_and_saved_back(tmp_path: Path) -> None:
    path = _golden(
        tmp_path / "g.jsonl",
        [
            {
                "id": "q1",
                "query": "a",
                "relevant": ["memory/x.md"],
                "now": "2026-01-11",
                "category": 2,
                "category_name": "temporal",
            },
            {
                "query": "b",
                "relevant": ["MEMORY.md#L1-L2"],
                "now": "2026-01-11T09:30:00+01:00",
                "category": 4,
            },
            {"query": "c", "relevant": ["MEMORY.md"]},
        ],
    )
    a, b, c = eval_golden.load_golden(path)
    assert (a.id, a.category, a.now) == ("q1", "temporal", dt.datetime(2026, 1, 11, tzinfo=dt.UTC))
    assert b.category == "4" and b.now is not None and b.now.utcoffset() == dt.timedelta(hours=1)
    assert (c.now, c.category, c.id) == (None, None, None)
    eval_golden.save_golden(tmp_path / "saved.jsonl", [a, b, c])
    assert eval_golden.load_golden(tmp_path / "saved.jsonl") == [a, b, c]
    first = json.loads((tmp_path / "saved.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["now"] == "2026-01-11" and first["category_name"] == "temporal"


def test_a_bad_clock_names_the_line(tmp_path: Path) -> None:
    path = _golden(
        tmp_path / "g.jsonl",
        [{"query": "a", "relevant": ["x.md"]}, {"query": "b", "relevant": ["x.md"], "now": "last week"}],
    )
    with pytest.raises(errors.EvalError, match=r"g\.jsonl:2: .*last week"):
        eval_golden.load_golden(path)


def test_each_query_is_scored_at_its_own_clock_and_by_category(clock_workspace: Path, tmp_path: Path) -> None:
    golden = _golden(
        tmp_path / "g.jsonl",
        [
            # Asked the day after the decision: the dated note is fresh and ranks first.
            {
                "query": QUERY,
                "relevant": ["memory/2026-01-10.md"],
                "now": "2026-01-11",
                "category_name": "fresh",
            },
            # No clock of its own: scored at the run's --now, a year later, when the
            # dated note has decayed below the evergreen MEMORY.md.
            {"query": QUERY, "relevant": ["memory/2026-01-10.md"], "category_name": "stale"},
            {
                "query": "lunch with the design team",
                "relevant": ["memory/2026-01-11.md"],
                "now": "2026-01-12",
                "category_name": "fresh",
            },
        ],
    )
    decay = eval_runner.settings_with({"decay": True, "half_life_days": 30})
    report = eval_runner.evaluate_golden(
        clock_workspace,
        golden,
        profiles=("memdesk",),
        modes=["fts"],
        settings_for=decay,
        now=dt.date(2027, 1, 10),
    )
    (result,) = report["results"]
    cats = result["by_category"]
    assert {name: c["queries"] for name, c in cats.items()} == {"fresh": 2, "stale": 1}
    assert cats["fresh"]["ndcg@10"] == pytest.approx(1.0)
    assert cats["stale"]["ndcg@10"] < 1.0 and cats["stale"]["mrr@10"] == pytest.approx(0.5)
    assert cats["fresh"]["recall@5"] == pytest.approx(1.0)
    assert result["ndcg@10"] == pytest.approx((2 * 1.0 + cats["stale"]["ndcg@10"]) / 3, abs=1e-4)
    # Without decay the clock does not matter: every query finds its note first.
    plain = eval_runner.evaluate_golden(
        clock_workspace, golden, profiles=("memdesk",), modes=["fts"], now=dt.date(2027, 1, 10)
    )
    assert plain["results"][0]["by_category"]["stale"]["ndcg@10"] == pytest.approx(1.0)


def test_eval_and_the_tuning_lab_score_a_golden_set_alike(clock_workspace: Path, tmp_path: Path) -> None:
    """``memdesk eval --golden`` and the lab's readout (``score_golden`` over cached pools)
    are one scoring function: the same pools give the same figures, per query too."""
    from memdesk.core import engine

    golden_file = _golden(
        tmp_path / "g.jsonl",
        [
            {"query": QUERY, "relevant": ["memory/2026-01-10.md#L5-L5", "MEMORY.md#L3-L4"]},
            {"query": "lunch with the design team", "relevant": ["memory/2026-01-11.md#L3-L3"]},
            {"query": "release notes", "relevant": ["memory/2026-01-13.md"], "now": "2026-01-14"},
        ],
    )
    report = eval_runner.evaluate_golden(
        clock_workspace, golden_file, profiles=("memdesk",), modes=["fts"], model=None, keep_per_query=True
    )
    (result,) = report["mode_results"]
    golden = eval_golden.load_golden(golden_file)
    settings = eval_runner.eval_settings("memdesk", mmr=False)
    fts_index = paths.index_path_for(clock_workspace).with_name(
        paths.index_path_for(clock_workspace).stem + "-fts.sqlite"
    )
    eng = engine.Engine.open(clock_workspace, model=None, db_path=fts_index)
    try:
        pools = {g.query: eng.fetch_candidates(g.query, settings, mode="fts") for g in golden}
    finally:
        eng.close()
    lab = eval_golden.score_golden_queries(pools, golden, settings)
    assert [lab[g.query] for g in golden] == [result.per_query[str(i)] for i in range(len(golden))]
    assert eval_golden.score_golden(pools, golden, settings) == result.scores


def test_keyword_only_eval_does_not_embed_or_touch_the_real_index(clock_workspace: Path) -> None:
    golden = _golden(
        clock_workspace.parent / "g.jsonl", [{"query": QUERY, "relevant": ["memory/2026-01-10.md"]}]
    )
    report = eval_runner.evaluate_golden(clock_workspace, golden, modes=["fts"])  # model="auto"
    assert report["model"] is None  # no embedder was even loaded
    assert "by_category" not in report["results"][0]  # no categories in this file
    assert not paths.index_path_for(clock_workspace).exists()
    fts_index = paths.index_path_for(clock_workspace).with_name(
        paths.index_path_for(clock_workspace).stem + "-fts.sqlite"
    )
    store = store_mod.Store(fts_index)
    try:
        assert store.get_meta()["model"] == "fts-only"
        assert store.counts()[1] >= 3
    finally:
        store.close()
