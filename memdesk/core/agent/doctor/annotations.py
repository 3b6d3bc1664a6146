"""The ``annotation`` and ``project`` checks: comments in notes the agent's release ignores or misreads."""

from __future__ import annotations

import re

from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.core.openclaw import v2026_9

from .. import annotate
from ..config import Layout
from .findings import DoctorReport, Finding

_PROJECT_MARK = re.compile(r"<!--\s*project\s*:", re.IGNORECASE)


def _check_annotations(report: DoctorReport, layout: Layout, texts: dict[str, str]) -> None:
    """Importance/trigger comments the agent will not read (where the user put effort)."""
    for rel, text in texts.items():
        ignored = 0
        first = 0
        for number, line in enumerate(text.split("\n"), start=1):
            kinds = [kind for _s, _e, kind, _v in annotate.annotation_spans(line)]
            if not kinds:
                continue
            if layout == "2026.4" or (
                ("importance" in kinds or "trigger" in kinds)
                and (annotate.importance_effect(rel) is not None or not line.rstrip().endswith("-->"))
            ):
                ignored += 1
            if ignored and not first:
                first = number
        if not ignored:
            continue
        if layout == "2026.4":
            why = msg(
                QT_TRANSLATE_NOOP("core", "OpenClaw 2026.4 reads no annotations; they only count from 2026.9")
            )
        elif annotate.importance_effect(rel) is not None:
            why = msg(
                QT_TRANSLATE_NOOP(
                    "core", "OpenClaw 2026.9 reads importance and triggers only in MEMORY.md and USER.md"
                )
            )
        else:
            why = msg(QT_TRANSLATE_NOOP("core", "OpenClaw 2026.9 reads them only at the very end of a line"))
        report.add(
            Finding(
                "warning",
                "annotation",
                msg(
                    QT_TRANSLATE_NOOP("core", "{path}: {count} annotated line(s) your agent ignores: {why}"),
                    path=rel,
                    count=ignored,
                    why=why,
                ),
                rel,
                first,
                first,
            )
        )


def _invalid_project(key: str | None) -> bool:
    return v2026_9.INVALID_PROJECT_KEY in [k.strip() for k in (key or "").split(";")]


def _check_projects(report: DoctorReport, texts: dict[str, str]) -> None:
    """Notes (or entries) 2026.9 hides because of a bare or malformed project comment.

    ``extractCuratedEntryRecallMetadata`` marks an entry whose project comments do not
    all parse (``<!-- project: -->``, an unclosed one, a key with ``<``/``>``) with the
    invalid-project key, and every search drops such chunks; a daily note's entry is
    its chunk, so a short note disappears whole.
    """
    for rel, text in texts.items():
        chunks = v2026_9.prepare_file_chunks(rel, text)
        hidden = [c for c, meta in chunks if _invalid_project(meta.project_key)]
        if not hidden:
            continue
        source_lines = text.replace("\r\n", "\n").split("\n")
        culprits: list[int] = []
        for chunk in hidden:
            start = chunk.entry_start if chunk.entry_start is not None else chunk.start_line
            end = chunk.entry_end if chunk.entry_end is not None else chunk.end_line
            for number in range(start, end + 1):
                text_line = source_lines[number - 1]
                if number in culprits or not _PROJECT_MARK.search(text_line):
                    continue
                alone = v2026_9.extract_recall_metadata(
                    [text_line], curated_root=False, project_scope_eligible=True
                )
                if _invalid_project(alone.project_key):
                    culprits.append(number)
            if not culprits:  # a comment that spans lines: name where it starts
                culprits += [n for n in range(start, end + 1) if _PROJECT_MARK.search(source_lines[n - 1])][
                    :1
                ]
        line = min(culprits) if culprits else hidden[0].start_line
        if len(hidden) == len(chunks):
            what = msg(QT_TRANSLATE_NOOP("core", "the whole note"))
        else:
            what = msg(
                QT_TRANSLATE_NOOP("core", "lines {start}-{end}"),
                start=min(c.start_line for c in hidden),
                end=max(c.end_line for c in hidden),
            )
        report.add(
            Finding(
                "error",
                "project",
                msg(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "{path}:{line}: a bare or malformed <!-- project: --> comment; OpenClaw 2026.9 "
                        "stores it as an invalid project and hides {what} from every search",
                    ),
                    path=rel,
                    line=line,
                    what=what,
                ),
                rel,
                line,
                line,
                fix=msg(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "name the project (<!-- project: atlas -->, several separated by ;) or remove "
                        "the comment",
                    )
                ),
            )
        )
