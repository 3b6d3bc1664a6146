"""Compare memdesk's OpenClaw profiles with what real OpenClaw returned (recorded fixtures).

``tools/record_openclaw.py`` runs real OpenClaw releases and writes
``tests/fixtures/openclaw/<version>/<workspace>-<mode>.json``; this module replays
every recorded search through memdesk and classifies each result list:

* ``exact``: same paths, line ranges and order, every score within ``1e-6``;
* ``same_set``: the same (path, lines) set in another order or with other scores;
* ``differs``: anything else.

``python -m memdesk.core.openclaw.fixture_parity [FIXTURES_DIR]`` prints the match
rates per version x workspace x mode (the numbers in the README). Hybrid fixtures
need the GGUF file the recording used (matched by sha256 in the models dir).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

SCORE_TOLERANCE = 1e-6


@dataclasses.dataclass(frozen=True)
class Row:
    path: str
    start_line: int
    end_line: int
    score: float


@dataclasses.dataclass(frozen=True)
class Outcome:
    query: str
    variant: str
    verdict: str  # exact | same_set | differs
    expected: tuple[Row, ...]
    actual: tuple[Row, ...]

    def describe(self) -> str:
        def fmt(rows: Sequence[Row]) -> str:
            return ", ".join(f"{r.path}:{r.start_line}-{r.end_line}@{r.score:.6f}" for r in rows[:8])

        return f"{self.query!r} [{self.variant}] {self.verdict}\n  openclaw: {fmt(self.expected)}\n  memdesk:  {fmt(self.actual)}"


def compare(expected: Sequence[Row], actual: Sequence[Row], tol: float = SCORE_TOLERANCE) -> str:
    keys_e = [(r.path, r.start_line, r.end_line) for r in expected]
    keys_a = [(r.path, r.start_line, r.end_line) for r in actual]
    if keys_e == keys_a and all(abs(e.score - a.score) <= tol for e, a in zip(expected, actual, strict=True)):
        return "exact"
    return "same_set" if set(keys_e) == set(keys_a) else "differs"


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
    from memdesk.core.embed import gguf_embedder

    for path in sorted(paths.models_dir().glob("*.gguf")):
        if gguf_embedder.file_sha256(path) == sha256:
            return path
    return None


Searcher = Callable[[str, dict[str, Any]], tuple[Row, ...]]


def recorded_settings(fixture: dict[str, Any], root: Path | None = None) -> Any:
    """The agent settings (tokenizer, extraPaths, chunking) a recording ran with."""
    from memdesk.core.agent import config as agent_config
    from memdesk.core.openclaw import config as oc_config
    from memdesk.core.openclaw import profile_common

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
    eng = engine_mod.Engine(workspace, embedder=base, db_path=tmp / "index.sqlite")
    eng.pin_agent_settings(recorded_settings(fixture, root))
    return eng


def profile_for(fixture: dict[str, Any]) -> Any:
    from memdesk.core.search import settings as settings_mod

    version = str(fixture["openclaw_version"])
    return settings_mod.OPENCLAW_2026_4 if version.startswith("2026.4") else settings_mod.OPENCLAW_2026_9


def app_searcher(
    fixture: dict[str, Any], workspace: Path, model: Path | None, root: Path | None = None
) -> Searcher:
    """Replays searches through the app's own profile (the ``Engine`` the GUI and CLI use)."""
    from memdesk.core.search import settings as settings_mod

    eng = app_engine(fixture, workspace, model, root)
    profile = profile_for(fixture)
    now = dt.datetime.fromtimestamp(float(fixture["now_ms"]) / 1000, tz=dt.UTC)

    def run(query: str, search: dict[str, Any]) -> tuple[Row, ...]:
        settings = settings_mod.SearchSettings.defaults(profile)
        if search.get("max_results") is not None:
            settings = settings.replace(
                max_results=int(search["max_results"]), min_score=float(search["min_score"])
            )
        result = eng.search(query, settings, now=now)
        return tuple(Row(h.path, h.start_line, h.end_line, h.score) for h in result.hits)

    return run


def replay(
    fixture: dict[str, Any], workspace: Path, model: Path | None, root: Path | None = None
) -> list[Outcome]:
    run = app_searcher(fixture, workspace, model, root)
    out = []
    for search in fixture["searches"]:
        expected = fixture_rows(search.get("results"))
        actual = run(search["query"], search)
        out.append(Outcome(search["query"], search["variant"], compare(expected, actual), expected, actual))
    return out


def summarize(outcomes: Sequence[Outcome]) -> dict[str, int]:
    return {
        "queries": len(outcomes),
        "exact": sum(o.verdict == "exact" for o in outcomes),
        "same_set": sum(o.verdict in ("exact", "same_set") for o in outcomes),
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
                f"{s['exact']}/{s['queries']} exact, {s['same_set']}/{s['queries']} same set"
            )
            if verbose:
                for o in part:
                    if o.verdict != "exact":
                        print("  " + o.describe().replace("\n", "\n  "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
