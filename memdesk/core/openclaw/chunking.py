"""``chunkMarkdown`` and the embedding-input guards around it.

Ports ``packages/memory-host-sdk/src/host/internal.ts`` (chunking) and
``embedding-chunk-limits.ts`` / ``manager-embedding-policy.ts``. Sizes are in
"weighted characters" (see :func:`estimate_string_chars`) and slicing is in
UTF-16 code units, exactly like the TypeScript, so line ranges, chunk texts and
hashes (and therefore chunk ids) are identical.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .config import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_TOKENS
from .text import (
    estimate_string_chars,
    from_utf16_units,
    hash_text,
    js_trim,
    to_utf16_units,
    utf8_byte_length,
    utf16_len,
)

# OpenClaw never sends a single embedding request bigger than this many UTF-8 bytes.
EMBEDDING_MAX_INPUT_BYTES_CAP = 8000


@dataclass(frozen=True)
class MemoryChunk:
    """One indexed chunk: 1-based inclusive line range, text, sha256(text)."""

    start_line: int
    end_line: int
    text: str
    hash: str


def _is_high_surrogate(unit: int) -> bool:
    return 0xD800 <= unit <= 0xDBFF


def _is_low_surrogate(unit: int) -> bool:
    return 0xDC00 <= unit <= 0xDFFF


def _line_segments(line: str, max_chars: int, tokens: int, legacy: bool) -> list[str]:
    """Split one line into the segments the chunker accumulates.

    A line is cut every ``max_chars`` UTF-16 units (this coarse cut may split a
    surrogate pair, as ``String.slice`` does). A coarse slice that is still too
    heavy (CJK weighs 4) is re-cut every ``tokens`` units, never mid-pair.
    """
    if not line:
        return [""]
    units = to_utf16_units(line)
    segments: list[str] = []
    for start in range(0, len(units), max_chars):
        coarse_units = units[start : start + max_chars]
        coarse = from_utf16_units(coarse_units)
        if legacy or estimate_string_chars(coarse) <= max_chars:
            segments.append(coarse)
            continue
        fine_step = max(1, tokens)
        j = 0
        n = len(coarse_units)
        while j < n:
            end = min(j + fine_step, n)
            if end < n and _is_high_surrogate(coarse_units[end - 1]):
                end += 1
            segments.append(from_utf16_units(coarse_units[j:end]))
            j = end
    return segments


def chunk_markdown(
    content: str,
    tokens: int = DEFAULT_CHUNK_TOKENS,
    overlap: int = DEFAULT_CHUNK_OVERLAP,
    *,
    legacy: bool = False,
) -> list[MemoryChunk]:
    """``chunkMarkdown(content, {tokens, overlap})``: line-tracked sliding chunks.

    ``maxChars = max(32, tokens*4)`` weighted chars per chunk, ``overlap*4``
    weighted chars (whole lines/segments) carried into the next chunk. No
    markdown awareness. ``legacy=True`` reproduces v2026.2.27, which measured
    size with plain ``.length`` and had no CJK re-slicing.
    """
    lines = content.split("\n")
    max_chars = max(32, tokens * 4)
    overlap_chars = max(0, overlap * 4)

    def weight(segment: str) -> int:
        return estimate_string_chars(segment, legacy=legacy)

    chunks: list[MemoryChunk] = []
    current: list[tuple[str, int]] = []
    current_chars = 0

    def flush() -> None:
        if not current:
            return
        text = "\n".join(seg for seg, _ in current)
        chunks.append(MemoryChunk(current[0][1], current[-1][1], text, hash_text(text)))

    def carry_overlap() -> None:
        nonlocal current, current_chars
        if overlap_chars <= 0 or not current:
            current = []
            current_chars = 0
            return
        acc = 0
        kept: list[tuple[str, int]] = []
        # Walk back whole segments until the overlap budget is reached; the last
        # one is always kept even if it alone exceeds the budget.
        for entry in reversed(current):
            acc += weight(entry[0]) + 1
            kept.insert(0, entry)
            if acc >= overlap_chars:
                break
        current = kept
        current_chars = sum(weight(seg) + 1 for seg, _ in kept)

    for index, line in enumerate(lines):
        line_no = index + 1
        for segment in _line_segments(line, max_chars, tokens, legacy):
            size = weight(segment) + 1
            if current_chars + size > max_chars and current:
                flush()
                carry_overlap()
            current.append((segment, line_no))
            current_chars += size
    flush()
    return chunks


def split_text_to_utf8_byte_limit(text: str, max_utf8_bytes: int) -> list[str]:
    """``splitTextToUtf8ByteLimit``: greedy longest prefixes within a byte budget.

    Binary-searches each part's end in UTF-16 units (a unit never encodes to
    fewer than one byte, so ``cursor + max`` bounds the search) and backs off
    one unit instead of splitting a surrogate pair.
    """
    if max_utf8_bytes <= 0 or utf8_byte_length(text) <= max_utf8_bytes:
        return [text]
    units = to_utf16_units(text)
    n = len(units)
    parts: list[str] = []
    cursor = 0
    while cursor < n:
        low = cursor + 1
        high = min(n, cursor + max_utf8_bytes)
        best = cursor
        while low <= high:
            mid = (low + high) // 2
            if utf8_byte_length(from_utf16_units(units[cursor:mid])) <= max_utf8_bytes:
                best = mid
                low = mid + 1
            else:
                high = mid - 1
        if best <= cursor:
            best = min(n, cursor + 1)
        if cursor < best < n and _is_high_surrogate(units[best - 1]) and _is_low_surrogate(units[best]):
            best -= 1
        part = from_utf16_units(units[cursor:best])
        if not part:
            break
        parts.append(part)
        cursor = best
    return parts


def embedding_max_input_tokens(provider: str | None, model: str | None = None) -> int:
    """Provider input limit (in tokens, which OpenClaw approximates by UTF-8 bytes)."""
    model_l = (model or "").lower()
    if provider == "openai":
        return 8191 if "ada-002" in model_l else 8192
    if provider in ("gemini", "local"):
        return 2048
    if provider == "voyage":
        if model_l == "voyage-3-lite":
            return 16000
        if model_l == "voyage-3":
            return 32000
    return 8192


def enforce_max_input_bytes(chunks: Sequence[MemoryChunk], max_bytes: int) -> list[MemoryChunk]:
    """``enforceEmbeddingMaxInputTokens``: split chunks above ``max_bytes`` UTF-8 bytes.

    Parts keep the parent's line range and get their own hash.
    """
    out: list[MemoryChunk] = []
    for chunk in chunks:
        if utf8_byte_length(chunk.text) <= max_bytes:
            out.append(chunk)
            continue
        for part in split_text_to_utf8_byte_limit(chunk.text, max_bytes):
            out.append(MemoryChunk(chunk.start_line, chunk.end_line, part, hash_text(part)))
    return out


def filter_non_empty_chunks(chunks: Iterable[MemoryChunk]) -> list[MemoryChunk]:
    """``filterNonEmptyMemoryChunks``: drop chunks whose text is blank after JS ``trim``."""
    return [chunk for chunk in chunks if js_trim(chunk.text)]


def chunk_text_length(chunk: MemoryChunk) -> int:
    """Length of the chunk text as OpenClaw reports it (UTF-16 units)."""
    return utf16_len(chunk.text)
