"""The memory-search settings an agent runs with, merged from the config by the rules of
OpenClaw 2026.9 (``src/agents/memory-search.ts``) or 2026.4 (``resolve_memory_search_config``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memdesk.core.agent.config_file import OpenClawConfigError
from memdesk.core.agent.config_keys import get
from memdesk.core.agent.layouts import FIXED_2026_9, Layout
from memdesk.core.openclaw import config as oc4_config


@dataclass(frozen=True)
class ExtraPath:
    """One ``extraPaths`` entry: a file or folder, optionally narrowed by a glob (2026.9)."""

    path: str
    pattern: str | None = None

    def to_json(self) -> str | dict[str, str]:
        return self.path if self.pattern is None else {"path": self.path, "pattern": self.pattern}


@dataclass(frozen=True)
class AgentSearch:
    """The memory-search settings one agent runs with, after OpenClaw's merge and defaults."""

    enabled: bool
    provider: str
    model: str
    local_model_path: str | None
    fallback: str
    sources: tuple[str, ...]
    """Sources the index holds (2026.9 adds ``sessions`` for cross-conversation recall)."""
    search_sources: tuple[str, ...]
    """Sources an ordinary ``memory_search`` call returns."""
    remember_across_conversations: bool
    extra_paths: tuple[ExtraPath, ...]
    fts_tokenizer: str
    max_results: float
    min_score: float
    vector_weight: float
    text_weight: float
    candidate_multiplier: float
    mmr: bool
    mmr_lambda: float
    decay: bool
    half_life_days: float
    chunk_tokens: float
    chunk_overlap: float
    cache_enabled: bool
    multimodal: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "enabled": self.enabled,
            "provider": self.provider,
            "model": self.model,
            "localModelPath": self.local_model_path,
            "fallback": self.fallback,
            "sources": list(self.sources),
            "searchSources": list(self.search_sources),
            "rememberAcrossConversations": self.remember_across_conversations,
            "extraPaths": [e.to_json() for e in self.extra_paths],
            "ftsTokenizer": self.fts_tokenizer,
            "maxResults": self.max_results,
            "minScore": self.min_score,
            "vectorWeight": self.vector_weight,
            "textWeight": self.text_weight,
            "candidateMultiplier": self.candidate_multiplier,
            "mmr": self.mmr,
            "mmrLambda": self.mmr_lambda,
            "decay": self.decay,
            "halfLifeDays": self.half_life_days,
            "chunkTokens": self.chunk_tokens,
            "chunkOverlap": self.chunk_overlap,
        }


def _extra_paths(raw: Any, layout: Layout, warnings: list[str]) -> list[ExtraPath]:
    out: dict[tuple[str, str], ExtraPath] = {}
    for entry in raw if isinstance(raw, list) else []:
        if isinstance(entry, str):
            path, pattern = entry.strip(), ""
        elif isinstance(entry, Mapping) and isinstance(entry.get("path"), str):
            if layout == "2026.4":
                warnings.append(
                    f"extraPaths entry {dict(entry)!r}: OpenClaw 2026.4 takes only "
                    "plain paths, not {path, pattern}"
                )
                continue
            path = str(entry["path"]).strip()
            pat = entry.get("pattern")
            pattern = pat.strip() if isinstance(pat, str) else ""
        else:
            warnings.append(f"extraPaths entry {entry!r} is neither a path nor {{path, pattern}}; ignored")
            continue
        if path:
            out[(path, pattern)] = ExtraPath(path, pattern or None)
    return list(out.values())


def remember_across_conversations(cfg: Mapping[str, Any], overrides: Mapping[str, Any] | None) -> bool:
    """2026.9's default: on unless DM isolation (``session.dmScope``) is configured anywhere."""
    explicit = get(overrides, "rememberAcrossConversations")
    if explicit is None:
        explicit = get(cfg, "memory", "search", "rememberAcrossConversations")
    if explicit is not None:
        return bool(explicit)
    dm_scope = get(cfg, "session", "dmScope")
    bindings = get(cfg, "bindings")
    bound_scope = isinstance(bindings, list) and any(
        isinstance(b, Mapping)
        and isinstance(b.get("session"), Mapping)
        and b["session"].get("dmScope") is not None
        for b in bindings
    )
    return (dm_scope is None or dm_scope == "main") and not bound_scope


def _normalize_sources(sources: Any, session_memory: bool) -> tuple[str, ...]:
    ordered: dict[str, None] = {}
    for source in sources if isinstance(sources, list) and sources else ["memory"]:
        if source == "memory":
            ordered["memory"] = None
        if source == "sessions" and session_memory:
            ordered["sessions"] = None
    return tuple(ordered) or ("memory",)


