"""The dev parity vectors must all pass through ``memdesk.parity``."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from memdesk.core.openclaw.parity import ADAPTERS, compare, run_vectors
from tests.conftest import SHARED

REPO_ROOT = Path(__file__).parents[3]
DEV_VECTORS = SHARED / "parity" / "openclaw-dev.json"


def _load() -> list[dict]:
    if not DEV_VECTORS.is_file():
        pytest.skip(f"parity vectors not found at {DEV_VECTORS}")
    return json.loads(DEV_VECTORS.read_text(encoding="utf-8"))


def test_every_dev_vector_passes() -> None:
    vectors = _load()
    report = run_vectors(vectors)
    assert len(report.outcomes) == len(vectors), "every vector must be run"
    assert {o.id for o in report.outcomes} == {v["id"] for v in vectors}
    failures = [f"{o.id} {o.function}: {o.diffs[:2]}" for o in report.outcomes if not o.passed]
    assert failures == []
    assert report.failed == 0


def test_every_dev_function_has_an_adapter() -> None:
    missing = sorted({v["function"] for v in _load()} - set(ADAPTERS))
    assert missing == []


def test_cli_prints_summary_and_exit_code(tmp_path: Path) -> None:
    vectors = _load()
    result = subprocess.run(
        [sys.executable, "-m", "memdesk.parity", str(DEV_VECTORS)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.stdout.strip().splitlines()[-1] == f"{len(vectors)} passed, 0 failed"
    assert result.returncode == 0

    # A corrupted expectation and an unknown function must both be reported.
    broken = copy.deepcopy(vectors[:2])
    broken[0]["expected"] = "definitely not this"
    broken[1]["function"] = "noSuchFunction"
    bad_file = tmp_path / "broken.json"
    bad_file.write_text(json.dumps(broken), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "memdesk.parity", str(bad_file)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "0 passed, 2 failed"
    assert any(broken[0]["id"] in line for line in lines)
    assert any(broken[1]["id"] in line for line in lines)
    assert result.returncode == 1


def test_mutated_expectations_are_detected() -> None:
    vectors = _load()
    mutated = []
    for vector in vectors:
        v = copy.deepcopy(vector)
        v["expected"] = {"__mutated__": v["expected"]}
        mutated.append(v)
    assert run_vectors(mutated).passed == 0


def test_compare_semantics() -> None:
    assert compare(0.5, 0.5 + 1e-13, tolerance=1e-12) == []
    assert compare(0.5, 0.5 + 1e-11, tolerance=1e-12) != []
    assert compare(-1e-6, -1e-6 * (1 + 1e-7), relative_tolerance=1e-6) == []
    assert compare(1, 1.0) == []
    assert compare(True, 1) != []
    assert compare(None, 0) != []
    assert compare(["a", "b"], ["b", "a"], as_set=True) == []
    assert compare(["a", "b"], ["b", "a"]) != []
    assert compare({"k": 1}, {"k": 1, "extra": 2}) == []
    assert compare({"k": 1}, {"other": 1}) != []
    assert compare([1, 2], [1, 2, 3]) != []


def _generated(function: str, expr: str, expected: object, **inp: object) -> dict:
    return {
        "id": f"t-{function}",
        "module": "test",
        "function": function,
        "version": "openclaw v2026.4.12",
        "input": {"textGenerator": "(test)", "contentGenerator": "(test)", "pythonExpr": expr, **inp},
        "expected": expected,
    }


def test_generated_inputs_report_every_field_openclaws_tests_assert() -> None:
    """embedding-chunk-limits.test.ts checks the emoji parts re-join to the input without
    U+FFFD, within the byte budget; their code-point counts pin the cut. internal.test.ts
    counts each chunk's CJK ideographs against the budget and looks for lone surrogates."""
    split = _generated(
        "splitTextToUtf8ByteLimit",
        "'\U0001f600'*2100 + '\\n' + '\U0001f600'*2100",
        {
            "count": 3,
            "utf16Lengths": [4096, 4095, 210],
            "utf8Bytes": [8192, 8189, 420],
            "codePoints": [2048, 2048, 105],
            "rejoinsInput": True,
            "replacementChars": 0,
            "loneSurrogates": 0,
        },
        maxUtf8Bytes=8192,
    )
    del split["input"]["contentGenerator"]
    cjk = _generated(
        "chunkMarkdown",
        "'中' * 2000",
        {"count": 10, "chunks": [{"textLength": 200, "codePoints": 200, "cjkChars": 200}] * 10},
        tokens=200,
        overlap=0,
    )
    pairs = _generated(
        "chunkMarkdown",
        "'\U00020000' * 120",
        {"count": 6, "chunks": [{"replacementChars": 0, "loneSurrogates": 0}] * 6},
        tokens=31,
        overlap=0,
    )
    for vector in (cjk, pairs):
        del vector["input"]["textGenerator"]
    report = run_vectors([split, cjk, pairs])
    assert [(o.id, o.diffs) for o in report.outcomes if not o.passed] == []


def test_search_keyword_reports_each_hits_source_and_place() -> None:
    """manager-search.test.ts checks the hit's source (``results[0]?.source``) beside its
    id and scores; the runner reports it, with the path and lines the row came from."""
    vector = {
        "id": "t-searchKeyword-source",
        "module": "test",
        "function": "searchKeyword(sqlite FTS5)",
        "version": "openclaw v2026.4.12",
        "input": {
            "rows": [
                {
                    "id": "1",
                    "path": "ml.md",
                    "text": "The Transformer architecture powers modern LLMs",
                    "source": "sessions",
                    "startLine": 1,
                    "endLine": 3,
                },
                {"id": "2", "path": "ops.md", "text": "Deploy the database cluster", "source": "memory"},
            ],
            "query": "Transformer",
            "limit": 10,
        },
        "expected": [{"id": "1", "source": "sessions", "path": "ml.md", "startLine": 1, "endLine": 3}],
    }
    report = run_vectors([vector])
    assert [(o.id, o.diffs) for o in report.outcomes if not o.passed] == []
