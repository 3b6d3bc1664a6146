"""``memdesk search``: search the workspace as the agent would."""

from __future__ import annotations

import argparse
import time
from typing import Any

from memdesk.cli import common
from memdesk.core import errors
from memdesk.core.search import settings as settings_mod


def _settings_from(args: argparse.Namespace) -> settings_mod.SearchSettings:
    base = settings_mod.SearchSettings.defaults(args.profile)
    changes = common.ranking_overrides(args)
    for name in ("max_results", "min_score"):
        value = getattr(args, name, None)
        if value is not None:
            changes[name] = value
    return base.replace(**changes)


def cmd_search(args: argparse.Namespace) -> int:
    now = common.parse_now(args.now)
    settings = _settings_from(args)
    eng = common.open_engine(args)
    try:
        if not args.no_sync:
            common.report_repair(eng.sync())
            common.warn_fallback(eng, args)
        t0 = time.perf_counter()
        try:
            result = eng.search(args.query, settings, scope=args.scope, now=now)
        except errors.IndexCorrupt:
            # Found damaged while searching: rebuild from the notes and answer anyway.
            common.report_repair(eng.sync())
            t0 = time.perf_counter()
            result = eng.search(args.query, settings, scope=args.scope, now=now)
        total_ms = (time.perf_counter() - t0) * 1000
    finally:
        eng.close()
    timings = {k: round(v, 3) for k, v in result.pool.timings_ms.items() if k != "pool_size"}
    timings["total_ms"] = round(total_ms, 3)
    data = {
        "query": args.query,
        "mode": result.pool.mode,
        "profile": settings.profile,
        "settings": settings.to_json(),
        "timings_ms": timings,
        "results": [h.to_json() for h in result.hits],
    }
    lines = []
    for h in result.hits:
        lines.append(
            f"{h.score:.3f} {h.path}:{h.start_line}-{h.end_line}  "
            f"(vec {_fmt(h.vector_score)} txt {_fmt(h.text_score)} decay {h.decay:.3f})"
        )
        lines.append("    " + " ".join(h.snippet.split())[:160])
    common.emit(data, args.json, "\n".join(lines) if lines else "No matches.")
    return 0


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def register(sub: Any) -> None:
    p = sub.add_parser("search", help="search the workspace as the agent would")
    p.add_argument("query")
    common.add_common(p)
    p.add_argument("--profile", choices=settings_mod.PROFILES, default="memdesk")
    p.add_argument("--max-results", type=int, dest="max_results")
    p.add_argument("--min-score", type=float, dest="min_score")
    common.add_ranking_flags(p)
    p.add_argument(
        "--scope",
        choices=("all", "shared"),
        default="all",
        help="'shared' searches as in a group chat (no MEMORY.md / memory.md)",
    )
    p.add_argument("--no-sync", action="store_true", help="search without syncing a dirty index")
    p.set_defaults(func=cmd_search)
