"""Helpers every ``memdesk`` command shares: workspace and model arguments, output, progress."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from memdesk.core import errors, paths
from memdesk.core.embed.loader import ModelSpec, parse_model_spec
from memdesk.core.index import workspace
from memdesk.core.search import profiles
from memdesk.core.search.settings import FIELDS, SearchSettings

# The settings with a ranking flag (``Field.flag``): dest -> SearchSettings field.
RANKING_FIELDS = tuple(f.name for f in FIELDS.values() if f.flag)


def add_common(p: argparse.ArgumentParser, *, model: bool = True) -> None:
    p.add_argument(
        "--workspace",
        metavar="DIR",
        help="memory workspace (default: ~/.openclaw/workspace, else the current folder)",
    )
    if model:
        p.add_argument(
            "--model",
            metavar="PATH|none",
            help="GGUF embedding model, or 'none' for keyword-only (default: the built default)",
        )
    p.add_argument("--json", action="store_true", help="print JSON")


def workspace_arg(value: str | None) -> Path:
    if value:
        return Path(value).expanduser()
    env = os.environ.get("MEMDESK_WORKSPACE")
    if env:
        return Path(env).expanduser()
    default = paths.default_workspace()
    if default.is_dir():
        return default
    return Path.cwd()


def model_arg(value: str | None) -> ModelSpec:
    return parse_model_spec(value)


def prepare_packaged_model() -> None:
    """On a desktop bundle's first start, build the default model into the data dir from
    the source the bundle ships (once, offline; the GUI and ``memdesk mcp`` do it in the
    background), saying so on stderr; at a later start, what a killed first start left
    unbuilt (this CPU's file). A failure is one line and leaves search keyword-only (or
    on the F16 file)."""
    from memdesk.core.embed.models import registry, weight_formats

    folder = paths.models_dir()
    missing = registry.missing_packaged_formats(folder)
    if not missing:
        return
    if weight_formats.DEFAULT_FORMAT in missing:
        sys.stderr.write(
            "memdesk: first start: preparing the embedding model from the packaged weights (once)\n"
        )
    else:
        sys.stderr.write(
            f"memdesk: preparing the embedding model's {', '.join(missing)} file for this CPU from the "
            "packaged weights (an earlier start was interrupted)\n"
        )
    start = time.monotonic()

    def progress(message: str) -> None:
        sys.stderr.write(terminal_safe(f"memdesk:   {message}") + "\n")

    try:
        registry.build_default_model(folder, progress)
    except (errors.MemdeskError, OSError) as exc:  # e.g. a full disk
        meanwhile = (
            "keyword search only" if weight_formats.DEFAULT_FORMAT in missing else "using its F16 file"
        )
        sys.stderr.write(
            terminal_safe(f"memdesk: error: cannot prepare the embedding model ({exc}); {meanwhile}") + "\n"
        )
        return
    sys.stderr.write(f"memdesk: embedding model ready in {time.monotonic() - start:.1f} s\n")


# C0 controls but tab and newline, DEL and C1 controls: ESC (and CSI, 0x9b) would let
# a note's text move the cursor, retitle or recolour the user's terminal.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """``text`` fit for a terminal: valid UTF-8, control characters shown as ``\\xNN``."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", workspace.printable(text))


def json_safe(obj: Any) -> Any:
    """``obj`` with every string valid UTF-8 (undecodable file-name bytes as ``\\xNN``,
    the same spelling ``status`` uses for skipped paths)."""
    if isinstance(obj, str):
        return workspace.printable(obj)
    if isinstance(obj, dict):
        return {json_safe(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


def emit(obj: Any, as_json: bool, text: str) -> None:
    if as_json:
        sys.stdout.write(json.dumps(json_safe(obj), ensure_ascii=False, indent=None) + "\n")
    else:
        sys.stdout.write(terminal_safe(text.rstrip("\n")) + "\n")


def warn(message: str) -> None:
    sys.stderr.write(terminal_safe(f"memdesk: warning: {message}") + "\n")


def report_repair(report: Any) -> None:
    """One line on stderr when a sync found the index damaged and rebuilt it."""
    if report.repaired:
        warn(f"the index was damaged ({report.repaired}); rebuilt it from the notes")


def open_engine(args: argparse.Namespace) -> Any:
    from memdesk.core import engine

    eng = engine.Engine.open(workspace_arg(args.workspace), model=model_arg(getattr(args, "model", None)))
    warn_fallback(eng, args)
    return eng


def warn_fallback(eng: Any, args: argparse.Namespace) -> None:
    """One warning line when an explicitly named model cannot be used (at open, or
    when it failed at first use, e.g. NaN weights), printed once."""
    if getattr(args, "_fallback_warned", False) or getattr(args, "model", None) in (None, "none", "None"):
        return
    if eng.fallback_reason:
        args._fallback_warned = True
        warn(f"{eng.fallback_reason}; using keyword search only")


def progress_printer(enabled: bool) -> Any:
    last = [0.0]

    def report(p: Any) -> None:
        now = time.monotonic()
        if enabled and (now - last[0] > 0.2 or p.phase == "finish"):
            last[0] = now
            if p.phase == "embed":
                line = f"embedding {p.embedded}/{p.to_embed} chunks (keyword search ready)"
            elif p.phase == "windows":
                line = f"refining passages {p.embedded}/{p.to_embed} chunks (hybrid search ready)"
            else:
                line = (
                    f"indexing {p.files_done}/{p.files_total} files, {p.chunks_done} chunks "
                    f"{terminal_safe(p.path[:50])}"
                )
            sys.stderr.write(f"\r{line:<80}")
            if p.phase == "finish":
                sys.stderr.write("\n")
            sys.stderr.flush()

    return report


def add_ranking_flags(p: argparse.ArgumentParser, *, memdesk_additions: bool = True) -> None:
    """The ranking settings a command can override, as ``memdesk search`` names them.

    ``memdesk_additions=False`` (what OpenClaw's config takes, ``agent apply``): without
    recency, the date match and ``--now``."""
    for field in FIELDS.values():
        if field.flag:
            p.add_argument(
                field.flag, type=int if field.integer else float, dest=field.name, metavar=field.metavar
            )
    p.add_argument("--decay", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--mmr", action=argparse.BooleanOptionalAction, default=None)
    if not memdesk_additions:
        return
    p.add_argument(
        "--recency",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="memdesk profile: newer notes win near-ties for questions about the current state",
    )
    p.add_argument(
        "--date-match",
        action=argparse.BooleanOptionalAction,
        default=None,
        dest="date_match",
        help="memdesk profile: boost notes dated in a period the query names",
    )
    p.add_argument(
        "--now",
        metavar="YYYY-MM-DD",
        help="the clock for decay, recency and relative dates (default: the workspace's newest dated note)",
    )


def ranking_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The SearchSettings changes the ranking flags ask for (unset flags are absent)."""
    changes: dict[str, Any] = {}
    for name in RANKING_FIELDS:
        value = getattr(args, name, None)
        if value is not None:
            changes[name] = value
    for name in ("decay", "mmr", "recency"):
        if getattr(args, name, None) is not None:
            changes[name] = getattr(args, name)
    match = getattr(args, "date_match", None)
    if match is not None:
        # The boost's size stays the profile's; the flag only switches it.
        changes["date_boost"] = SearchSettings.defaults(profiles.MEMDESK.name).date_boost if match else 0.0
    return changes


def parse_now(value: str | None) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise errors.MemdeskError(f"--now {value!r}: expected a date as YYYY-MM-DD") from None
