"""``memdesk agent …`` and ``memdesk doctor --openclaw``: the user's own OpenClaw agent.

``agent list`` / ``agent status`` show the agent's config, workspace, sources and its
own index (read-only); ``agent search`` runs a query against that index beside
memdesk's; ``agent sessions`` lists and searches session transcripts with the scope
the agent applies; ``agent apply`` writes tuned settings into ``openclaw.json``
(diff first, ``--yes`` to write); ``doctor --openclaw`` lists what will go wrong in
the agent's own indexing and search. ``--json`` output is a stable contract.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memdesk.cli import common
from memdesk.cli.common import emit
from memdesk.core import diskio, errors, paths
from memdesk.core.agent import config as agent_config
from memdesk.core.agent import doctor as agent_doctor
from memdesk.core.agent import export as agent_export
from memdesk.core.agent import sessions as agent_sessions
from memdesk.core.agent import status as agent_status
from memdesk.core.agent.compare import agent_results, open_query_embedder
from memdesk.core.agent.index import AgentIndex, AgentIndexError
from memdesk.core.search import profiles
from memdesk.core.search import settings as settings_mod

EXIT_FINDINGS = 2
"""``doctor`` exit status when it found at least one error."""


def _setup(args: argparse.Namespace) -> agent_config.OpenClawSetup:
    config_file = Path(args.config).expanduser() if getattr(args, "config", None) else None
    return agent_config.discover(config_file=config_file, layout=getattr(args, "openclaw_version", None))


def _common(p: argparse.ArgumentParser, *, agent: bool = True) -> None:
    p.add_argument("--config", metavar="FILE", help="openclaw.json (default: OpenClaw's own lookup)")
    p.add_argument(
        "--openclaw-version",
        choices=agent_config.LAYOUTS,
        dest="openclaw_version",
        help="read the config as this OpenClaw release does (default: detected)",
    )
    if agent:
        p.add_argument("--agent", metavar="ID", help="agent id (default: the default agent)")
    p.add_argument("--json", action="store_true", help="print JSON")


def _index_summary(agent: agent_config.Agent, layout: agent_config.Layout) -> dict[str, Any]:
    index: dict[str, Any] = agent_status.agent_overview(agent, layout).to_json()["index"]
    return index


def cmd_agent_list(args: argparse.Namespace) -> int:
    setup = _setup(args)
    data = setup.to_json()
    lines = [
        f"config     {setup.config_path}{'' if setup.config_exists else ' (missing: OpenClaw defaults)'}",
        f"layout     OpenClaw {setup.layout} ({setup.layout_reason})",
    ]
    for agent in setup.agents:
        mark = "*" if agent.default else " "
        state = (
            "memory search off"
            if agent.search is None
            else (f"{agent.search.provider}{'/' + agent.search.model if agent.search.model else ''}")
        )
        lines.append(f"{mark} {agent.id:<12} {agent.workspace}  [{state}]")
    lines += [f"warning: {w}" for w in setup.warnings]
    if not setup.installed:  # every path above is only where OpenClaw would keep it
        lines.insert(0, f"warning: {agent_config.not_found_message(setup)}")
    emit(data, args.json, "\n".join(lines))
    return 0


def cmd_agent_status(args: argparse.Namespace) -> int:
    setup = _setup(args)
    agent = setup.agent(args.agent)
    index = _index_summary(agent, setup.layout)
    data = {
        "setup": {k: v for k, v in setup.to_json().items() if k != "agents"},
        "agent": agent.to_json(),
        "index": index,
    }
    search = agent.search
    lines = [
        f"agent      {agent.id}{' (default)' if agent.default else ''}",
        f"config     {setup.config_path} — OpenClaw {setup.layout} layout",
        f"workspace  {agent.workspace}",
    ]
    if search is None:
        lines.append("search     disabled")
    else:
        extra = ", ".join(e.path + (f" ({e.pattern})" if e.pattern else "") for e in search.extra_paths)
        lines += [
            f"provider   {search.provider}" + (f" / {search.model}" if search.model else ""),
            f"sources    {', '.join(search.sources)}"
            + (
                f" (memory_search returns {', '.join(search.search_sources)})"
                if search.search_sources != search.sources
                else ""
            ),
            f"extraPaths {extra or '-'}",
            f"ranking    max {search.max_results:g}, min score {search.min_score:g}, "
            f"weights {search.vector_weight:g}/{search.text_weight:g}, "
            f"MMR {'λ ' + format(search.mmr_lambda, 'g') if search.mmr else 'off'}, "
            f"decay {str(int(search.half_life_days)) + ' d' if search.decay else 'off'}",
        ]
    lines.append(f"index      {agent.index_path}")
    if not index.get("available"):
        lines.append(f"           {index.get('reason')}")
    else:
        by_source = ", ".join(f"{n} {s}" for s, n in index["chunksBySource"].items())
        lines += [
            f"           {index['chunks']} chunks ({by_source or 'none'}) from {index['files']} files, "
            f"model {index['model'] or '-'} ({index['provider'] or '-'})",
            f"           last update {index['lastUpdate'] or 'never'}",
        ]
        drift = index["drift"]
        if drift["stale"]:
            lines.append(
                f"           your agent's index is stale for {drift['stale']} "
                f"note{'s' if drift['stale'] != 1 else ''}:"
            )
            lines += [f"             changed  {p}" for p in drift["changed"]]
            lines += [f"             new      {p}" for p in drift["new"]]
            lines += [f"             removed  {p}" for p in drift["removed"]]
        else:
            lines.append("           up to date with the files")
    emit(data, args.json, "\n".join(lines))
    return 0


def profile_for(layout: agent_config.Layout) -> settings_mod.Profile:
    """memdesk's ranking profile that reproduces this OpenClaw release (newest alias otherwise)."""
    return profiles.for_layout(layout).name


