"""Recall metadata read from ``<!-- importance|project|trigger: … -->`` carriers
(``memory-host-sdk/src/host/curated-annotations.ts``)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from ..text import js_trim
from .constants import INVALID_PROJECT_KEY

_CARRIER_RE = re.compile(r"<!--\s*(trigger|importance|project)\s*:", re.IGNORECASE)
_PROJECT_RE = re.compile(r"<!--\s*(project)\s*:", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class Annotation:
    start: int
    end: int
    kind: str
    value: str


def scan_annotations(text: str, marker: re.Pattern[str], line_scoped: bool = False) -> list[Annotation]:
    """``scanMemoryAnnotations``: ``<!-- kind: value -->`` carriers in order.

    A carrier ends at the next ``-->``; line-scoped scanning skips a carrier whose
    ``-->`` is not on the same line.
    """
    out: list[Annotation] = []
    pos = 0
    closing = -1
    newline = -1
    while True:
        m = marker.search(text, pos)
        if m is None:
            return out
        value_start = m.end()
        if closing < value_start:
            closing = text.find("-->", value_start)
            if closing < 0:
                return out
        if line_scoped:
            if newline < value_start:
                nl = re.compile(r"[\r\n]").search(text, value_start)
                newline = nl.start() if nl else len(text)
            if newline < closing:
                pos = value_start
                continue
        out.append(Annotation(m.start(), closing + 3, m.group(1).lower(), js_trim(text[value_start:closing])))
        pos = closing + 3


def strip_annotation_carriers(text: str) -> str:
    """``stripMemoryAnnotationCarriers``: drop one-line carriers and the spaces they leave at line ends."""
    found = scan_annotations(text, _CARRIER_RE, True)
    if not found:
        return text
    parts: list[str] = []
    cursor = 0
    for a in found:
        parts.append(text[cursor : a.start])
        cursor = a.end
    parts.append(text[cursor:])
    joined = "".join(parts)

    def fix(m: re.Match[str]) -> str:
        end = m.end()
        return "" if end == len(joined) or joined[end] in "\r\n\u2028\u2029" else m.group(0)

    return re.sub(r"[ \t]+", fix, joined)


def normalize_project_key(value: str) -> str | None:
    trimmed = js_trim(value)
    if not trimmed or re.search(r"[\r\n<>]", trimmed):
        return None
    if trimmed.startswith("path:"):
        return trimmed
    sep = trimmed.find("/")
    if sep < 1:
        return trimmed
    return trimmed[:sep].lower() + trimmed[sep:]


@dataclasses.dataclass(frozen=True)
class RecallMetadata:
    importance: int | None = None
    triggers: str | None = None
    project_key: str | None = None


def extract_recall_metadata(
    source_lines: Sequence[str], *, curated_root: bool, project_scope_eligible: bool
) -> RecallMetadata:
    """``extractCuratedEntryRecallMetadata`` for one entry's original lines."""
    project_key: str | None = None
    if project_scope_eligible:
        text = "\n".join(source_lines)
        marker_count = len(_PROJECT_RE.findall(text))
        keys: dict[str, None] = {}
        parsed = raw_count = valid_count = 0
        for a in scan_annotations(text, _PROJECT_RE):
            parsed += 1
            for raw in a.value.split(";"):
                raw_count += 1
                key = normalize_project_key(raw)
                if key:
                    keys[key] = None
                    valid_count += 1
        if marker_count > 0:
            valid = parsed == marker_count and raw_count > 0 and raw_count == valid_count
            project_key = INVALID_PROJECT_KEY if not valid else ("; ".join(keys) if keys else None)
    phrases: dict[str, None] = {}
    importance: int | None = None
    for line in source_lines if curated_root else []:
        if not line.rstrip().endswith("-->"):
            continue
        for a in scan_annotations(line, _CARRIER_RE):
            if a.kind == "trigger":
                for phrase in re.split(r"[,;]", a.value):
                    if js_trim(phrase):
                        phrases[js_trim(phrase)] = None
            elif a.kind == "importance" and re.fullmatch(r"\d+", a.value):
                n = int(a.value)
                if 1 <= n <= 10:
                    importance = n if importance is None else max(importance, n)
    return RecallMetadata(importance, "; ".join(phrases) if phrases else None, project_key)
