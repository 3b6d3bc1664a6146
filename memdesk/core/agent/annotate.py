"""Writing ``<!-- importance: N -->`` into a note, where OpenClaw will read it.

OpenClaw 2026.9.6 (``curated-annotations.ts``) reads a chunk's importance only from
lines of the curated root files (``MEMORY.md``, ``USER.md``) that *end* with an
annotation comment; the chunk takes the highest value (1–10) of its lines. Project
keys are read from any eligible note. So importance is set per line, at the line's
end, and ``importance_effect`` says plainly when the agent would ignore it.
"""

from __future__ import annotations

import re

from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.core.openclaw import v2026_9

_ANNOTATION = re.compile(r"<!--\s*(trigger|importance|project)\s*:(.*?)-->", re.IGNORECASE)
_IMPORTANCE = re.compile(r"[ \t]*<!--\s*importance\s*:[^\n]*?-->", re.IGNORECASE)
CURATED_ROOTS = ("MEMORY.md", "USER.md")


def annotation_spans(line: str) -> list[tuple[int, int, str, str]]:
    """``(start, end, kind, value)`` of each annotation comment on one line."""
    return [(m.start(), m.end(), m.group(1).lower(), m.group(2).strip()) for m in _ANNOTATION.finditer(line)]


def set_line_importance(line: str, value: int | None) -> str:
    """The line with its importance comment replaced, added at the end, or removed (None)."""
    if value is not None and not 1 <= value <= 10:
        raise ValueError("importance is a whole number from 1 to 10")
    body = _IMPORTANCE.sub("", line).rstrip()
    if value is None:
        return body
    return f"{body} <!-- importance: {value} -->" if body else f"<!-- importance: {value} -->"


def set_importance(text: str, first_line: int, last_line: int, value: int | None) -> str:
    """``text`` with importance set on lines ``first_line..last_line`` (1-based, inclusive).

    Blank lines and headings are left alone: an annotation there would mark no entry.
    """
    lines = text.split("\n")
    first = max(1, first_line)
    last = min(len(lines), last_line)
    for index in range(first - 1, last):
        stripped = lines[index].strip()
        if not stripped or stripped.startswith("#"):
            continue
        lines[index] = set_line_importance(lines[index], value)
    return "\n".join(lines)


def importance_effect(rel_path: str) -> str | None:
    """None when OpenClaw 2026.9 honours importance in this note, else why it does not."""
    if rel_path.replace("\\", "/").removeprefix("./") in CURATED_ROOTS:
        return None
    return "OpenClaw 2026.9 reads importance only in MEMORY.md and USER.md; in this note the agent ignores it"


def ignored_annotation(rel_path: str, line: str, kind: str, value: str) -> str | None:
    """Why OpenClaw 2026.9 does not honour this annotation on this line of this note, else None.

    What the editor's highlight and tooltip say (``curated-annotations.ts``): importance
    and triggers count only in the curated roots, on a line that ends with the comment; a
    project comment without a valid name marks the entry invalid, and search drops it.
    """
    rel = rel_path.replace("\\", "/").removeprefix("./")
    if kind == "project":
        if rel.upper() == "USER.MD":
            return msg(QT_TRANSLATE_NOOP("core", "OpenClaw 2026.9 reads no project comments in USER.md"))
        parts = value.split(";")
        if any(v2026_9.normalize_project_key(part) is None for part in parts):
            return msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    "a project comment without a valid name: OpenClaw 2026.9 stores it as an invalid "
                    "project and hides these lines from every search",
                )
            )
        return None
    if rel not in CURATED_ROOTS:
        return msg(
            QT_TRANSLATE_NOOP(
                "core",
                "OpenClaw 2026.9 reads importance and triggers only in MEMORY.md and USER.md; "
                "in this note the agent ignores it",
            )
        )
    if not line.rstrip().endswith("-->"):
        return msg(
            QT_TRANSLATE_NOOP(
                "core",
                "OpenClaw 2026.9 reads importance and triggers only at the very end of a line; "
                "here the agent ignores it",
            )
        )
    if kind == "importance" and not (re.fullmatch(r"\d+", value) and 1 <= int(value) <= 10):
        return msg(
            QT_TRANSLATE_NOOP(
                "core",
                "OpenClaw 2026.9 reads importance only as a whole number from 1 to 10; it ignores this one",
            )
        )
    return None
