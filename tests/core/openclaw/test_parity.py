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
