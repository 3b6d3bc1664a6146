"""memdesk's OpenClaw profiles against what real OpenClaw returned (tests/fixtures/openclaw).

The fixtures were recorded by ``tools/record_openclaw.py`` from the real npm releases;
this test needs no npm or Node. Every recorded search must match (``fp.mismatches``)
except the ones listed in ``KNOWN``, each with the reason; a listed search that starts
matching fails too, so the list stays true. Keyword-only fixtures match exactly (paths,
lines, order, scores within 1e-6: no model, the same digits on every CPU). Hybrid
fixtures (the openclaw recipes embed one sequence per call, flash attention as each
release's runtime sets it: off for 2026.4, on for 2026.9's llama-server) have the same paths and lines with scores within
``fp.EMBEDDING_SCORE_TOLERANCE``, and only hits that close to each other may swap:
llama.cpp's float kernels depend on the CPU it is built for (the recording's kernel
class is each hybrid fixture's ``recorded_on``). They need the GGUF build they
were recorded with (matched by sha256; a fixture of another build fails until re-recorded).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memdesk.core.eval import fixture_parity as fp

REPO = Path(__file__).resolve().parents[3]
ROOT = REPO / "tests" / "fixtures" / "openclaw"
FIXTURES = fp.load_fixtures(ROOT)

# (version, workspace, mode, variant, query) -> why memdesk differs from that recording.
KNOWN: dict[tuple[str, str, str, str, str], str] = {}
MODEL_FIXTURES = {"minilm": "minilm_path", "e5": "e5_path"}  # tests/conftest.py builds these


def _params() -> list[Any]:
    out = []
    for path, fixture in FIXTURES:
        if fixture.get("index_failed"):
            continue  # no index, nothing to search: tests/core/agent/test_doctor.py predicts these
        marks = [pytest.mark.model] if not fixture["mode"].startswith("fts") else []
        out.append(pytest.param((path, fixture), id=str(path.relative_to(ROOT).with_suffix("")), marks=marks))
    return out


def test_both_versions_are_recorded_keyword_only() -> None:
    have = {(f["openclaw_version"], f["workspace"], f["mode"]) for _, f in FIXTURES}
    for version in ("2026.4.12", "2026.9.6"):
        for workspace in ("example", "generated"):
            assert (version, workspace, "fts") in have


@pytest.mark.parametrize("item", _params())
def test_profile_matches_recording(item: tuple[Path, dict[str, Any]], request: pytest.FixtureRequest) -> None:
    _, fixture = item
    model: Path | None = None
    if not fixture["mode"].startswith("fts"):
        from memdesk.core.embed import model_digest

        model = request.getfixturevalue(MODEL_FIXTURES[fixture["mode"]])
        # The recording used memdesk's own GGUF build (deterministic from pinned packages);
        # another build means other vectors, so the fixture is stale: that fails rather
        # than skips, or a model change would silently switch parity off.
        built = model_digest.file_sha256(model)
        assert built == fixture["model_sha256"], (
            f"recorded with GGUF {fixture['model_sha256'][:12]}, this build is {built[:12]}: "
            "re-record with tools/record_openclaw.py"
        )
    outcomes = fp.replay(fixture, fp.workspace_for(fixture, ROOT, REPO), model, ROOT)
    assert outcomes, "a fixture without searches"
    unexpected = []
    for o in outcomes:
        key = (fixture["openclaw_version"], fixture["workspace"], fixture["mode"], o.variant, o.query)
        if key in KNOWN:
            if o.verdict == "match":
                unexpected.append(f"now matches, drop it from KNOWN: {key}")
        elif o.verdict != "match":
            unexpected.append(o.describe())
    assert not unexpected, "\n".join(unexpected)


def _failed_params() -> list[Any]:
    return [
        pytest.param(
            (path, fixture), id=str(path.relative_to(ROOT).with_suffix("")), marks=[pytest.mark.model]
        )
        for path, fixture in FIXTURES
        if fixture.get("index_failed")
    ]


def test_every_failed_reindex_is_recorded_for_both_releases() -> None:
    failed = {(f["openclaw_version"], f["mode"]) for _, f in FIXTURES if f.get("index_failed")}
    assert failed == {(v, m) for v in ("2026.4.12", "2026.9.6") for m in ("minilm", "e5")}


@pytest.mark.parametrize("item", _failed_params())
def test_profile_finds_nothing_where_the_agents_reindex_failed(
    item: tuple[Path, dict[str, Any]], request: pytest.FixtureRequest
) -> None:
    """Real OpenClaw over the example workspace with a 512-token model: the embedding of
    an over-context chunk failed and the whole reindex was discarded (``memory status``:
    0 files, 0 chunks; 2026.9.6's CLI search afterwards answered no results). The app's
    profile for that release finds nothing either, and says why."""
    import datetime as dt

    from memdesk.core.embed import model_digest
    from memdesk.core.search import settings as settings_mod

    _, fixture = item
    assert fixture["status"][0]["status"]["chunks"] == 0 and not fixture["searches"]
    model = request.getfixturevalue(MODEL_FIXTURES[fixture["mode"]])
    assert model_digest.file_sha256(model) == fixture["model_sha256"]
    after = fixture.get("search_after_failure")
    query = after["query"] if after else "deploy window"
    if after:  # recorded for 2026.9.6: the agent's memory search returned nothing
        assert after["rc"] == 0 and after["results"] == []
    eng = fp.app_engine(fixture, fp.workspace_for(fixture, ROOT, REPO), model, ROOT)
    profile = fp.profile_for(fixture)
    try:
        result = eng.search(
            query,
            settings_mod.SearchSettings.defaults(profile),
            now=dt.datetime.fromtimestamp(fixture["now_ms"] / 1000, tz=dt.UTC),
        )
        # What the window's mode line reads: the profile's index is empty, and why.
        failure = eng.profile_failure(profile)
    finally:
        eng.close()
    assert list(result.hits) == []
    # Nothing was searched: the pool must not pass for a hybrid search that found nothing.
    assert result.pool.index_failed
    assert failure is not None and failure.context == 512
    version = ".".join(str(fixture["openclaw_version"]).split(".")[:2])
    notice = result.pool.notice
    assert notice and f"OpenClaw {version} cannot index" in notice
    rejected = (fixture.get("embedded_texts") or {}).get("rejected_over_context")
    if rejected:  # the stand-in server logged the token count of each refused input
        assert any(f"a chunk is {r['tokens']} tokens" in notice for r in rejected)
        assert failure.tokens in {r["tokens"] for r in rejected}


def test_a_replays_engine_leaves_no_index_folder_behind() -> None:
    """Each replay's engine keeps its index in a temporary folder of its own; once the
    engine is closed and gone, so is the folder (replays had left hundreds in /tmp)."""
    import gc

    path, fixture = next((p, f) for p, f in FIXTURES if f["mode"] == "fts" and not f.get("index_failed"))
    eng = fp.app_engine(fixture, fp.workspace_for(fixture, ROOT, REPO), None, ROOT)
    folder = eng.db_path.parent
    try:
        assert folder.is_dir() and folder.name.startswith("memdesk-parity-"), path
    finally:
        eng.close()
    del eng
    gc.collect()
    assert not folder.exists()
