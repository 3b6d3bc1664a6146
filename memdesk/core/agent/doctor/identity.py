"""The ``identity`` check's comparison: the index's recorded identity against what the config asks for."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from memdesk.core.openclaw.ids import FTS_ONLY_MODEL, js_json_stringify

from ..config import Agent, AgentSearch, Layout, resolve_user_path

# The newest index identity versions OpenClaw 2026.9.6 writes.
PROVENANCE_VERSION = 1
CHUNKING_VERSION = 5

# Default embedding models per provider (used when the config names no model).
DEFAULT_MODELS = {
    "openai": "text-embedding-3-small",
    "gemini": "gemini-embedding-001",
    "voyage": "voyage-4-large",
    "mistral": "mistral-embed",
    "deepinfra": "BAAI/bge-m3",
}

DEFAULT_LOCAL_MODEL_2026_4 = "hf:ggml-org/embeddinggemma-300m-qat-q8_0-GGUF/embeddinggemma-300m-qat-Q8_0.gguf"


def _js_resolve(workspace: Path, value: str) -> str:
    return os.path.normpath(os.path.join(workspace, value)).replace("\\", "/")


def scope_hash(search: AgentSearch, workspace: Path, layout: Layout) -> str:
    """``resolveConfiguredScopeHash``: sha256 of the resolved extra paths and multimodal settings."""
    multimodal = {
        "enabled": bool(search.multimodal.get("enabled")),
        "modalities": sorted(search.multimodal.get("modalities") or []),
        "maxFileBytes": search.multimodal.get("maxFileBytes", 10 * 1024 * 1024),
    }
    ws = Path(os.path.abspath(workspace))
    extra: list[Any]
    if layout == "2026.4":
        resolved = [_js_resolve(ws, e.path.strip()) for e in search.extra_paths if e.path.strip()]
        extra = sorted(dict.fromkeys(resolved))
    else:
        items: list[Any] = []
        for entry in search.extra_paths:
            path = str(resolve_user_path(entry.path)) if entry.path.strip().startswith("~") else entry.path
            resolved_path = _js_resolve(ws, path)
            items.append(
                {"path": resolved_path, "pattern": entry.pattern} if entry.pattern else resolved_path
            )
        # OpenClaw sorts with localeCompare; code-point order agrees for ordinary paths.
        extra = sorted(items, key=lambda item: json.dumps(item, ensure_ascii=False, separators=(",", ":")))
    payload = js_json_stringify({"extraPaths": extra, "multimodal": multimodal})
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def identity_mismatches(agent: Agent, layout: Layout, meta: dict[str, Any]) -> list[tuple[str, str]]:
    """``(code, reason)`` for each way the index identity differs from the config."""
    search = agent.search
    if search is None:
        return []
    out: list[tuple[str, str]] = []
    if layout == "2026.9":
        provenance, chunk_version = meta.get("provenanceVersion") or 0, meta.get("chunkingVersion") or 0
        if provenance > PROVENANCE_VERSION or chunk_version > CHUNKING_VERSION:
            out.append(("newer_version", "the index was written by a newer OpenClaw than 2026.9.6"))
        elif provenance < PROVENANCE_VERSION or chunk_version < CHUNKING_VERSION:
            out.append(
                (
                    "chunking_version",
                    "an older OpenClaw wrote the index; the agent rebuilds it on its next search",
                )
            )
    provider = search.provider
    expected_provider = "none" if provider == "none" else provider
    if provider == "none":
        expected_model = FTS_ONLY_MODEL
    elif provider == "local":
        # 2026.4 names the index after local.modelPath; 2026.9's managed server after
        # memory.search.model when set (its default is the plugin's, unknown here).
        expected_model = (
            search.local_model_path or DEFAULT_LOCAL_MODEL_2026_4 if layout == "2026.4" else search.model
        )
    else:
        expected_model = search.model or DEFAULT_MODELS.get(provider, "")
    meta_provider, meta_model = str(meta.get("provider", "")), str(meta.get("model", ""))
    if layout == "2026.4" and provider == "auto":
        expected_provider = meta_provider  # auto picks whichever provider has a key; cannot be known here
        expected_model = expected_model or meta_model
    if (
        expected_model
        and meta_model != expected_model
        and not (provider == "local" and Path(meta_model).name == Path(expected_model).name)
    ):
        out.append(
            (
                "model",
                f"index was built for model {meta_model or '(none)'}, the config asks for {expected_model}",
            )
        )
    if meta_provider != expected_provider:
        out.append(
            (
                "provider",
                f"index was built for provider {meta_provider or '(none)'}, the config "
                f"asks for {expected_provider}",
            )
        )
    meta_sources = sorted(
        {s for s in meta.get("sources") or ["memory"] if s in ("memory", "sessions")} or {"memory"}
    )
    if meta_sources != sorted(search.sources):
        out.append(
            (
                "sources",
                f"index holds {', '.join(meta_sources)}, the config asks for "
                f"{', '.join(sorted(search.sources))}",
            )
        )
    if meta.get("scopeHash") is not None and meta.get("scopeHash") != scope_hash(
        search, agent.workspace, layout
    ):
        out.append(("scope", "extraPaths (or multimodal settings) changed since the index was built"))
    if (meta.get("chunkTokens"), meta.get("chunkOverlap")) != (search.chunk_tokens, search.chunk_overlap):
        out.append(
            (
                "chunking",
                f"index chunked {meta.get('chunkTokens')}/{meta.get('chunkOverlap')}, "
                f"the config asks for {search.chunk_tokens:g}/{search.chunk_overlap:g}",
            )
        )
    if (meta.get("ftsTokenizer") or "unicode61") != search.fts_tokenizer:
        out.append(
            (
                "fts_tokenizer",
                f"index keyword tokenizer is {meta.get('ftsTokenizer') or 'unicode61'}, "
                f"the config asks for {search.fts_tokenizer}",
            )
        )
    return out
