"""Embedding-vector helpers (``internal.ts`` / ``embedding-vectors.ts`` / embedding ops).

OpenClaw L2-normalizes only local, gemini and bedrock vectors (others are
stored as returned) and always compares with cosine, so these helpers are
what the vector leg needs to rank identically.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TypeVar

from .chunking import EMBEDDING_MAX_INPUT_BYTES_CAP, MemoryChunk
from .text import utf8_byte_length

NORMALIZED_PROVIDERS = frozenset({"local", "gemini", "bedrock"})


def sanitize_and_normalize_embedding(vec: Sequence[float]) -> list[float]:
    """Non-finite components become 0, then divide by the L2 norm unless it is < 1e-10."""
    sanitized = [float(v) if math.isfinite(v) else 0.0 for v in vec]
    total = 0.0
    for v in sanitized:  # left-to-right sum, as Array.reduce does
        total += v * v
    magnitude = math.sqrt(total)
    if magnitude < 1e-10:
        return sanitized
    return [v / magnitude for v in sanitized]


def cosine_similarity(a: Sequence[float], b: Sequence[float]) -> float:
    """JS-fallback cosine over ``min(len)`` dims; 0 for empty input or a zero norm."""
    if not a or not b:
        return 0.0
    dot = norm_a = norm_b = 0.0
    for av, bv in zip(a, b, strict=False):  # over min(len) dims, as OpenClaw
        dot += av * bv
        norm_a += av * av
        norm_b += bv * bv
    if norm_a == 0 or norm_b == 0:
        return 0.0
    return dot / (math.sqrt(norm_a) * math.sqrt(norm_b))


def parse_embedding(raw: str) -> list[float]:
    """Parse the ``chunks.embedding`` JSON column; anything malformed is ``[]``."""
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return []
    if not isinstance(value, list):
        return []
    return [float(v) for v in value if isinstance(v, (int, float)) and not isinstance(v, bool)]


C = TypeVar("C", bound=MemoryChunk)


def build_embedding_batches(
    chunks: Sequence[C], max_bytes: int = EMBEDDING_MAX_INPUT_BYTES_CAP
) -> list[list[C]]:
    """Group chunks so each request carries at most ``max_bytes`` UTF-8 bytes.

    A chunk that alone exceeds the budget gets a batch of its own.
    """
    batches: list[list[C]] = []
    current: list[C] = []
    current_bytes = 0
    for chunk in chunks:
        size = utf8_byte_length(chunk.text)
        if current and current_bytes + size > max_bytes:
            batches.append(current)
            current, current_bytes = [], 0
        if not current and size > max_bytes:
            batches.append([chunk])
            continue
        current.append(chunk)
        current_bytes += size
    if current:
        batches.append(current)
    return batches
