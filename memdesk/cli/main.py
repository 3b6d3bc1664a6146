"""``memdesk`` command line: the same core calls as the GUI, JSON on request.

User errors (bad path, bad model file, corrupt source package...) print one line
on stderr and exit 1; ``--json`` output is a contract other tools parse.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from memdesk.core import errors, paths, settings as settings_mod

log = logging.getLogger("memdesk.cli")


def _workspace(value: str | None) -> Path:
    if value:
        return Path(value).expanduser()
    env = os.environ.get("MEMDESK_WORKSPACE")
    if env:
        return Path(env).expanduser()
    default = paths.default_workspace()
    if default.is_dir():
        return default
    return Path.cwd()


def _model_arg(value: str | None) -> str | Path | None:
    if value is None:
        return "auto"
    if value.lower() == "none":
        return None
    return Path(value)


def _emit(obj: Any, as_json: bool, text: str) -> None:
    if as_json:
        sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=None) + "\n")
    else:
        sys.stdout.write(text.rstrip("\n") + "\n")


def _open_engine(args: argparse.Namespace) -> Any:
    from memdesk.core import engine

    eng = engine.Engine.open(_workspace(args.workspace), model=_model_arg(getattr(args, "model", None)))
    if eng.fallback_reason and getattr(args, "model", None) not in (None, "none", "None"):
        # An explicitly named model that cannot load is worth a warning line.
        sys.stderr.write(f"memdesk: warning: {eng.fallback_reason}; using keyword search only\n")
    return eng


def _progress_printer(enabled: bool) -> Any:
    last = [0.0]

    def report(p: Any) -> None:
        now = time.monotonic()
        if enabled and (now - last[0] > 0.2 or p.phase == "finish"):
            last[0] = now
            sys.stderr.write(f"\rindexing {p.files_done}/{p.files_total} files, "
                             f"{p.chunks_done} chunks {p.path[:50]:<50}")
            if p.phase == "finish":
                sys.stderr.write("\n")
            sys.stderr.flush()

    return report


# -- commands ---------------------------------------------------------------------------
def cmd_index(args: argparse.Namespace) -> int:
    eng = _open_engine(args)
    try:
        report = eng.sync(rebuild=args.rebuild,
                          progress=_progress_printer(sys.stderr.isatty() and not args.json))
    finally:
        eng.close()
    data = report.to_json()
    failures = "".join(f"\n  skipped {f.path}: {f.reason}" for f in report.failures)
    _emit(data, args.json,
          f"{report.files} files, {report.chunks} chunks; embedded {report.embedded}, "
          f"cache hits {report.cache_hits}, removed {report.removed} in {report.seconds:.2f}s "
          f"[{report.mode}]{failures}")
    return 0


def _settings_from(args: argparse.Namespace) -> settings_mod.SearchSettings:
    base = settings_mod.SearchSettings.defaults(args.profile)
    changes: dict[str, Any] = {}
    for name in ("max_results", "min_score", "vector_weight", "text_weight",
                 "candidate_multiplier", "half_life_days", "mmr_lambda"):
        value = getattr(args, name, None)
        if value is not None:
            changes[name] = value
    if args.decay is not None:
        changes["decay"] = args.decay
    if args.mmr is not None:
        changes["mmr"] = args.mmr
    return base.replace(**changes)


def _parse_now(value: str | None) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise errors.MemdeskError(f"--now {value!r}: expected a date as YYYY-MM-DD") from None


def cmd_search(args: argparse.Namespace) -> int:
    now = _parse_now(args.now)
    settings = _settings_from(args)
    eng = _open_engine(args)
    try:
        if not args.no_sync:
            eng.sync()
        t0 = time.perf_counter()
        result = eng.search(args.query, settings, scope=args.scope, now=now)
        total_ms = (time.perf_counter() - t0) * 1000
    finally:
        eng.close()
    timings = {k: round(v, 3) for k, v in result.pool.timings_ms.items() if k != "pool_size"}
    timings["total_ms"] = round(total_ms, 3)
    data = {
        "query": args.query, "mode": result.pool.mode, "profile": settings.profile,
        "settings": settings.to_json(), "timings_ms": timings,
        "results": [h.to_json() for h in result.hits],
    }
    lines = []
    for h in result.hits:
        lines.append(f"{h.score:.3f} {h.path}:{h.start_line}-{h.end_line}  "
                     f"(vec {_fmt(h.vector_score)} txt {_fmt(h.text_score)} decay {h.decay:.3f})")
        lines.append("    " + " ".join(h.snippet.split())[:160])
    _emit(data, args.json, "\n".join(lines) if lines else "No matches.")
    return 0


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def cmd_status(args: argparse.Namespace) -> int:
    eng = _open_engine(args)
    try:
        st = eng.status()
    finally:
        eng.close()
    data = {
        "workspace": st.workspace, "files": st.files, "chunks": st.chunks,
        "dirty_files": list(st.dirty_files), "db_path": st.db_path, "db_bytes": st.db_bytes,
        "embedder": st.embedder, "dims": st.dims, "fts_available": st.fts_available,
        "vector_available": st.vector_available, "mode": st.mode,
        "fallback_reason": st.fallback_reason,
        "failures": [{"path": f.path, "reason": f.reason} for f in st.failures],
    }
    model = st.embedder["model"] if st.embedder else "none"
    text = (f"workspace  {st.workspace}\nindex      {st.db_path} ({st.db_bytes / 1024:.0f} KiB)\n"
            f"files      {st.files} indexed, {len(st.dirty_files)} dirty\nchunks     {st.chunks}\n"
            f"embedder   {model}" + (f" ({st.dims} dims)" if st.dims else "") + "\n"
            f"fts        {'yes' if st.fts_available else 'no'}\n"
            f"sqlite-vec {'yes' if st.vector_available else 'no (numpy scan)'}\n"
            f"mode       {st.mode}" + (f" — {st.fallback_reason}" if st.fallback_reason else ""))
    _emit(data, args.json, text)
    return 0


def cmd_get(args: argparse.Namespace) -> int:
    from memdesk.core import workspace
    from memdesk.core.openclaw import tools as oc_tools

    root = _workspace(args.workspace)
    path = workspace.resolve_note(root, args.path)
    text = workspace.read_note(path)
    if args.from_ or args.lines:
        # A slice is lines joined by newlines (OpenClaw's memory_get); end it with one.
        sys.stdout.write(oc_tools.read_file_slice(text, args.from_, args.lines) + "\n")
    else:
        sys.stdout.write(text)
    return 0


def cmd_model(args: argparse.Namespace) -> int:
    from memdesk.core.models import registry

    folder = paths.models_dir()
    if args.model_cmd == "list":
        infos = registry.list_models(folder)
        data = [registry.model_info_json(i) for i in infos]
        lines = [f"{'*' if d.get('default') else ' '} {d['name']:<10} "
                 f"{'built' if d['built'] else 'not built':<10} {d['path']}" for d in data]
        _emit(data, args.json, "\n".join(lines))
        return 0
    names = list(registry.MODEL_NAMES) if args.name == "all" else [args.name]
    for name in names:
        def progress(msg: str, _name: str = name) -> None:
            sys.stderr.write(f"[{_name}] {msg}\n")
            sys.stderr.flush()

        path = registry.build_model(name, folder, progress=progress, force=args.force)
        sys.stdout.write(f"{name}: {path}\n")
    return 0


def cmd_gui(args: argparse.Namespace) -> int:
    from memdesk import app

    workspace = Path(args.workspace).expanduser() if args.workspace else None
    return app.run_gui(workspace, args.model, args.query,
                       Path(args.screenshot) if args.screenshot else None)


def cmd_eval(args: argparse.Namespace) -> int:
    from memdesk.core import evaluation

    return evaluation.run_cli(args)


# -- parser -------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memdesk", description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, *, model: bool = True) -> None:
        p.add_argument("--workspace", metavar="DIR",
                       help="memory workspace (default: ~/.openclaw/workspace, else the current folder)")
        if model:
            p.add_argument("--model", metavar="PATH|none",
                           help="GGUF embedding model, or 'none' for keyword-only (default: the built default)")
        p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser("index", help="index the workspace (incremental)")
    common(p)
    p.add_argument("--rebuild", action="store_true", help="rebuild the index from scratch")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help="search the workspace as the agent would")
    p.add_argument("query")
    common(p)
    p.add_argument("--profile", choices=settings_mod.PROFILES, default="memdesk")
    p.add_argument("--max-results", type=int, dest="max_results")
    p.add_argument("--min-score", type=float, dest="min_score")
    p.add_argument("--vector-weight", type=float, dest="vector_weight")
    p.add_argument("--text-weight", type=float, dest="text_weight")
    p.add_argument("--candidate-multiplier", type=int, dest="candidate_multiplier")
    p.add_argument("--decay", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--half-life", type=int, dest="half_life_days", metavar="DAYS")
    p.add_argument("--mmr", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--mmr-lambda", type=float, dest="mmr_lambda")
    p.add_argument("--now", metavar="YYYY-MM-DD", help="fix the clock for temporal decay")
    p.add_argument("--scope", choices=("all", "shared"), default="all",
                   help="'shared' searches as in a group chat (no MEMORY.md / memory.md)")
    p.add_argument("--no-sync", action="store_true", help="search without syncing a dirty index")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("status", help="index health, mode and why")
    common(p)
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("get", help="print a memory file (or some of its lines)")
    p.add_argument("path")
    p.add_argument("--workspace", metavar="DIR")
    p.add_argument("--from", type=int, dest="from_", metavar="N", help="first line (1-based)")
    p.add_argument("--lines", type=int, metavar="K", help="number of lines")
    p.set_defaults(func=cmd_get)

    p = sub.add_parser("model", help="build or list embedding models (offline)")
    msub = p.add_subparsers(dest="model_cmd", required=True)
    b = msub.add_parser("build", help="convert pip-installed weights to GGUF")
    b.add_argument("name", nargs="?", default="all", choices=("minilm", "e5-small", "all"))
    b.add_argument("--force", action="store_true", help="rebuild even if up to date")
    b.set_defaults(func=cmd_model)
    ls = msub.add_parser("list", help="built and configured models")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_model)

    p = sub.add_parser("gui", help="start the desktop app")
    p.add_argument("--workspace", metavar="DIR")
    p.add_argument("--model", metavar="PATH|none")
    p.add_argument("--query", help="search this at start")
    p.add_argument("--screenshot", metavar="OUT.png",
                   help="wait for indexing and results, save a screenshot, exit")
    p.set_defaults(func=cmd_gui)

    p = sub.add_parser("eval", help="measure retrieval quality (BEIR dataset or golden file)")
    p.add_argument("--dataset", metavar="DIR")
    p.add_argument("--split", default="dev")
    p.add_argument("--profile", choices=("memdesk", "openclaw", "both"), default="both")
    p.add_argument("--modes", default="fts,vector,hybrid,hybrid+mmr")
    p.add_argument("--model", metavar="PATH")
    p.add_argument("--workspace", metavar="DIR")
    p.add_argument("--golden", metavar="FILE")
    p.add_argument("--limit", type=int, help="only the first N queries (quick runs)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_eval)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.ERROR,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args) or 0)
    except errors.MemdeskError as exc:
        sys.stderr.write(f"memdesk: error: {exc}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("memdesk: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
