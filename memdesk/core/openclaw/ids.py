"""Chunk ids and embedding-cache provider keys (``manager-embedding-ops.ts``)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping

from .text import hash_text

FTS_ONLY_MODEL = "fts-only"


@dataclasses.dataclass(frozen=True)
class StoredChunk:
    """One row of a profile's own chunk table (both releases store these columns)."""

    rowid: int
    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    text: str


def chunk_id(source: str, path: str, start_line: int, end_line: int, chunk_text: str, model: str) -> str:
    """``sha256("source:path:start:end:sha256(text):model")``; model is ``fts-only`` without a provider."""
    return chunk_id_from_hash(source, path, start_line, end_line, hash_text(chunk_text), model)


def chunk_id_from_hash(
    source: str, path: str, start_line: int, end_line: int, text_hash: str, model: str
) -> str:
    """``chunk_id`` for a chunk whose text hash is already known (the indexer has it)."""
    return hash_text(f"{source}:{path}:{start_line}:{end_line}:{text_hash}:{model}")


def js_json_stringify(value: object) -> str:
    """``JSON.stringify`` for plain data: compact, non-ASCII kept, None-valued keys dropped.

    (JS omits ``undefined`` properties; dict insertion order is kept like JS.)
    """

    def strip(v: object) -> object:
        if isinstance(v, Mapping):
            return {str(k): strip(x) for k, x in v.items() if x is not None}
        if isinstance(v, (list, tuple)):
            return [strip(x) for x in v]
        return v

    return json.dumps(strip(value), ensure_ascii=False, separators=(",", ":"))


def provider_key(
    provider: str | None,
    model: str,
    *,
    base_url: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> str:
    """Embedding-cache ``providerKey`` = sha256(JSON of the provider's cache-key data).

    openai: ``{provider, baseUrl, model, headers}`` with headers sorted and
    ``authorization`` removed; gemini additionally drops ``x-goog-api-key``;
    every other provider ``{provider, model}``; no provider (FTS-only)
    ``{"provider":"none","model":"fts-only"}``.
    """
    if provider is None:
        return hash_text(js_json_stringify({"provider": "none", "model": FTS_ONLY_MODEL}))
    if provider in ("openai", "gemini"):
        drop = {"authorization"} | ({"x-goog-api-key"} if provider == "gemini" else set())
        kept = sorted((k, v) for k, v in (headers or {}).items() if k.lower() not in drop)
        data: dict[str, object] = {
            "provider": provider,
            "baseUrl": base_url,
            "model": model,
            "headers": dict(kept),
        }
        return hash_text(js_json_stringify(data))
    return hash_text(js_json_stringify({"provider": provider, "model": model}))
