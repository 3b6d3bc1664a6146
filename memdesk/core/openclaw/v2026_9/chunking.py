"""Chunking v5 (``memory-host-sdk/src/host/markdown-chunks.ts``): weighted 400/80 token
chunks with a tail-of-line overlap, optionally one new chunk per bullet/heading entry."""

from __future__ import annotations

import dataclasses
import re

from ..text import hash_text, truncate_utf16_safe
from .constants import CHUNK_OVERLAP, CHUNK_TOKENS
from .weights import estimate_string_chars


@dataclasses.dataclass
class Chunk:
    start_line: int
    end_line: int
    text: str
    hash: str
    entry_start: int | None = None
    entry_end: int | None = None


def _entry_kind(line: str) -> str | None:
    if line.startswith("- "):
        return "entry"
    return "section" if re.match(r"^#{1,6}(?:\s|$)", line) else None


def _take_tail(text: str, budget: int) -> str:
    """``takeTailByEstimatedChars``: the longest suffix whose weight fits ``budget``."""
    acc = 0
    start = len(text)
    while start > 0:
        prev = start - 1
        acc += estimate_string_chars(text[prev:start])
        if not acc <= budget:
            break
        start = prev
    return text[start:]


def _coarse_slices(line: str, max_chars: int) -> list[str]:
    # truncateUtf16Safe(line.slice(start), maxChars), repeated.
    out = []
    rest = line
    while rest:
        piece = truncate_utf16_safe(rest, max_chars)
        if not piece:  # a lone pair at the cut: JS would loop; take one code point
            piece = rest[0]
        out.append(piece)
        rest = rest[len(piece) :]
    return out


def chunk_markdown(
    content: str, tokens: int = CHUNK_TOKENS, overlap: int = CHUNK_OVERLAP, *, per_entry: bool = False
) -> list[Chunk]:
    """``chunkMarkdown`` v5: line-tracked chunks; with ``per_entry`` a new chunk per entry."""
    lines = content.split("\n")
    max_chars = max(32, tokens * 4)
    overlap_chars = max(0, overlap * 4)
    chunks: list[Chunk] = []
    current: list[tuple[str, int]] = []
    current_chars = 0
    entry_start: int | None = None
    entry_first = 0

    def flush() -> None:
        if not current:
            return
        text = "\n".join(seg for seg, _ in current)
        chunks.append(Chunk(current[0][1], current[-1][1], text, hash_text(text)))

    def carry(window: int) -> None:
        nonlocal current, current_chars
        if window <= 0 or not current:
            current, current_chars = [], 0
            return
        acc = 0
        kept: list[tuple[str, int]] = []
        for seg, line_no in reversed(current):
            size = estimate_string_chars(seg) + 1
            remaining = window - acc
            if size > remaining:
                tail = _take_tail(seg, remaining - 1) if not kept else ""
                if tail:
                    kept.insert(0, (tail, line_no))
                    acc += estimate_string_chars(tail) + 1
                break
            acc += size
            kept.insert(0, (seg, line_no))
            if acc >= window:
                break
        current, current_chars = kept, acc

    def append(segment: str, line_no: int, chars: int) -> None:
        nonlocal current_chars
        size = chars + 1
        if current_chars + size > max_chars and current:
            flush()
            carry(min(overlap_chars, max(0, max_chars - size)))
        current.append((segment, line_no))
        current_chars += size

    def finish_entry(end_line: int) -> None:
        if entry_start is None:
            return
        for chunk in chunks[entry_first:]:
            chunk.entry_start, chunk.entry_end = entry_start, end_line

    for i, line in enumerate(lines):
        line_no = i + 1
        kind = (_entry_kind(line) or ("section" if i == 0 else None)) if per_entry else None
        if kind:
            if current:
                flush()
            finish_entry(line_no - 1)
            current, current_chars = [], 0
            entry_start = line_no if kind == "entry" else None
            entry_first = len(chunks)
        if not line:
            append("", line_no, 0)
            continue
        for coarse in _coarse_slices(line, max_chars):
            coarse_chars = estimate_string_chars(coarse)
            if coarse_chars > max_chars:
                part: list[str] = []
                part_chars = 0
                for ch in coarse:
                    w = estimate_string_chars(ch)
                    if part_chars + w > max_chars:
                        append("".join(part), line_no, part_chars)
                        part, part_chars = [], 0
                    part.append(ch)
                    part_chars += w
                append("".join(part), line_no, part_chars)
            else:
                append(coarse, line_no, coarse_chars)
    flush()
    finish_entry(len(lines))
    return chunks
