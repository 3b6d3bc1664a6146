"""OpenClaw 2026.9's builtin memory pipeline: indexing and search, ported from the release.

Read from the ``openclaw@2026.9.6`` npm package's ``dist`` (the bundle keeps
``//#region <source path>`` markers: ``extensions/memory-core/src/memory/*`` and
``packages/memory-host-sdk/src/host/*``); ``docs/openclaw-versions.md`` lists what
changed since 2026.4 and where each rule lives. What this module reproduces:

* files: ``MEMORY.md`` (exact name), ``USER.md``, ``memory/**/*.md`` (sorted);
* chunking v5 (400/80 weighted tokens, new CJK weights, a tail-of-line overlap),
  per bullet/heading entry in ``MEMORY.md`` and ``USER.md``, over the text with
  line-scoped ``<!-- importance|project|trigger: … -->`` carriers removed;
* recall metadata per entry: importance (curated roots only, lines ending in
  ``-->``), project keys (any memory file but ``USER.md``; a malformed annotation
  hides the entry), triggers;
* the keyword leg: body FTS (AND query, bm25 → ``r/(1+r)``, lexical boost on every
  hit), a separate path FTS index with exact path / basename / stem tiers, and the
  extracted-keyword fallback when the full query finds fewer than the candidate
  pool;
* the hybrid merge (0.7/0.3), temporal decay (always on, 30 days, dated files at
  any depth incl. ``-slug`` names), the importance multiplier ``0.75 + 0.05×N``,
  the project multiplier (1.15 / 0.9 for active projects), MMR (λ 0.7, always on)
  and the result selection that back-fills keyword-only hits under ``minScore``.

The index lives in an SQLite connection (``core/base/sqlite.py``) with the release's
own table names, so ``bm25()`` sees the same rows OpenClaw's does. The trigram
tokenizer and ``extraPaths`` (via ``Index(files=...)``) are reproduced, and session
transcripts (``Index(sessions=...)``, read by ``sessions_2026_9``); multimodal files are
not (see the doc).

One module per step, named after the release's source files: ``weights`` (cjk-chars),
``annotations`` (curated-annotations), ``chunking`` (markdown-chunks), ``files``
(listMemoryFiles), ``index``, ``query`` (query plans and keyword scoring),
``keyword_hits`` and ``order`` (the keyword hit and JS sort semantics), ``searcher``
(the orchestration), ``decay``, ``boosts`` (importance, projects), ``ranking`` (the
merge), ``mmr`` and ``results`` (the result type and its selection); ``constants``
holds the fixed numbers. Steps whose code did not change since 2026.4 come from the
2026.4 modules of this package (``text``, ``ids``, ``fts_query.build_fts_query``,
``hybrid.bm25_rank_to_score``, ``keywords``, ``decay``'s path rules and curve, the MMR
tokenizer). Import this package, not its modules: its names are the API.
"""

from __future__ import annotations

from ..fts_query import build_fts_query  # unchanged since 2026.4
from .annotations import (
    Annotation,
    RecallMetadata,
    extract_recall_metadata,
    normalize_project_key,
    scan_annotations,
    strip_annotation_carriers,
)
from .boosts import importance_multiplier, project_multiplier
from .chunking import Chunk, chunk_markdown
from .constants import (
    CANDIDATE_UNIVERSE,
    CHUNK_OVERLAP,
    CHUNK_TOKENS,
    DAY_MS,
    EXACT_PATH_CANDIDATE_LIMIT,
    HALF_LIFE_DAYS,
    INVALID_PROJECT_KEY,
    KEYWORD_FALLBACK_TERM_LIMIT,
    MAX_RESULTS,
    MIN_SCORE,
    MMR_LAMBDA,
    SNIPPET_MAX_CHARS,
    TEXT_WEIGHT,
    VECTOR_WEIGHT,
    VERSION,
)
from .decay import dated_path_ms, decay_multiplier, is_evergreen
from .files import list_memory_files
from .index import SCHEMA, EmbedFn, Index, IndexedChunk, Tokenizer, prepare_file_chunks
from .keyword_hits import KeywordHit
from .mmr import mmr_rerank, mmr_tokens
from .query import exact_path_matcher, plan_keyword_search, score_fallback_keyword_result
from .ranking import exact_path_tie_score, merge_hybrid, rank_keyword_only, rank_vector_only
from .results import Result, select, select_hybrid, select_keyword_only
from .searcher import Searcher
from .weights import estimate_string_chars

__all__ = [
    "CANDIDATE_UNIVERSE",
    "CHUNK_OVERLAP",
    "CHUNK_TOKENS",
    "DAY_MS",
    "EXACT_PATH_CANDIDATE_LIMIT",
    "HALF_LIFE_DAYS",
    "INVALID_PROJECT_KEY",
    "KEYWORD_FALLBACK_TERM_LIMIT",
    "MAX_RESULTS",
    "MIN_SCORE",
    "MMR_LAMBDA",
    "SCHEMA",
    "SNIPPET_MAX_CHARS",
    "TEXT_WEIGHT",
    "VECTOR_WEIGHT",
    "VERSION",
    "Annotation",
    "Chunk",
    "EmbedFn",
    "Index",
    "IndexedChunk",
    "KeywordHit",
    "RecallMetadata",
    "Result",
    "Searcher",
    "Tokenizer",
    "build_fts_query",
    "chunk_markdown",
    "dated_path_ms",
    "decay_multiplier",
    "estimate_string_chars",
    "exact_path_matcher",
    "exact_path_tie_score",
    "extract_recall_metadata",
    "importance_multiplier",
    "is_evergreen",
    "list_memory_files",
    "merge_hybrid",
    "mmr_rerank",
    "mmr_tokens",
    "normalize_project_key",
    "plan_keyword_search",
    "prepare_file_chunks",
    "project_multiplier",
    "rank_keyword_only",
    "rank_vector_only",
    "scan_annotations",
    "score_fallback_keyword_result",
    "select",
    "select_hybrid",
    "select_keyword_only",
    "strip_annotation_carriers",
]
