"""``memdesk search``: search the workspace as the agent would."""

from __future__ import annotations

import argparse
import datetime as dt
import time
from typing import Any

from memdesk.cli import common
from memdesk.core import errors
from memdesk.core.search import decay_gap, explain, explain_text, highlight, near_ties, profiles
from memdesk.core.search import filters as filters_mod
from memdesk.core.search import settings as settings_mod


def _settings_from(args: argparse.Namespace) -> settings_mod.SearchSettings:
    changes = common.ranking_overrides(args)
    for name in ("max_results", "min_score"):
        changes[name] = getattr(args, name, None)
    return settings_mod.SearchSettings.from_overrides({"profile": args.profile} | changes)


def _warn_unreadable_agent_config(settings: settings_mod.SearchSettings) -> None:
    """An OpenClaw profile reads the agent's openclaw.json; when that cannot be read the
    profile ranks with the release's defaults, and the user is told why in one line."""
    if profiles.get(settings.profile).openclaw_layout is None:
        return
    from memdesk.core.agent import config as agent_config

    try:
        agent_config.discover()
    except errors.MemdeskError as exc:
        common.warn(f"{exc}; searching with {settings.profile}'s defaults")


def _parse_day(flag: str, value: str | None) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise errors.MemdeskError(f"{flag} {value!r}: expected a date as YYYY-MM-DD") from None


def _filter_from(args: argparse.Namespace) -> filters_mod.SearchFilter:
    return filters_mod.SearchFilter.build(
        args.folder or (), _parse_day("--since", args.since), _parse_day("--until", args.until)
    )


def cmd_search(args: argparse.Namespace) -> int:
    if args.as_of is not None:
        from memdesk.cli import search_asof

        return search_asof.cmd_search_as_of(args)
    now = common.parse_now(args.now)
    flt = _filter_from(args)
    settings = _settings_from(args)
    _warn_unreadable_agent_config(settings)
    eng = common.open_engine(args)
    gap: decay_gap.DecayGap | None = None
    try:
        if not args.no_sync:
            common.report_repair(eng.sync())
            common.warn_fallback(eng, args)
        # --now, else the workspace's own clock (its newest dated note).
        clock = eng.clock(now)
        t0 = time.perf_counter()
        try:
            result = eng.search(args.query, settings, scope=args.scope, now=clock, filters=flt)
        except errors.IndexCorrupt:
            # Found damaged while searching: rebuild from the notes and answer anyway.
            common.report_repair(eng.sync())
            t0 = time.perf_counter()
            result = eng.search(args.query, settings, scope=args.scope, now=clock, filters=flt)
        total_ms = (time.perf_counter() - t0) * 1000
        # An agent profile with decay: which notes memdesk finds that the decay hides.
        gap = eng.decay_gap(result.pool, settings, scope=args.scope, now=clock, filters=flt)
    finally:
        eng.close()
    # An OpenClaw profile whose own index holds nothing (that release's reindex failed):
    # nothing was searched, and the output must not pass for a hybrid search that found
    # nothing (the window's mode line reads "No search" on the same fact).
    unsearched = result.pool.index_failed
    if result.pool.notice and not (unsearched and not args.json):
        common.warn(result.pool.notice)
    timings = {k: round(v, 3) for k, v in result.pool.timings_ms.items() if k != "pool_size"}
    timings["total_ms"] = round(total_ms, 3)
    ties = near_ties.near_ties(result.hits, settings.profile)
    data = {
        "query": args.query,
        "mode": "none" if unsearched else result.pool.mode,
        # Why nothing was searched ("mode": "none"), else null.
        "mode_reason": result.pool.notice if unsearched else None,
        "profile": settings.profile,
        "settings": settings.to_json(),
        # The day recency, decay and relative dates were measured from.
        "clock": _iso(clock),
        "filters": flt.to_json() if flt.active else None,
        "timings_ms": timings,
        # near_tie: the ranks this hit is closer to than the agent's own jitter
        # (near_ties.AGENT_JITTER): the agent may order them either way.
        "results": [h.to_json() | {"near_tie": list(ties.get(h.chunk_id, ()))} for h in result.hits],
    }
    if gap is not None:
        data["decay_hides"] = gap.to_json()
    explained: dict[str, explain.Explanation] = {}
    if args.explain:
        # The words the keyword leg searched, as the pane lists them: not a query word it
        # left out for being in half the chunks or more (keyword.searched_share).
        terms = highlight.KeywordTerms.of_pool(result.pool)
        today = _day(clock)
        for obj, h in zip(data["results"], result.hits, strict=True):
            e = explain.explain(
                h, settings, result.pool.mode, hits=result.hits, pool=result.pool, terms=terms, today=today
            )
            explained[h.chunk_id] = e
            obj["explain"] = e.to_json()
    lines = []
    for h in result.hits:
        lines.append(
            f"{h.score:.3f} {h.path}:{h.start_line}-{h.end_line}  "
            f"(vec {_fmt(h.vector_score)} txt {_fmt(h.text_score)} decay {h.decay:.3f})"
            + "".join(f"  ≈#{rank}" for rank in ties.get(h.chunk_id, ()))
        )
        lines.append("    " + " ".join(h.snippet.split())[:160])
        if h.chunk_id in explained:
            lines.extend("    " + line for line in _explain_lines(explained[h.chunk_id]))
    if ties:
        lines.append(
            f"≈#N: closer than {near_ties.AGENT_JITTER:g} to hit #N, OpenClaw's own jitter between two "
            "runs: the agent may order the two either way"
        )
    if gap is not None and gap.hidden:
        lines.append(
            f"The agent's {gap.half_life_days:g}-day decay and minimum score {gap.min_score:g} hide "
            f"{len(gap.hidden)} older note(s) that memdesk finds for this: " + ", ".join(gap.hidden)
        )
    if unsearched:
        lines.insert(0, f"No search: {result.pool.notice}")
    common.emit(data, args.json, "\n".join(lines) if lines else "No matches.")
    return 0


