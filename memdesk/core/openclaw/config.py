"""``resolveMemorySearchConfig`` normalization (``src/agents/memory-search.ts``).

Input is OpenClaw's own nested ``memorySearch`` shape (camelCase keys), once for
``agents.defaults`` and once per agent; a per-agent value wins key by key
(``??`` semantics: None means unset), except ``extraPaths``, which concatenate.
Clamps follow JavaScript ``Math.min``/``Math.max``, so NaN propagates where it
would in OpenClaw.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .text import js_trim

# OpenClaw's memory-search defaults: the one place they are stated (the port's
# functions, the OpenClaw ranking profiles and config import/export use these).
DEFAULT_CHUNK_TOKENS = 400
DEFAULT_CHUNK_OVERLAP = 80
DEFAULT_MAX_RESULTS = 6
DEFAULT_MIN_SCORE = 0.35
DEFAULT_VECTOR_WEIGHT = 0.7
DEFAULT_TEXT_WEIGHT = 0.3
DEFAULT_CANDIDATE_MULTIPLIER = 4
DEFAULT_MMR_LAMBDA = 0.7
DEFAULT_HALF_LIFE_DAYS = 30
DEFAULT_WATCH_DEBOUNCE_MS = 1500


def _js_min(a: float, b: float) -> float:
    return math.nan if math.isnan(a) or math.isnan(b) else min(a, b)


def _js_max(a: float, b: float) -> float:
    return math.nan if math.isnan(a) or math.isnan(b) else max(a, b)


def clamp_number(value: float, lo: float, hi: float) -> float:
    """``Math.max(lo, Math.min(hi, value))``."""
    return _js_max(lo, _js_min(hi, float(value)))


def clamp_int(value: float, lo: int, hi: int) -> float:
    """``Math.max(lo, Math.min(hi, Math.floor(value)))``."""
    v = float(value)
    floored = math.floor(v) if math.isfinite(v) else v
    return _js_max(lo, _js_min(hi, floored))


def normalize_weights(vw: float, tw: float) -> tuple[float, float]:
    """The hybrid weights divided by their sum; a sum of 0 (or NaN) gives the defaults."""
    total = vw + tw
    if total > 0:
        return vw / total, tw / total
    return DEFAULT_VECTOR_WEIGHT, DEFAULT_TEXT_WEIGHT


def _get(tree: Mapping[str, Any] | None, *keys: str) -> Any:
    node: Any = tree
    for key in keys:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node


def _pick(
    overrides: Mapping[str, Any] | None, defaults: Mapping[str, Any] | None, fallback: Any, *keys: str
) -> Any:
    value = _get(overrides, *keys)
    if value is None:
        value = _get(defaults, *keys)
    return fallback if value is None else value


@dataclass(frozen=True)
class ResolvedMemorySearchConfig:
    """The normalized settings the search engine actually uses."""

    enabled: bool
    provider: str
    model: str
    fallback: str
    sources: tuple[str, ...]
    extra_paths: tuple[str, ...]
    fts_tokenizer: str
    chunk_tokens: float
    chunk_overlap: float
    max_results: float
    min_score: float
    hybrid_enabled: bool
    vector_weight: float
    text_weight: float
    candidate_multiplier: float
    mmr_enabled: bool
    mmr_lambda: float
    temporal_decay_enabled: bool
    half_life_days: float
    cache_enabled: bool
    cache_max_entries: int | None
    watch: bool
    watch_debounce_ms: float


def _normalize_sources(sources: Sequence[str] | None, session_memory: bool) -> tuple[str, ...]:
    ordered: dict[str, None] = {}
    for source in sources or ["memory"]:
        if source == "memory":
            ordered["memory"] = None
        if source == "sessions" and session_memory:
            ordered["sessions"] = None
    return tuple(ordered) or ("memory",)


def resolve_memory_search_config(
    defaults: Mapping[str, Any] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> ResolvedMemorySearchConfig:
    """Merge ``agents.defaults.memorySearch`` with a per-agent block and normalize.

    tokens ``max(1, x)``; overlap clamped to ``[0, tokens-1]``; minScore to
    ``[0,1]``; weights clamped to ``[0,1]`` then divided by their sum (sum 0 ->
    0.7/0.3); candidateMultiplier floored into ``[1,20]``; MMR lambda clamped
    (non-finite -> 0.7); halfLifeDays ``max(1, floor(x))``; cache.maxEntries
    ``max(1, floor(x))`` when set.
    """

    def pick(fallback: Any, *keys: str) -> Any:
        return _pick(overrides, defaults, fallback, *keys)

    tokens = _js_max(1, float(pick(DEFAULT_CHUNK_TOKENS, "chunking", "tokens")))
    overlap = clamp_number(pick(DEFAULT_CHUNK_OVERLAP, "chunking", "overlap"), 0, _js_max(0, tokens - 1))
    min_score = clamp_number(pick(DEFAULT_MIN_SCORE, "query", "minScore"), 0, 1)
    vw = clamp_number(pick(DEFAULT_VECTOR_WEIGHT, "query", "hybrid", "vectorWeight"), 0, 1)
    tw = clamp_number(pick(DEFAULT_TEXT_WEIGHT, "query", "hybrid", "textWeight"), 0, 1)
    vector_weight, text_weight = normalize_weights(vw, tw)
    multiplier = clamp_int(
        pick(DEFAULT_CANDIDATE_MULTIPLIER, "query", "hybrid", "candidateMultiplier"), 1, 20
    )
    raw_lambda = float(pick(DEFAULT_MMR_LAMBDA, "query", "hybrid", "mmr", "lambda"))
    mmr_lambda = clamp_number(raw_lambda, 0, 1) if math.isfinite(raw_lambda) else DEFAULT_MMR_LAMBDA
    raw_half_life = float(pick(DEFAULT_HALF_LIFE_DAYS, "query", "hybrid", "temporalDecay", "halfLifeDays"))
    half_life = max(1, math.floor(raw_half_life)) if math.isfinite(raw_half_life) else DEFAULT_HALF_LIFE_DAYS
    raw_max_entries = pick(None, "cache", "maxEntries")
    cache_max_entries = (
        max(1, math.floor(float(raw_max_entries)))
        if isinstance(raw_max_entries, (int, float)) and math.isfinite(float(raw_max_entries))
        else None
    )
    session_memory = bool(pick(False, "experimental", "sessionMemory"))
    sources = _normalize_sources(pick(None, "sources"), session_memory)
    extra: dict[str, None] = {}
    for raw in [*(_get(defaults, "extraPaths") or []), *(_get(overrides, "extraPaths") or [])]:
        trimmed = js_trim(str(raw))
        if trimmed:
            extra[trimmed] = None
    tokenizer = "trigram" if pick("unicode61", "store", "fts", "tokenizer") == "trigram" else "unicode61"
    return ResolvedMemorySearchConfig(
        enabled=bool(pick(True, "enabled")),
        provider=str(pick("auto", "provider")),
        model=str(pick("", "model")),
        fallback=str(pick("none", "fallback")),
        sources=sources,
        extra_paths=tuple(extra),
        fts_tokenizer=tokenizer,
        chunk_tokens=tokens,
        chunk_overlap=overlap,
        max_results=float(pick(DEFAULT_MAX_RESULTS, "query", "maxResults")),
        min_score=min_score,
        hybrid_enabled=bool(pick(True, "query", "hybrid", "enabled")),
        vector_weight=vector_weight,
        text_weight=text_weight,
        candidate_multiplier=multiplier,
        mmr_enabled=bool(pick(False, "query", "hybrid", "mmr", "enabled")),
        mmr_lambda=mmr_lambda,
        temporal_decay_enabled=bool(pick(False, "query", "hybrid", "temporalDecay", "enabled")),
        half_life_days=half_life,
        cache_enabled=bool(pick(True, "cache", "enabled")),
        cache_max_entries=cache_max_entries,
        watch=bool(pick(True, "sync", "watch")),
        watch_debounce_ms=float(pick(DEFAULT_WATCH_DEBOUNCE_MS, "sync", "watchDebounceMs")),
    )
