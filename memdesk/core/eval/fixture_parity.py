"""Compare memdesk's OpenClaw profiles with what real OpenClaw returned (recorded fixtures).

``tools/record_openclaw.py`` runs real OpenClaw releases and writes
``tests/fixtures/openclaw/<version>/<workspace>-<mode>.json``; this module replays
every recorded search through memdesk and classifies each result list:

* ``match``: the recording within what the platform allows (``mismatches`` says what,
  ``tolerance_for`` how close): keyword-only lists are exact (same paths, line ranges,
  order, scores within ``1e-6`` on any CPU); hybrid lists have the same hits in the
  same order with scores within ``EMBEDDING_SCORE_TOLERANCE``, except that hits closer
  than it may come in either order or trade places at the cut-off;
* ``same_set``: the same (path, lines) set in another order or with other scores;
* ``differs``: anything else.

``python -m memdesk.core.eval.fixture_parity [FIXTURES_DIR]`` prints the match
rates per version x workspace x mode (the numbers in the README). Hybrid fixtures
need the GGUF file the recording used (matched by sha256 in the models dir).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import shutil
import sys
import tempfile
import weakref
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memdesk.core.search import near_ties

# Keyword-only scores are FTS5's bm25 through the same arithmetic in Node and Python:
# no model, no SIMD kernel, the same digits on every CPU. Only float round-off is allowed.
KEYWORD_SCORE_TOLERANCE = 1e-6
# Every score that comes from an embedding depends on the CPU and on OpenClaw's own
# jitter: the measured tolerance is stated once, with the near-tie marks the app shows.
EMBEDDING_SCORE_TOLERANCE = near_ties.AGENT_JITTER


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """How close a replay must come to a recording.

    ``score``: the largest difference allowed between a hit's score and the recorded
    one. ``near_ties``: whether two hits whose scores are within ``score`` of each other
    (in both lists) may come in either order, and a hit within ``score`` of the cut-off
    (the last hit of a full list, or ``min_score``) may be replaced by another one there.
    Keyword-only comparisons keep exact order: their ties break the same way everywhere.
    """

    score: float
    near_ties: bool


KEYWORD = Tolerance(KEYWORD_SCORE_TOLERANCE, near_ties=False)
EMBEDDING = Tolerance(EMBEDDING_SCORE_TOLERANCE, near_ties=True)


def tolerance_for(mode: str) -> Tolerance:
    """``fts``/``fts-trigram`` fixtures are keyword-only; ``minilm``/``e5`` are hybrid."""
    return KEYWORD if mode.startswith("fts") else EMBEDDING


@dataclasses.dataclass(frozen=True)
class Row:
    path: str
    start_line: int
    end_line: int
    score: float

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.path, self.start_line, self.end_line)


@dataclasses.dataclass(frozen=True)
class Outcome:
    query: str
    variant: str
    verdict: str  # match | same_set | differs
    expected: tuple[Row, ...]
    actual: tuple[Row, ...]
    reasons: tuple[str, ...] = ()

    def describe(self) -> str:
        def fmt(rows: Sequence[Row]) -> str:
            return ", ".join(f"{r.path}:{r.start_line}-{r.end_line}@{r.score:.6f}" for r in rows[:8])

        why = "".join(f"\n  - {r}" for r in self.reasons)
        return (
            f"{self.query!r} [{self.variant}] {self.verdict}\n  openclaw: {fmt(self.expected)}"
            f"\n  memdesk:  {fmt(self.actual)}{why}"
        )


def _fmt(row: Row) -> str:
    return f"{row.path}:{row.start_line}-{row.end_line}"


def _at_cut_off(
    row: Row, other: Sequence[Row], tol: float, max_results: int | None, min_score: float | None
) -> bool:
    """Whether a hit missing from ``other`` could have been cut from it by a score
    ``tol`` away from its own: ``other`` is full and this hit scores at most ``tol``
    above its last one, or this hit is within ``tol`` of ``min_score``."""
    if max_results is not None and other and len(other) >= max_results and row.score <= other[-1].score + tol:
        return True
    return min_score is not None and row.score < min_score + tol


def mismatches(
    expected: Sequence[Row],
    actual: Sequence[Row],
    tolerance: Tolerance = KEYWORD,
    *,
    max_results: int | None = None,
    min_score: float | None = None,
) -> list[str]:
    """What keeps ``actual`` from matching the recorded ``expected``; empty if it matches.

    Paths and line ranges are always exact. Each hit in both lists must be within
    ``tolerance.score`` of its recorded score. Without ``near_ties`` the lists must be
    the same hits in the same order. With it, two hits may come in either order only
    if their scores are within ``tolerance.score`` of each other in both lists, and a
    hit in one list only is allowed only at the cut-off (see ``_at_cut_off``; pass the
    search's ``max_results`` and ``min_score``, or no hit may be missing).
    """
    tol = tolerance.score
    out: list[str] = []
    if not tolerance.near_ties:
        keys_e, keys_a = [r.key for r in expected], [r.key for r in actual]
        if keys_e != keys_a:
            out.append(f"hits differ: recorded {keys_e}, got {keys_a}")
            return out
    for rows, side in ((expected, "recorded"), (actual, "got")):
        seen: set[tuple[str, int, int]] = set()
        for r in rows:
            if r.key in seen:
                out.append(f"{_fmt(r)} twice in the {side} list")
            seen.add(r.key)
    got = {r.key: r for r in actual}
    want = {r.key: r for r in expected}
    for e in expected:
        a = got.get(e.key)
        if a is None:
            if not _at_cut_off(e, actual, tol, max_results, min_score):
                out.append(f"missing {_fmt(e)}@{e.score:.6f}")
        elif abs(a.score - e.score) > tol:
            out.append(
                f"{_fmt(e)} scored {a.score:.7f}, recorded {e.score:.7f} (off by {a.score - e.score:+.1e} > {tol:.0e})"
            )
    for a in actual:
        if a.key not in want and not _at_cut_off(a, expected, tol, max_results, min_score):
            out.append(f"unexpected {_fmt(a)}@{a.score:.6f}")
    both = [e.key for e in expected if e.key in got]
    rank = {key: i for i, key in enumerate(r.key for r in actual)}
    for i, first in enumerate(both):
        for second in both[i + 1 :]:
            if rank[first] < rank[second]:
                continue
            e1, e2, a1, a2 = want[first], want[second], got[first], got[second]
            if abs(e1.score - e2.score) > tol or abs(a1.score - a2.score) > tol:
                out.append(
                    f"{_fmt(e2)} now ranks above {_fmt(e1)} (recorded {e1.score:.7f} then {e2.score:.7f}, "
                    f"here {a2.score:.7f} then {a1.score:.7f}): not a tie within {tol:.0e}"
                )
    return out


def compare(
    expected: Sequence[Row],
    actual: Sequence[Row],
    tolerance: Tolerance = KEYWORD,
    *,
    max_results: int | None = None,
    min_score: float | None = None,
) -> str:
    if not mismatches(expected, actual, tolerance, max_results=max_results, min_score=min_score):
        return "match"
    return "same_set" if {r.key for r in expected} == {r.key for r in actual} else "differs"


def cosine(got: npt.ArrayLike, recorded: npt.ArrayLike) -> float:
    """Cosine between a vector and the recorded one, in float64."""
    a = np.asarray(got, dtype=np.float64)
    b = np.asarray(recorded, dtype=np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def cosine_shift(got: npt.ArrayLike, recorded: npt.ArrayLike) -> float:
    """The most any cosine between two of the texts moves from the recorded vectors to
    these (rows are the same texts in the same order): what a score built on them moves by."""
    a = np.asarray(got, dtype=np.float64)
    b = np.asarray(recorded, dtype=np.float64)
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return float(np.abs(a @ a.T - b @ b.T).max())


# A vector of the same text must point where the recorded one does to within what another
# CPU's kernels move it: measured 1 - cos <= 1.3e-7 (MiniLM, AVX-512 against the recorded
# AVX2), while feeding the model other tokens costs far more (dropping the [SEP] of a
# MiniLM chunk: 1 - cos of 1.5e-4 at least, 8.8e-4 typically).
VECTOR_COSINE_FLOOR = 1 - 1e-6


def fixture_rows(results: Iterable[dict[str, Any]] | None) -> tuple[Row, ...]:
    return tuple(
        Row(r["path"], int(r["startLine"]), int(r["endLine"]), float(r["score"])) for r in results or []
    )


def load_fixtures(root: Path) -> list[tuple[Path, dict[str, Any]]]:
    out = []
    for path in sorted(root.glob("*/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "searches" in data:
            out.append((path, data))
    return out


def workspace_for(fixture: dict[str, Any], root: Path, repo: Path) -> Path:
    if fixture["workspace"] == "example":
        return repo / "examples" / "workspace"
    if fixture["workspace"] == "sessions":
        return Path(root, "workspaces", "sessions", "workspace")
    return Path(root, "workspaces", fixture["workspace"])


def recorded_sessions(fixture: dict[str, Any], root: Path) -> tuple[str, Path, Path] | None:
    """For the sessions recording: the agent database OpenClaw left (its imported
    transcripts) and a copy of the sessions folder with the archive mtime it ran with."""
    imported = fixture.get("session_import")
    if not imported or "agent_index" not in fixture:
        return None
    import os
    import shutil

    folder = Path(tempfile.mkdtemp(prefix="memdesk-parity-sessions-")) / "sessions"
    shutil.copytree(Path(root, "workspaces", "sessions", "state", "agents", "main", "sessions"), folder)
    mtime_ns = int(imported["archive_mtime_ms"]) * 1_000_000
    for archive in folder.glob("*.jsonl.*.*"):
        os.utime(archive, ns=(mtime_ns, mtime_ns))
    return ("main", Path(root, fixture["agent_index"]["fixture"]), folder)


def find_model(sha256: str | None) -> Path | None:
    """The GGUF file with this sha256 in memdesk's models dir, if it is there."""
    if not sha256:
        return None
    from memdesk.core import paths
    from memdesk.core.embed import model_digest

    for path in sorted(paths.models_dir().glob("*.gguf")):
        if model_digest.file_sha256(path) == sha256:
            return path
    return None


Searcher = Callable[[str, dict[str, Any]], tuple[Row, ...]]


def recorded_settings(fixture: dict[str, Any], root: Path | None = None) -> Any:
    """The agent settings (tokenizer, extraPaths, chunking) a recording ran with."""
    from memdesk.core.agent import config as agent_config
    from memdesk.core.openclaw import config as oc_config
    from memdesk.core.search.profiles import runner_common as profile_common

    config = fixture.get("config") or {}
    if str(fixture["openclaw_version"]).startswith("2026.4"):
        ms = (config.get("agents") or {}).get("defaults", {}).get("memorySearch") or {}
        chunking = ms.get("chunking") or {}
        return profile_common.AgentSettings(
            "trigram"
            if ((ms.get("store") or {}).get("fts") or {}).get("tokenizer") == "trigram"
            else "unicode61",
            tuple(agent_config.ExtraPath(e) for e in ms.get("extraPaths") or []),
            "the recording's config",
            chunk_tokens=int(chunking.get("tokens", oc_config.DEFAULT_CHUNK_TOKENS)),
            chunk_overlap=int(chunking.get("overlap", oc_config.DEFAULT_CHUNK_OVERLAP)),
        )
    search = (config.get("memory") or {}).get("search", {})
    tokenizer = ((search.get("store") or {}).get("fts") or {}).get("tokenizer", "unicode61")
    extra = tuple(
        agent_config.ExtraPath(e)
        if isinstance(e, str)
        else agent_config.ExtraPath(e["path"], e.get("pattern"))
        for e in search.get("extraPaths") or []
    )
    sessions = (
        recorded_sessions(fixture, root)
        if root is not None and "sessions" in (search.get("sources") or [])
        else None
    )
    return profile_common.AgentSettings(
        "trigram" if tokenizer == "trigram" else "unicode61",
        extra,
        "the recording's config",
        sessions=sessions,
    )


def app_engine(fixture: dict[str, Any], workspace: Path, model: Path | None, root: Path | None = None) -> Any:
    """The ``Engine`` the GUI and CLI use, set up as the app sets itself up on this
    workspace: memdesk's own embedder and chunking for its main index; the profile's
    own index (the release's chunking, files and embedding recipe) for the search.
    Only the agent settings come from the recording instead of this machine's
    ``openclaw.json``."""
    from memdesk.core import engine as engine_mod
    from memdesk.core.embed import gguf_embedder

    tmp = Path(tempfile.mkdtemp(prefix="memdesk-parity-"))
    base = gguf_embedder.GgufEmbedder(model) if model is not None else None
    # Not synced: both profiles search their own index, never the main one's chunks
    # (tests/cli/test_search_openclaw.py runs the synced app end to end).
    eng = engine_mod.Engine(workspace, embedder=base, db_path=tmp / "index.sqlite", history=False)
    # Its index folder goes with it (or at exit): each replay left one in the temp dir.
    weakref.finalize(eng, shutil.rmtree, tmp, True)
    eng.pin_agent_settings(recorded_settings(fixture, root))
    return eng


def profile_for(fixture: dict[str, Any]) -> Any:
    from memdesk.core.search import settings as settings_mod

    version = str(fixture["openclaw_version"])
    return settings_mod.OPENCLAW_2026_4 if version.startswith("2026.4") else settings_mod.OPENCLAW_2026_9


def search_settings(fixture: dict[str, Any], search: dict[str, Any]) -> Any:
    """The settings one recorded search ran with: the release's defaults, or the wide
    variant's ``--max-results``/``--min-score``."""
    from memdesk.core.search import settings as settings_mod

    settings = settings_mod.SearchSettings.defaults(profile_for(fixture))
    if search.get("max_results") is not None:
        settings = settings.replace(
            max_results=int(search["max_results"]), min_score=float(search["min_score"])
        )
    return settings


def app_searcher(
    fixture: dict[str, Any], workspace: Path, model: Path | None, root: Path | None = None
) -> Searcher:
    """Replays searches through the app's own profile (the ``Engine`` the GUI and CLI use)."""
    eng = app_engine(fixture, workspace, model, root)
    now = dt.datetime.fromtimestamp(float(fixture["now_ms"]) / 1000, tz=dt.UTC)

    def run(query: str, search: dict[str, Any]) -> tuple[Row, ...]:
        result = eng.search(query, search_settings(fixture, search), now=now)
        return tuple(Row(h.path, h.start_line, h.end_line, h.score) for h in result.hits)

    return run


def judge(fixture: dict[str, Any], search: dict[str, Any], actual: Sequence[Row]) -> Outcome:
    """One replayed search against its recording, with the fixture's mode's tolerance."""
    expected = fixture_rows(search.get("results"))
    settings = search_settings(fixture, search)
    tolerance = tolerance_for(str(fixture["mode"]))
    cut = int(settings.max_results)
    floor = float(settings.min_score)
    reasons = tuple(mismatches(expected, actual, tolerance, max_results=cut, min_score=floor))
    verdict = compare(expected, actual, tolerance, max_results=cut, min_score=floor)
    return Outcome(search["query"], search["variant"], verdict, expected, tuple(actual), reasons)


def replay(
    fixture: dict[str, Any], workspace: Path, model: Path | None, root: Path | None = None
) -> list[Outcome]:
    run = app_searcher(fixture, workspace, model, root)
    return [judge(fixture, search, run(search["query"], search)) for search in fixture["searches"]]


def summarize(outcomes: Sequence[Outcome]) -> dict[str, int]:
    return {
        "queries": len(outcomes),
        "match": sum(o.verdict == "match" for o in outcomes),
        "same_set": sum(o.verdict in ("match", "same_set") for o in outcomes),
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    verbose = "-v" in args
    args = [a for a in args if a != "-v"]
    repo = Path(__file__).resolve().parents[3]
    root = Path(args[0]) if args else repo / "tests" / "fixtures" / "openclaw"
    for path, fixture in load_fixtures(root):
        if fixture.get("index_failed"):
            print(f"{path.relative_to(root)}: OpenClaw's reindex failed ({fixture['index_failed']})")
            continue
        model = find_model(fixture.get("model_sha256"))
        if not fixture["mode"].startswith("fts") and model is None:
            print(f"{path.relative_to(root)}: skipped (model {fixture['model']} not built)")
            continue
        outcomes = replay(fixture, workspace_for(fixture, root, repo), model, root)
        for variant in sorted({o.variant for o in outcomes}):
            part = [o for o in outcomes if o.variant == variant]
            s = summarize(part)
            print(
                f"{fixture['openclaw_version']} {fixture['workspace']} {fixture['mode']} {variant}: "
                f"{s['match']}/{s['queries']} match, {s['same_set']}/{s['queries']} same set"
            )
            if verbose:
                for o in part:
                    if o.verdict != "match":
                        print("  " + o.describe().replace("\n", "\n  "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