def _search_2026_9(
    cfg: Mapping[str, Any], overrides: Mapping[str, Any] | None, warnings: list[str]
) -> AgentSearch | None:
    defaults = get(cfg, "memory", "search")

    def pick(fallback: Any, *keys: str) -> Any:
        value = get(overrides, *keys)
        if value is None:
            value = get(defaults, *keys)
        return fallback if value is None else value

    if not bool(pick(True, "enabled")):
        return None
    remember = remember_across_conversations(cfg, overrides)
    configured_session_memory = bool(pick(False, "experimental", "sessionMemory"))
    configured_sources = pick(None, "sources")
    search_sources = _normalize_sources(
        configured_sources,
        configured_session_memory
        or (remember and isinstance(configured_sources, list) and "sessions" in configured_sources),
    )
    sources = _normalize_sources(
        [*search_sources, "sessions"] if remember else configured_sources,
        remember or configured_session_memory,
    )
    raw_provider = pick(None, "provider")
    provider = raw_provider.strip() if isinstance(raw_provider, str) else ""
    provider = "openai" if provider in ("", "auto") else provider
    raw_min = float(pick(oc4_config.DEFAULT_MIN_SCORE, "query", "minScore"))
    extra = [*(get(defaults, "extraPaths") or []), *(get(overrides, "extraPaths") or [])]
    return AgentSearch(
        enabled=True,
        provider=provider,
        model=str(pick("", "model")),
        local_model_path=_opt_str(pick(None, "local", "modelPath")),
        fallback=str(pick("none", "fallback")),
        sources=sources,
        search_sources=search_sources,
        remember_across_conversations=remember,
        extra_paths=tuple(_extra_paths(extra, "2026.9", warnings)),
        fts_tokenizer="trigram"
        if pick("unicode61", "store", "fts", "tokenizer") == "trigram"
        else "unicode61",
        max_results=float(pick(oc4_config.DEFAULT_MAX_RESULTS, "query", "maxResults")),
        min_score=oc4_config.clamp_number(raw_min, 0, 1),
        cache_enabled=bool(pick(True, "cache", "enabled")),
        multimodal=_multimodal(pick(None, "multimodal")),
        **FIXED_2026_9,  # type: ignore[arg-type]
    )


def _multimodal(raw: Any) -> dict[str, Any]:
    """``normalizeMemoryMultimodalSettings`` (what the scope hash covers)."""
    enabled = isinstance(raw, Mapping) and raw.get("enabled") is True
    max_bytes = raw.get("maxFileBytes") if isinstance(raw, Mapping) else None
    if isinstance(max_bytes, (int, float)) and not isinstance(max_bytes, bool) and math.isfinite(max_bytes):
        max_file_bytes = max(1, math.floor(max_bytes))
    else:
        max_file_bytes = 10 * 1024 * 1024
    modalities: list[str] = []
    if enabled and isinstance(raw, Mapping):
        wanted = raw.get("modalities")
        for m in wanted if isinstance(wanted, list) else []:
            if m == "all":
                modalities = ["image", "audio"]
                break
            if m in ("image", "audio") and m not in modalities:
                modalities.append(m)
    return {"enabled": enabled, "modalities": modalities, "maxFileBytes": max_file_bytes}


def _opt_str(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _search_2026_4(
    cfg: Mapping[str, Any], overrides: Mapping[str, Any] | None, warnings: list[str]
) -> AgentSearch | None:
    defaults = get(cfg, "agents", "defaults", "memorySearch")
    if get(cfg, "memorySearch") is not None and defaults is None:
        defaults = get(cfg, "memorySearch")
    try:
        resolved = oc4_config.resolve_memory_search_config(
            defaults if isinstance(defaults, Mapping) else None,
            overrides if isinstance(overrides, Mapping) else None,
        )
    except (TypeError, ValueError) as exc:
        raise OpenClawConfigError(f"memorySearch: a value has the wrong type ({exc})") from None
    if not resolved.enabled:
        return None
    extra = [*(get(defaults, "extraPaths") or []), *(get(overrides, "extraPaths") or [])]

    def pick(*keys: str) -> Any:
        value = get(overrides, *keys)
        return get(defaults, *keys) if value is None else value

    return AgentSearch(
        enabled=True,
        provider=resolved.provider,
        model=resolved.model,
        local_model_path=_opt_str(pick("local", "modelPath")),
        fallback=resolved.fallback,
        sources=resolved.sources,
        search_sources=resolved.sources,
        remember_across_conversations=False,
        extra_paths=tuple(_extra_paths(extra, "2026.4", warnings)),
        fts_tokenizer=resolved.fts_tokenizer,
        max_results=resolved.max_results,
        min_score=resolved.min_score,
        vector_weight=resolved.vector_weight,
        text_weight=resolved.text_weight,
        candidate_multiplier=resolved.candidate_multiplier,
        mmr=resolved.mmr_enabled,
        mmr_lambda=resolved.mmr_lambda,
        decay=resolved.temporal_decay_enabled,
        half_life_days=resolved.half_life_days,
        chunk_tokens=resolved.chunk_tokens,
        chunk_overlap=resolved.chunk_overlap,
        cache_enabled=resolved.cache_enabled,
        multimodal=_multimodal(pick("multimodal")),
    )
