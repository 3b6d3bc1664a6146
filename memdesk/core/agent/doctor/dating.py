"""The ``decay`` check: notes the agent ages (or never ages) differently from what their name says."""

from __future__ import annotations

import re

from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.core.openclaw import decay as decay4

from ..config import AgentSearch, Layout
from ..sources import SourceListing
from .findings import Finding

_DATED_2026_9 = re.compile(r"(?:^|/)memory/(?:[^/]+/)*(\d{4})-(\d{2})-(\d{2})(?:-[^/]+)?\.md$")
# A date anywhere in a path: what a person reads as "this note is from that day/month".
_LOOKS_DATED = re.compile(r"(?<!\d)(\d{4})[-_.]?(0[1-9]|1[0-2])(?:[-_.]?(0[1-9]|[12]\d|3[01]))?(?!\d)")


def agent_dates_path(rel: str, layout: Layout) -> bool:
    """True when the agent of this release takes the note's date from its path."""
    normalized = rel.replace("\\", "/").removeprefix("./")
    if layout == "2026.4":
        return decay4.dated_path_date(normalized) is not None
    return _DATED_2026_9.search(normalized) is not None


def agent_evergreen(rel: str, layout: Layout) -> bool:
    normalized = rel.replace("\\", "/").removeprefix("./")
    if layout == "2026.4":
        return decay4.is_evergreen_memory_path(normalized)
    if normalized in ("MEMORY.md", "USER.md"):
        return True
    return normalized.startswith("memory/") and not _DATED_2026_9.search(normalized)


def _decay_findings(listing: SourceListing, layout: Layout, search: AgentSearch) -> list[Finding]:
    if not search.decay:
        return []
    out: list[Finding] = []
    half = f"{search.half_life_days:g}"
    for source in listing.files:
        rel = source.rel_path
        looks_dated = _LOOKS_DATED.search(rel.rsplit("/", 1)[-1]) or _LOOKS_DATED.search(rel)
        if agent_dates_path(rel, layout):
            continue
        if agent_evergreen(rel, layout):
            if looks_dated:
                out.append(
                    Finding(
                        "warning",
                        "decay",
                        msg(
                            QT_TRANSLATE_NOOP(
                                "core",
                                "{path} looks dated, but your agent treats it as evergreen: "
                                "it never ages, so it competes with today's notes at full weight",
                            ),
                            path=rel,
                        ),
                        rel,
                        fix=msg(QT_TRANSLATE_NOOP("core", "name it memory/YYYY-MM-DD.md"))
                        if layout == "2026.4"
                        else msg(
                            QT_TRANSLATE_NOOP(
                                "core", "name it YYYY-MM-DD.md or YYYY-MM-DD-topic.md under memory/"
                            )
                        ),
                    )
                )
        else:
            out.append(
                Finding(
                    "info",
                    "decay",
                    msg(
                        QT_TRANSLATE_NOOP(
                            "core",
                            "{path} is outside memory/, so your agent ages it by its file "
                            "modification time (half-life {days} days); an old reference note sinks",
                        ),
                        path=rel,
                        days=half,
                    ),
                    rel,
                    fix=msg(QT_TRANSLATE_NOOP("core", "move it under memory/ to keep it evergreen")),
                )
            )
    return out
