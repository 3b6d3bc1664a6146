"""Agent-tool helpers: citations (``tools.citations.ts``), ``memory_get`` slicing, path policy."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import js_trim

_LEADING_DOTS_SLASHES_RE = re.compile(r"^[./]+")


def format_citation(path: str, start_line: int, end_line: int) -> str:
    """``path#L<start>`` or ``path#L<start>-L<end>`` when the lines differ."""
    line_range = f"#L{start_line}" if start_line == end_line else f"#L{start_line}-L{end_line}"
    return f"{path}{line_range}"


@dataclass(frozen=True)
class DecoratedSnippet:
    """A result snippet after citation decoration; ``citation`` None when not included."""

    snippet: str
    citation: str | None


def decorate_citations(
    snippet: str, path: str, start_line: int, end_line: int, include: bool
) -> DecoratedSnippet:
    """``decorateCitations`` for one result: ``trim(snippet) + "\\n\\nSource: " + citation``."""
    if not include:
        return DecoratedSnippet(snippet, None)
    citation = format_citation(path, start_line, end_line)
    return DecoratedSnippet(f"{js_trim(snippet)}\n\nSource: {citation}", citation)


def read_file_slice(text: str, from_: int | None = None, lines: int | None = None) -> str:
    """``memory_get`` line slicing: 1-based ``from``, ``lines`` count.

    Both falsy (None/0): the whole text. Otherwise ``start = max(1, from ?? 1)``
    and ``count = max(1, lines ?? all)`` (note ``??``: 0 is kept, then clamped).
    """
    if not from_ and not lines:
        return text
    all_lines = text.split("\n")
    start = max(1, 1 if from_ is None else from_)
    count = max(1, len(all_lines) if lines is None else lines)
    return "\n".join(all_lines[start - 1 : start - 1 + count])


def normalize_rel_path(value: str) -> str:
    """Trim, strip leading ``.``/``/`` characters, backslashes to ``/``."""
    return _LEADING_DOTS_SLASHES_RE.sub("", js_trim(value)).replace("\\", "/")


def is_memory_path(rel_path: str, *, legacy: bool = False) -> bool:
    """``isMemoryPath``: ``MEMORY.md``, ``memory.md``, ``dreams.md`` (ANCHOR) or ``memory/...``.

    Case-sensitive (``DREAMS.md``/``Memory.md`` are not memory paths).
    """
    normalized = normalize_rel_path(rel_path)
    if not normalized:
        return False
    names = ("MEMORY.md", "memory.md") if legacy else ("MEMORY.md", "memory.md", "dreams.md")
    if normalized in names:
        return True
    return normalized.startswith("memory/")
