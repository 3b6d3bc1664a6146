"""`memdesk search --folder --since --until` and the workspace clock, through a real subprocess."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

from tests.cli.test_cli import run


def _search(ws: Path, home: Path, query: str, *flags: str) -> dict:  # type: ignore[type-arg]
    out = run("search", query, "--workspace", str(ws), "--model", "none", "--json", *flags, home=home)
    return json.loads(out.stdout)


def test_folders_and_a_date_range_filter_the_results(example_workspace: Path, memdesk_home: Path) -> None:
    # Undated notes count by their last change: all of them changed in December.
    stamp = dt.datetime(2026, 12, 5, 12, tzinfo=dt.UTC).timestamp()
    for path in example_workspace.rglob("*.md"):
        os.utime(path, (stamp, stamp))
    everything = _search(example_workspace, memdesk_home, "project owner decision", "--max-results", "30")
    assert {r["path"].split("/")[1] for r in everything["results"] if "/" in r["path"]} > {
        "projects",
        "decisions",
    }
    assert everything["clock"] == "2026-11-28"  # the newest dated note, not today

    two = _search(
        example_workspace,
        memdesk_home,
        "project owner decision",
        "--folder",
        "memory/projects",
        "--folder",
        "memory/decisions/",
    )
    assert two["results"] and {r["path"].rsplit("/", 1)[0] for r in two["results"]} <= {
        "memory/projects",
        "memory/decisions",
    }
    assert two["filters"] == {
        "folders": ["memory/projects", "memory/decisions"],
        "since": None,
        "until": None,
    }

    november = _search(
        example_workspace,
        memdesk_home,
        "project owner decision",
        "--since",
        "2026-11-01",
        "--until",
        "2026-11-30",
    )
    assert november["results"]
    assert all(
        "2026-11-01" <= r["path"].removeprefix("memory/")[:10] <= "2026-11-30" for r in november["results"]
    )
    december = _search(example_workspace, memdesk_home, "project owner decision", "--since", "2026-12-01")
    assert december["results"] and all(r["date"] is None for r in december["results"])  # the undated notes


def test_bad_filters_get_one_line_naming_the_problem(example_workspace: Path, memdesk_home: Path) -> None:
    ws = str(example_workspace)
    for flags, words in (
        (("--folder", "../outside"), "folder '../outside': a folder inside the workspace"),
        (("--since", "November"), "--since 'November': expected a date as YYYY-MM-DD"),
        (("--since", "2026-11-30", "--until", "2026-11-01"), "ends before it starts"),
    ):
        out = run("search", "x", "--workspace", ws, "--model", "none", *flags, home=memdesk_home, check=False)
        assert out.returncode != 0 and words in out.stderr and len(out.stderr.strip().splitlines()) == 1