def cmd_agent_search(args: argparse.Namespace) -> int:
    setup = _setup(args)
    agent = setup.agent(args.agent)
    data: dict[str, Any] = {"query": args.query, "agent": agent.id, "layout": setup.layout}
    lines: list[str] = []
    try:
        index = AgentIndex.open(agent.index_path)
    except AgentIndexError as exc:
        data["agentIndex"] = {"available": False, "reason": str(exc)}
        lines.append(f"agent's index: {exc}")
    else:
        with index:
            embedder, note = (
                (None, "vectors skipped (--keyword-only)")
                if args.keyword_only
                else open_query_embedder(agent, paths.models_dir())
            )
            try:
                result = agent_results(agent, index, args.query, embedder=embedder, embedder_note=note)
            finally:
                if embedder is not None:
                    embedder.close()
        data["agentIndex"] = {"available": True, **result.to_json()}
        lines.append(f"agent's own index ({result.mode}){': ' + result.note if result.note else ''}")
        lines += [f"  {h.score:.3f} {h.path}:{h.start_line}-{h.end_line}" for h in result.hits] or [
            "  no hits"
        ]
    if not args.agent_only:
        from memdesk.core import engine

        profile = profile_for(setup.layout)
        settings = settings_mod.SearchSettings.defaults(profile)
        eng = engine.Engine.open(agent.workspace, model="auto")
        try:
            eng.sync()
            found = eng.search(args.query, settings)
        finally:
            eng.close()
        data["memdesk"] = {
            "profile": profile,
            "mode": found.pool.mode,
            "results": [h.to_json() for h in found.hits],
        }
        lines.append(f"memdesk, profile {profile} ({found.pool.mode}) over the same workspace")
        lines += [f"  {h.score:.3f} {h.path}:{h.start_line}-{h.end_line}" for h in found.hits] or [
            "  no hits"
        ]
    emit(data, args.json, "\n".join(lines))
    return 0


