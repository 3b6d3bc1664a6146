"""One OpenClaw pipeline: the app's ``openclaw-2026.4`` ranking equals the port, pool for pool.

The port side composes the functions the parity runner checks against OpenClaw's
own vectors (``merge_hybrid_results`` + ``hybrid_select``; ``apply_temporal_decay``
+ ``select_fts_only``), with their reference MMR and their own date rules; the app
side is ``ranking.rank`` on the same candidate pool. Hits and scores must be
identical, on generated pools and on real ones fetched from the example workspace.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from memdesk.core import engine
from memdesk.core.openclaw import hybrid as oc_hybrid
from memdesk.core.openclaw import keyword_search as oc_kw
from memdesk.core.openclaw.decay import apply_temporal_decay
from memdesk.core.openclaw.ids import chunk_id
from memdesk.core.search import dates, ranking
from memdesk.core.search.hits import Candidate, CandidatePool, Mode
from memdesk.core.search.settings import OPENCLAW_2026_4, SearchSettings

NOW = dt.datetime(2026, 12, 1, 9, 30, tzinfo=dt.UTC)
GENERATED = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw" / "workspaces" / "generated"
NOW_MS = NOW.timestamp() * 1000

Row = tuple[str, int, int, float]  # path, start line, end line, score


def _port_hybrid(pool: CandidatePool, settings: SearchSettings) -> list[Row]:
    s = settings.clamped()
    vw, tw = s.normalized_weights

    def hit(c: Candidate, **scores: float) -> oc_hybrid.SearchHit:
        return oc_hybrid.SearchHit(
            c.chunk_id, c.path, c.start_line, c.end_line, c.source, c.snippet, **scores
        )

    vector = [hit(c, vector_score=c.vector_score) for c in pool.candidates if c.vector_score is not None]
    keyword = [hit(c, text_score=c.text_score) for c in pool.candidates if c.text_score is not None]
    options = oc_hybrid.HybridOptions(
        vector_weight=vw,
        text_weight=tw,
        mmr_enabled=s.mmr,
        mmr_lambda=s.mmr_lambda,
        decay_enabled=s.decay,
        half_life_days=s.half_life_days,
        now_ms=NOW_MS,
    )
    merged = oc_hybrid.merge_hybrid_results(vector, keyword, options)
    chosen = oc_hybrid.hybrid_select(
        merged, keyword, min_score=s.min_score, max_results=s.max_results, text_weight=tw
    )
    return [(r.path, r.start_line, r.end_line, r.score) for r in chosen]


def _port_fts_only(pool: CandidatePool, settings: SearchSettings) -> list[Row]:
    s = settings.clamped()
    rows = [
        oc_kw.KeywordRow(
            c.chunk_id,
            c.path,
            c.source,
            c.start_line,
            c.end_line,
            c.snippet,
            c.text,
            0.0,
            c.text_score or 0.0,
            c.text_score or 0.0,
        )
        for c in pool.candidates
    ]
    rows = apply_temporal_decay(rows, enabled=s.decay, half_life_days=s.half_life_days, now_ms=NOW_MS)
    chosen = oc_kw.select_fts_only(rows, max_results=s.max_results, min_score=s.min_score)
    return [(r.path, r.start_line, r.end_line, r.score) for r in chosen]


def _app(pool: CandidatePool, settings: SearchSettings) -> list[Row]:
    return [(h.path, h.start_line, h.end_line, h.score) for h in ranking.rank(pool, settings, now=NOW)]


def _port(pool: CandidatePool, settings: SearchSettings) -> list[Row]:
    return _port_fts_only(pool, settings) if pool.mode == "fts" else _port_hybrid(pool, settings)


# -- generated pools ---------------------------------------------------------------------
# Memory-source paths only: dated notes decay from their name, the rest are evergreen,
# so neither side needs file modification times.
PATHS = [
    "MEMORY.md",
    "memory/topics/auth.md",
    "memory/2026-05-01.md",
    "memory/2026-11-28.md",
    "memory/2025-12-31.md",
]
WORDS = ["vector", "store", "oauth", "鉴权", "方案", "deploy", "sqlite", "team", "周会"]

snippet_st = st.lists(st.sampled_from(WORDS), min_size=0, max_size=8).map(" ".join)
score_st = st.floats(0.0, 1.0, allow_nan=False)


@st.composite
def pools(draw: st.DrawFn) -> CandidatePool:
    mode = draw(st.sampled_from(["hybrid", "fts"]))
    n = draw(st.integers(0, 25))
    cands = []
    for i in range(n):
        path = draw(st.sampled_from(PATHS))
        text = draw(snippet_st)
        if mode == "fts":
            vector, textscore = None, draw(score_st)
        else:
            vector = draw(st.one_of(st.none(), st.floats(-1.0, 1.0, allow_nan=False)))
            textscore = draw(score_st) if vector is None else draw(st.one_of(st.none(), score_st))
        cands.append(
            Candidate(
                # Real chunk ids hash the text: the ranking caches similarity by id.
                chunk_id=chunk_id("memory", path, 1 + 10 * i, 5 + 10 * i, text, "test"),
                path=path,
                source="memory",
                start_line=1 + 10 * i,
                end_line=5 + 10 * i,
                text=text,
                snippet=text,
                vector_score=vector,
                text_score=textscore,
                date=dates.decay_date(path, profile=OPENCLAW_2026_4, workspace=Path("."), source="memory"),
            )
        )
    # Pool order as the legs build it: vector hits first, then keyword-only hits.
    cands.sort(key=lambda c: c.vector_score is None)
    return CandidatePool(query="q", mode=mode, profile=OPENCLAW_2026_4, candidates=tuple(cands))


settings_st = st.builds(
    lambda vw, mmr, lam, decay, hl, min_score, max_results: SearchSettings.defaults(OPENCLAW_2026_4).replace(
        vector_weight=vw,
        text_weight=round(1 - vw, 2),
        mmr=mmr,
        mmr_lambda=lam,
        decay=decay,
        half_life_days=hl,
        min_score=min_score,
        max_results=max_results,
    ),
    st.sampled_from([0.0, 0.3, 0.5, 0.7, 1.0]),
    st.booleans(),
    st.sampled_from([0.0, 0.3, 0.7, 0.85, 1.0]),
    st.booleans(),
    st.sampled_from([7, 30, 180]),
    st.sampled_from([0.0, 0.2, 0.35, 0.6]),
    st.integers(1, 20),
)


@hyp_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pool=pools(), settings=settings_st)
def test_generated_pools_rank_identically(pool: CandidatePool, settings: SearchSettings) -> None:
    assert _app(pool, settings) == _port(pool, settings)


# -- real pools -----------------------------------------------------------------------------
QUERIES = [
    "vector store decision",
    "what did we decide about the database",
    "鉴权方案",
    "deploy cadence",
    "Lin Wei",
    "harbor project status",
    "vendor pitch",
]
REAL_SETTINGS = [
    SearchSettings.defaults(OPENCLAW_2026_4),
    SearchSettings.defaults(OPENCLAW_2026_4).replace(mmr=True, decay=True, min_score=0.0, max_results=20),
    SearchSettings.defaults(OPENCLAW_2026_4).replace(
        mmr=True, mmr_lambda=0.3, vector_weight=0.4, text_weight=0.6
    ),
]


def _real_pools(eng: engine.Engine, mode: Mode) -> list[CandidatePool]:
    eng.sync()
    return [
        eng.fetch_candidates(q, s.replace(candidate_multiplier=8), mode=mode)
        for q in QUERIES
        for s in REAL_SETTINGS[:1]
    ]


def _check_real(pools: list[CandidatePool]) -> None:
    assert any(p.candidates for p in pools), "the example workspace must give candidates"
    for pool in pools:
        for settings in REAL_SETTINGS:
            app = _app(pool, settings)
            assert app == _port(pool, settings), (pool.query, settings)


def test_real_keyword_only_pools_rank_identically(example_workspace: Path) -> None:
    eng = engine.Engine.open(example_workspace, model=None)
    try:
        _check_real(_real_pools(eng, "fts"))
    finally:
        eng.close()


def test_real_hybrid_pools_rank_identically(tmp_path: Path, minilm_path: Path) -> None:
    # The generated workspace: on the example one OpenClaw 2026.4's 400/80 chunks exceed
    # MiniLM's context, its reindex fails and the profile (rightly) has no candidates.
    eng = engine.Engine.open(GENERATED, model=minilm_path, db_path=tmp_path / "index.sqlite")
    try:
        _check_real(_real_pools(eng, "hybrid"))
    finally:
        eng.close()


def _failed_recordings() -> list[str]:
    root = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw" / "2026.4.12"
    return sorted(
        str(json.loads(p.read_text(encoding="utf-8"))["mode"])
        for p in root.glob("example-*.json")
        if json.loads(p.read_text(encoding="utf-8")).get("index_failed")
    )


@pytest.mark.parametrize("mode", _failed_recordings())
def test_example_workspace_predicts_the_failed_reindex(
    example_workspace: Path, mode: str, request: pytest.FixtureRequest
) -> None:
    """400/80 chunks of the example workspace are over MiniLM's and e5's 512 tokens:
    node-llama-cpp throws, OpenClaw 2026.4 keeps no index and finds nothing (recorded in
    tests/fixtures/openclaw/2026.4.12/example-<mode>.json); the profile says so."""
    model = request.getfixturevalue({"minilm": "minilm_path", "e5": "e5_path"}[mode])
    eng = engine.Engine.open(example_workspace, model=model)
    try:
        pool = eng.fetch_candidates("vector store decision", SearchSettings.defaults(OPENCLAW_2026_4))
        assert pool.candidates == ()
        assert pool.notice is not None and "tokens, over its 512-token context" in pool.notice
        # memdesk's own profile is not affected: its index chunks for the model's context.
        eng.sync()
        assert eng.fetch_candidates("vector store decision", SearchSettings.defaults("memdesk")).candidates
    finally:
        eng.close()
