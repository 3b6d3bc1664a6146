"""``memdesk search --as-of``: JSON of memory as it was on a day (real subprocess, real model)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import RESULT_KEYS, run
from tests.core.asof import scripted


def test_search_as_of_a_day(tmp_path: Path, memdesk_home: Path, minilm_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    scripted.scripted(ws)
    common = ("--workspace", str(ws), "--model", str(minilm_path), "--json")
    out = json.loads(
        run("search", "lighthouse migration", "--as-of", "2026-11-03", *common, home=memdesk_home).stdout
    )
    assert out["as_of"]["day"] == "2026-11-03"
    assert out["as_of"]["notes"] == 7 and out["as_of"]["differ_now"] == 2
    assert out["as_of"]["differences"] == {"changed": [scripted.FERRY], "gone": [scripted.GONE], "new": []}
    top = out["results"][0]
    assert set(top) == RESULT_KEYS | {"as_of", "changed_since"}
    assert top["path"] == scripted.GONE and top["changed_since"] is True
    assert top["as_of"]["at"] == "2026-11-01T12:00:00Z" and top["as_of"]["source"] == "memdesk"
    assert top["start_line"] == 1 and top["end_line"] >= 3

    ferry = json.loads(
        run(
            "search", "who owns the ferry project", "--as-of", "2026-11-03", *common, home=memdesk_home
        ).stdout
    )
    hit = next(r for r in ferry["results"] if r["path"] == scripted.FERRY)
    assert "Dana Whitfield" in hit["snippet"] and hit["changed_since"] is True
    memory = next(r for r in ferry["results"] if r["path"] == "MEMORY.md")
    assert memory["changed_since"] is False and memory["as_of"]["at"] == "2026-10-25T12:00:00Z"

    # Without --as-of: memory as it is now (the rewrite, no deleted note).
    now = json.loads(run("search", "who owns the ferry project", *common, home=memdesk_home).stdout)
    assert "Marcus" in next(r for r in now["results"] if r["path"] == scripted.FERRY)["snippet"]
    assert "as_of" not in now and all("changed_since" not in r for r in now["results"])

    # Nothing in the workspace changed; the snapshot lives in the data dir.
    assert not (ws / scripted.GONE).exists()
    assert (memdesk_home / "asof").is_dir()


def test_as_of_text_output_and_bad_date(tmp_path: Path, memdesk_home: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    scripted.scripted(ws)
    text = run(
        "search",
        "Dana Whitfield",
        "--as-of",
        "2026-11-03",
        "--workspace",
        str(ws),
        "--model",
        "none",
        home=memdesk_home,
    ).stdout
    assert text.startswith("memory as it was on 2026-11-03: 7 notes, 2 differ now")
    assert f"{scripted.FERRY}:" in text and "changed since" in text
    empty = run(
        "search",
        "Dana",
        "--as-of",
        "2026-10-01",
        "--workspace",
        str(ws),
        "--model",
        "none",
        home=memdesk_home,
    ).stdout
    assert "no version from that day or before" in empty and "No matches." in empty
    bad = run(
        "search",
        "x",
        "--as-of",
        "03/11/2026",
        "--workspace",
        str(ws),
        "--model",
        "none",
        home=memdesk_home,
        check=False,
    )
    assert bad.returncode != 0
    assert "--as-of '03/11/2026': expected a date as YYYY-MM-DD" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