def cmd_agent_sessions(args: argparse.Namespace) -> int:
    setup = _setup(args)
    agent = setup.agent(args.agent)
    transcripts = agent_sessions.list_transcripts(
        agent.sessions_dir, agent.id, agent.index_path if setup.layout == "2026.9" else None
    )
    scopes = tuple(s for s in agent_sessions.SCOPES if args.scope in ("all", s))
    if args.query:
        corpus = agent_sessions.SessionCorpus(transcripts)
        try:
            hits = corpus.search(args.query, scopes=scopes, limit=args.limit)
        finally:
            corpus.close()
        data = {"query": args.query, "scopes": list(scopes), "results": [h.to_json() for h in hits]}
        lines = [
            f"{h.score:.3f} {h.transcript.name}:{h.message.line} [{h.transcript.scope}] "
            f"{h.message.role}: {h.snippet[:120]}"
            for h in hits
        ] or ["No matches."]
        emit(data, args.json, "\n".join(lines))
        return 0
    if args.show:
        chosen = next((t for t in transcripts if t.name == args.show or t.session_id == args.show), None)
        if chosen is None:
            raise errors.MemdeskError(f"no transcript {args.show!r} in {agent.sessions_dir}")
        data = {
            "session": chosen.name,
            "sessionKey": chosen.session_key,
            "scope": chosen.scope,
            "messages": [
                {
                    "line": m.line,
                    "role": m.role,
                    "text": m.text,
                    "timestamp": m.timestamp.isoformat() if m.timestamp else None,
                }
                for m in chosen.messages
            ],
        }
        lines = [f"{chosen.title()} — {chosen.scope}"]
        for m in chosen.messages:
            marker = ">" if args.line == m.line else " "
            stamp = m.timestamp.strftime("%Y-%m-%d %H:%M") if m.timestamp else ""
            lines.append(f"{marker}{m.line:>5} {stamp:<16} {m.role:<9} {m.text}")
        emit(data, args.json, "\n".join(lines))
        return 0
    data = {
        "sessionsDir": str(agent.sessions_dir),
        "counts": agent_sessions.scope_counts(transcripts),
        "indexedBySearch": "sessions" in (agent.search.search_sources if agent.search else ()),
        "transcripts": [
            {
                "session": t.name,
                "sessionKey": t.session_key,
                "scope": t.scope,
                "chatType": t.chat_type,
                "archived": t.archived,
                "messages": len(t.messages),
                "modified": t.modified.isoformat(),
                "stored": t.stored,
                "indexedByAgent": t.indexed,
            }
            for t in transcripts
        ],
    }
    lines = [
        f"{agent.sessions_dir}: {len(transcripts)} transcripts "
        + ", ".join(f"{n} {s}" for s, n in data["counts"].items() if n)
    ]
    lines += [
        f"  {t.modified:%Y-%m-%d} {t.scope:<8} {len(t.messages):>4} msgs  {t.title()}"
        + (
            ""
            if t.indexed or t.scope == "internal"
            else "  (not indexed until `openclaw doctor --session-sqlite import`)"
        )
        for t in transcripts
    ]
    emit(data, args.json, "\n".join(lines))
    return 0


def cmd_agent_apply(args: argparse.Namespace) -> int:
    setup = _setup(args)
    if not setup.installed:
        # As in the app: no config of an agent that is not there is planned or written.
        raise errors.MemdeskError(
            f"{agent_config.not_found_message(setup)}: nothing written "
            "(install OpenClaw, or point OPENCLAW_STATE_DIR or OPENCLAW_CONFIG_PATH at its files)"
        )
    profile = args.profile
    base = settings_mod.SearchSettings.defaults(profile)
    changes = {k: getattr(args, k) for k in ("max_results", "min_score") if getattr(args, k) is not None}
    changes |= common.ranking_overrides(args)
    tuned = base.replace(**changes)
    extras = agent_export.Extras(fts_tokenizer=args.tokenizer)
    # A temp copy of the config a killed apply left (secrets and all) goes first.
    diskio.remove_stale_temps(setup.config_path)
    plan = agent_export.plan_export(setup, tuned, target=args.target, agent_id=args.agent, extras=extras)
    backup = None
    if args.yes and plan.changed:
        backup = agent_export.apply_export(plan)
    data = plan.to_json()
    data.update({"applied": bool(args.yes and plan.changed), "backup": str(backup) if backup else None})
    lines = [plan.diff() or f"{plan.config_path} already has these settings; nothing to change."]
    for r in plan.rejected:
        lines.append(f"not applied: {r.setting} {r.value} — {r.reason}")
    lines += [f"note: {n}" for n in plan.notes]
    if plan.changed:
        lines.append(
            f"written to {plan.config_path} (backup {backup})"
            if args.yes
            else "nothing written: run again with --yes to apply"
        )
    emit(data, args.json, "\n".join(lines))
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    setup = _setup(args)
    agents = setup.agents if args.all_agents else (setup.agent(args.agent),)
    reports = [agent_doctor.run_doctor(setup, a, models_dir=paths.models_dir()) for a in agents]
    data = {
        "config": str(setup.config_path),
        "layout": setup.layout,
        "reports": [r.to_json() for r in reports],
    }
    lines: list[str] = []
    icons = {"error": "✗", "warning": "!", "info": "·"}
    for report in reports:
        lines.append(
            f"agent {report.agent_id} — OpenClaw {report.layout}, {report.workspace}, "
            f"{report.files_checked} files: {agent_doctor.summarize(report.findings)}"
        )
        for f in report.sorted():
            if f.severity == "info" and not args.verbose_findings:
                continue
            lines.append(f"  {icons[f.severity]} {f.message}")
            if f.fix:
                lines.append(f"      fix: {f.fix}")
    hidden = sum(1 for r in reports for f in r.findings if f.severity == "info")
    if hidden and not args.verbose_findings:
        lines.append(f"  ({hidden} note{'s' if hidden != 1 else ''} hidden; --all to show)")
    emit(data, args.json, "\n".join(lines))
    return EXIT_FINDINGS if any(r.worst == "error" for r in reports) else 0