def _explain_lines(e: explain.Explanation) -> list[str]:
    """The explanation's score steps as plain lines (the GUI words the same data)."""
    if e.mode == "fts":
        merged = f"text {_fmt(e.text)} (keyword-only: the weights do not apply)"
    elif e.mode == "vector":
        merged = f"vector {_fmt(e.vector)} (vector-only)"
    else:
        merged = (
            f"{e.vector_weight:.2f} x vector {_fmt(e.vector)} + {e.text_weight:.2f} x text {_fmt(e.text)}"
        )
        if e.weight_sum > 0 and abs(e.weight_sum - 1.0) > 1e-9:
            merged = f"({merged}) / {e.weight_sum:.2f}"
    decay = {
        "off": "off",
        "evergreen": "x1.000, undated note (never ages)",
        "dated": f"x{e.decay:.3f}, {e.age_days} days old, half-life {e.half_life_days} days",
    }[e.decay_state]
    lines = [f"merged   {merged} = {e.merged:.3f}"]
    share = explain_text.text_share_row(e)  # the pane's words: query words left out of BM25
    if share is not None:
        lines.append(f"share    {share[0]}: {share[1]}")
    lines.append(f"decay    {decay}")
    if e.recency > 0:
        lines.append(f"recency  +{e.recency:.3f} (the question asks for the current state)")
    if e.date_boost > 0:
        lines.append(f"date     +{e.date_boost:.3f} (dated in a period the question names)")
    if e.recency_withheld:
        lines.append("recency  +0.000 (its matching lines only ask or plan: not an answer)")
    if e.supersedes is not None:
        path, line, text = e.supersedes
        lines.append(f"newer    +{e.supersede_bonus:.3f} (supersedes {path}:{line}: {text})")
    if e.superseded_by is not None:
        path, line, text = e.superseded_by
        lines.append(f"older    superseded by {path}:{line}: {text}")
    if e.same_note_penalty > 0:
        lines.append(f"note     -{e.same_note_penalty:.3f} (another chunk of this note scores higher)")
    lines.append(f"final    {e.final:.3f}")
    if e.mmr_rank is not None and e.mmr_lambda is not None:
        why = "first pick" if e.mmr_first_pick else f"similarity {e.mmr_similarity:.3f} to a hit above"
        if e.mmr_against is not None and not e.mmr_first_pick:
            why += f" ({e.mmr_against[0]}:{e.mmr_against[1]})"
        lines.append(f"mmr      lambda {e.mmr_lambda:.2f}: rank {e.pre_mmr_rank} -> {e.mmr_rank}; {why}")
    if e.matched:
        words = ", ".join(f"{m.text} x{m.count}" for m in e.matched[:8])
        lines.append(f"matched  {words}")
    return lines


def _day(clock: dt.date | dt.datetime | None) -> dt.date:
    if clock is None:
        return dt.date.today()
    return clock.date() if isinstance(clock, dt.datetime) else clock


def _iso(clock: dt.date | dt.datetime | None) -> str | None:
    return None if clock is None else _day(clock).isoformat()


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def register(sub: Any) -> None:
    p = sub.add_parser("search", help="search the workspace as the agent would")
    p.add_argument("query")
    common.add_common(p)
    p.add_argument("--profile", choices=settings_mod.PROFILES, default=settings_mod.MEMDESK)
    p.add_argument("--max-results", type=int, dest="max_results")
    p.add_argument("--min-score", type=float, dest="min_score")
    common.add_ranking_flags(p)
    p.add_argument(
        "--scope",
        choices=("all", "shared"),
        default="all",
        help="'shared' searches as in a group chat (no MEMORY.md / memory.md)",
    )
    p.add_argument(
        "--folder",
        action="append",
        metavar="DIR",
        help="only notes under this workspace folder (repeat for several), e.g. memory/projects",
    )
    p.add_argument("--since", metavar="YYYY-MM-DD", help="only notes dated on or after this day")
    p.add_argument("--until", metavar="YYYY-MM-DD", help="only notes dated on or before this day")
    p.add_argument("--no-sync", action="store_true", help="search without syncing a dirty index")
    p.add_argument("--explain", action="store_true", help="show how each hit's score came about")
    p.add_argument(
        "--as-of",
        metavar="YYYY-MM-DD",
        dest="as_of",
        help="search memory as it was at the end of that day (its notes' versions then, from the history)",
    )
    p.set_defaults(func=cmd_search)
