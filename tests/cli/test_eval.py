"""``memdesk eval`` through a real subprocess: ranking flags, per-query clocks, categories."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import run
from tests.conftest import CLOCK_QUERY


def test_eval_takes_the_search_ranking_flags_and_reports_categories(
    clock_workspace: Path, memdesk_home: Path, tmp_path: Path
) -> None:
    golden = tmp_path / "g.jsonl"
    golden.write_text(
        json.dumps(
            {
                "query": CLOCK_QUERY,
                "relevant": ["memory/2026-01-10.md"],
                "now": "2026-01-11",
                "category_name": "fresh",
            }
        )
        + "\n"
        + json.dumps({"query": CLOCK_QUERY, "relevant": ["memory/2026-01-10.md"], "category_name": "stale"})
        + "\n",
        encoding="utf-8",
    )
    base = (
        "eval",
        "--workspace",
        str(clock_workspace),
        "--golden",
        str(golden),
        "--modes",
        "fts",
        "--profile",
        "memdesk",
        "--json",
    )

    def categories(*flags: str) -> dict[str, dict[str, float]]:
        report = json.loads(run(*base, *flags, home=memdesk_home).stdout)
        assert report["model"] is None  # --modes fts without --model: nothing embedded
        (result,) = report["results"]
        assert {"ndcg@10", "recall@5", "recall@10", "by_category"} <= set(result)
        return result["by_category"]

    decayed = categories("--decay", "--half-life", "30", "--now", "2027-01-10")
    assert decayed["fresh"]["ndcg@10"] == 1.0 and decayed["stale"]["ndcg@10"] < 1.0
    assert categories("--no-decay", "--now", "2027-01-10")["stale"]["ndcg@10"] == 1.0
    # A ten-year half-life barely decays a year-old note: the flag reaches the ranking.
    assert categories("--decay", "--half-life", "3650", "--now", "2027-01-10")["stale"]["ndcg@10"] == 1.0

    text = run(*base[:-1], "--decay", "--now", "2027-01-10", home=memdesk_home).stdout
    assert "R@5" in text and "  stale (1)" in text


def test_eval_rejects_a_bad_now(clock_workspace: Path, memdesk_home: Path, tmp_path: Path) -> None:
    golden = tmp_path / "g.jsonl"
    golden.write_text(json.dumps({"query": "x", "relevant": ["MEMORY.md"]}) + "\n", encoding="utf-8")
    out = run(
        "eval",
        "--workspace",
        str(clock_workspace),
        "--golden",
        str(golden),
        "--modes",
        "fts",
        "--now",
        "yesterday",
        home=memdesk_home,
        check=False,
    )
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "--now 'yesterday'" in out.stderr


def test_recency_and_date_match_flags_switch_the_profile_settings() -> None:
    import argparse

    from memdesk.cli import common
    from memdesk.core.search.settings import SearchSettings

    parser = argparse.ArgumentParser()
    common.add_ranking_flags(parser)
    assert common.ranking_overrides(parser.parse_args([])) == {}
    off = common.ranking_overrides(parser.parse_args(["--no-recency", "--no-date-match"]))
    assert off == {"recency": False, "date_boost": 0.0}
    on = common.ranking_overrides(parser.parse_args(["--recency", "--date-match"]))
    assert on == {"recency": True, "date_boost": SearchSettings.defaults("memdesk").date_boost}
    assert on["date_boost"] > 0
