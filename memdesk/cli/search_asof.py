"""``memdesk search QUERY --as-of YYYY-MM-DD``: search memory as it was on that day.

The hits come from the versions of the notes current at the end of that day (the
history store, git commits included), searched with the same profile and settings,
the clock at that day (``--now`` moves it); each says which version it came from
and whether its note differs now (``core/asof``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from typing import Any

from memdesk.cli import common
from memdesk.cli import search as search_cli
from memdesk.core import errors
from memdesk.core.search import explain, highlight, near_ties


def parse_day(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise errors.MemdeskError(f"--as-of {value!r}: expected a date as YYYY-MM-DD") from None


def cmd_search_as_of(args: argparse.Namespace) -> int:
    from memdesk.core import asof
    from memdesk.core.history import open_history

    day = parse_day(args.as_of)
    now = common.parse_now(args.now)
    settings = search_cli._settings_from(args)
    eng = common.open_engine(args)
    try:
        if not args.no_sync:
            # The live index first: its vectors are the ones the snapshot reuses.
            common.report_repair(eng.sync())
            common.warn_fallback(eng, args)
        history = open_history(eng.workspace)
        try:
            snap = asof.open_snapshot(eng, history, day, progress=common.progress_printer(not args.json))
        finally:
            history.close()
        try:
            t0 = time.perf_counter()
            found = snap.search(args.query, settings, scope=args.scope, now=now)
            total_ms = (time.perf_counter() - t0) * 1000
            summary = snap.to_json()
        finally:
            snap.close()
    finally:
        eng.close()
    result = found.result
    if result.pool.notice:
        common.warn(result.pool.notice)
    timings = {k: round(v, 3) for k, v in result.pool.timings_ms.items() if k != "pool_size"}
    timings["total_ms"] = round(total_ms, 3)
    ties = near_ties.near_ties(result.hits, settings.profile)
    data: dict[str, Any] = {
        "query": args.query,
        "mode": result.pool.mode,
        "profile": settings.profile,
        "settings": settings.to_json(),
        "as_of": summary,
        "timings_ms": timings,
        "results": [h.to_json() | {"near_tie": list(ties.get(h.hit.chunk_id, ()))} for h in found.hits],
    }
    explained: dict[str, explain.Explanation] = {}
    if args.explain:
        terms = highlight.KeywordTerms.of_pool(result.pool)  # the words searched, as the pane
        for obj, marked in zip(data["results"], found.hits, strict=True):
            e = explain.explain(
                marked.hit,
                settings,
                result.pool.mode,
                hits=result.hits,
                pool=result.pool,
                terms=terms,
                today=now or day,
            )
            explained[marked.hit.chunk_id] = e
            obj["explain"] = e.to_json()
    lines = [
        f"memory as it was on {day.isoformat()}: {summary['notes']} notes, {summary['differ_now']} differ now"
        + ("" if summary["notes"] else " (the history keeps no version from that day or before)")
    ]
    for a in found.hits:
        h = a.hit
        when = a.version.at.astimezone().strftime("%Y-%m-%d %H:%M")
        lines.append(
            f"{h.score:.3f} {h.path}:{h.start_line}-{h.end_line}  "
            f"(version {a.version.id}, {when}, {a.version.source})"
            + ("  changed since" if a.changed_since else "")
        )
        lines.append("    " + " ".join(h.snippet.split())[:160])
        if h.chunk_id in explained:
            lines.extend("    " + line for line in search_cli._explain_lines(explained[h.chunk_id]))
    if not found.hits:
        lines.append("No matches.")
    common.emit(data, args.json, "\n".join(lines))
    return 0
