"""``memdesk eval``: retrieval quality of a BEIR dataset or a golden file, as a table or JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from memdesk.cli import common
from memdesk.core import errors
from memdesk.core.embed.loader import parse_model_spec
from memdesk.core.eval import runner as eval_runner
from memdesk.core.eval.report import format_table
from memdesk.core.eval.runner import MODES, evaluate_dataset, evaluate_golden, settings_with
from memdesk.core.search import settings as settings_mod


def run_cli(args: Any) -> int:
    """``memdesk eval``: see the CLI help."""
    # "both" is the comparison docs/quality.md reports: memdesk against OpenClaw 2026.4.
    profiles = list(eval_runner.EVAL_PROFILES) if args.profile == "both" else [args.profile]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for m in modes:
        if m not in MODES:
            raise errors.EvalError(f"unknown mode {m!r} (one of {', '.join(MODES)})")
    model = parse_model_spec(args.model)
    settings_for = settings_with(common.ranking_overrides(args))
    now = common.parse_now(args.now)

    def progress(msg: str) -> None:
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()

    if args.golden:
        if not args.workspace:
            raise errors.EvalError("--golden needs --workspace DIR")
        report = evaluate_golden(
            Path(args.workspace).expanduser(),
            Path(args.golden),
            profiles=profiles,
            modes=modes,
            model=model,
            progress=progress,
            settings_for=settings_for,
            now=now,
            clock=args.clock,
        )
    elif args.dataset:
        report = evaluate_dataset(
            Path(args.dataset),
            split=args.split,
            profiles=profiles,
            modes=modes,
            model=model,
            limit=args.limit,
            progress=progress,
            settings_for=settings_for,
            now=now,
            clock=args.clock,
        )
    else:
        raise errors.EvalError("give --dataset DIR (BEIR layout) or --workspace DIR --golden FILE")
    if args.json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(format_table(report) + "\n")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("eval", help="measure retrieval quality (BEIR dataset or golden file)")
    p.add_argument("--dataset", metavar="DIR")
    p.add_argument("--split", default="dev")
    p.add_argument("--profile", choices=(*settings_mod.PROFILES, "both"), default="both")
    p.add_argument("--modes", default="fts,vector,hybrid,hybrid+mmr")
    p.add_argument("--model", metavar="PATH")
    p.add_argument("--workspace", metavar="DIR")
    p.add_argument("--golden", metavar="FILE")
    p.add_argument("--limit", type=int, help="only the first N queries (quick runs)")
    # The ranking flags of `memdesk search`; --mmr/--no-mmr override every mode's MMR.
    # A golden line's own "now" is that query's clock; --now is the clock of the rest.
    common.add_ranking_flags(p)
    p.add_argument(
        "--clock",
        choices=("query", "workspace", "wall"),
        default="query",
        help="the clock of a query without --now: its golden line's own 'now', else the "
        "workspace's (query); the workspace's, its newest dated note (workspace); today (wall)",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_cli)