def register(sub: Any) -> None:
    """Add ``agent`` and ``doctor`` to memdesk's sub-command parser."""
    p = sub.add_parser("agent", help="your OpenClaw agent: config, its own index, sessions, apply settings")
    asub = p.add_subparsers(dest="agent_cmd", required=True)
    q = asub.add_parser("list", help="agents in openclaw.json and their workspaces")
    _common(q, agent=False)
    q.set_defaults(func=cmd_agent_list)
    q = asub.add_parser("status", help="the agent's sources and its own index (read-only)")
    _common(q)
    q.set_defaults(func=cmd_agent_status)
    q = asub.add_parser("search", help="a query against the agent's own index beside memdesk's")
    q.add_argument("query")
    _common(q)
    q.add_argument("--keyword-only", action="store_true", help="skip the agent's vectors")
    q.add_argument("--agent-only", action="store_true", help="skip memdesk's side")
    q.set_defaults(func=cmd_agent_search)
    q = asub.add_parser("sessions", help="session transcripts as a corpus, with the agent's scope")
    _common(q)
    q.add_argument("--query", help="search the transcripts")
    q.add_argument(
        "--scope",
        choices=("private", "group", "internal", "unknown", "all"),
        default="private",
        help="which sessions a search may return (default: private, as the agent's recall)",
    )
    q.add_argument("--show", metavar="SESSION", help="print one transcript")
    q.add_argument("--line", type=int, help="with --show: mark this JSONL line")
    q.add_argument("--limit", type=int, default=20)
    q.set_defaults(func=cmd_agent_sessions)
    q = asub.add_parser("apply", help="write tuned settings into openclaw.json (diff first)")
    _common(q)
    q.add_argument("--target", choices=agent_config.LAYOUTS, help="OpenClaw release (default: detected)")
    q.add_argument("--profile", choices=settings_mod.PROFILES, default=settings_mod.PROFILES[0])
    q.add_argument("--max-results", type=int, dest="max_results")
    q.add_argument("--min-score", type=float, dest="min_score")
    common.add_ranking_flags(q, memdesk_additions=False)
    q.add_argument("--tokenizer", choices=("unicode61", "trigram"))
    q.add_argument("--yes", action="store_true", help="write the file (a backup is kept)")
    q.set_defaults(func=cmd_agent_apply)

    p = sub.add_parser("doctor", help="what will go wrong in your agent's own indexing and search")
    p.add_argument(
        "--openclaw",
        action="store_true",
        default=True,
        help="check the OpenClaw agent's setup (the only check so far)",
    )
    _common(p)
    p.add_argument("--all-agents", action="store_true", help="every configured agent")
    p.add_argument("--all", action="store_true", dest="verbose_findings", help="show notes too")
    p.set_defaults(func=cmd_doctor)
