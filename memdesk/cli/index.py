"""``memdesk index`` and ``memdesk status``: build the index, report its health."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memdesk.cli import common
from memdesk.core.index.status import SyncReport
from memdesk.core.index.sync import retry_while_busy


def _reason(failure: Any) -> str:
    return str(failure.reason).removeprefix(f"{failure.path}: ")


def cmd_index(args: argparse.Namespace) -> int:
    def run() -> SyncReport:
        eng = common.open_engine(args)
        try:
            return eng.sync(
                rebuild=args.rebuild,
                progress=common.progress_printer(sys.stderr.isatty() and not args.json),
                verify=True,
            )
        finally:
            eng.close()

    # Opening the index can also meet another indexer's long write (it creates or
    # migrates the schema under the write lock): wait for a turn there too, as the
    # sync itself does, instead of failing after one busy timeout.
    report = retry_while_busy(run, None)
    common.report_repair(report)
    data = report.to_json()
    failures = "".join(f"\n  skipped {f.path}: {_reason(f)}" for f in (*report.failures, *report.skipped))
    common.emit(
        data,
        args.json,
        f"{report.files} files, {report.chunks} chunks; embedded {report.embedded}, "
        f"cache hits {report.cache_hits}, removed {report.removed} in {report.seconds:.2f}s "
        f"[{report.mode}]{failures}",
    )
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    eng = common.open_engine(args)
    try:
        st = eng.status(verify=True)
    finally:
        eng.close()
    data = st.to_json()
    model = st.embedder["model"] if st.embedder else "none"
    text = (
        f"workspace  {st.workspace}\nindex      {st.db_path} ({st.db_bytes / 1024:.0f} KiB)\n"
        f"files      {st.files} indexed, {len(st.dirty_files)} dirty\nchunks     {st.chunks}\n"
        f"embedder   {model}" + (f" ({st.dims} dims)" if st.dims else "") + "\n"
        f"fts        {'yes' if st.fts_available else 'no'}\n"
        f"sqlite-vec {'yes' if st.vector_available else 'no (numpy scan)'}\n"
        f"mode       {st.mode}" + (f" — {st.fallback_reason}" if st.fallback_reason else "") + "\n"
        "health     "
        + (f"DAMAGED: {st.damage} — `memdesk index` rebuilds it from the notes" if st.damage else "ok")
    )
    if st.corrupt_copy:
        text += f"\n           (an earlier damaged index was kept at {st.corrupt_copy})"
    # Every path that is not in the index says why: unreadable notes, and what
    # discovery passed over (symlinks, odd names, FIFOs, unlistable folders).
    text += "".join(f"\nskipped    {f.path}: {_reason(f)}" for f in (*st.failures, *st.skipped))
    common.emit(data, args.json, text)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("index", help="index the workspace (incremental)")
    common.add_common(p)
    p.add_argument("--rebuild", action="store_true", help="rebuild the index from scratch")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("status", help="index health, mode and why")
    common.add_common(p)
    p.set_defaults(func=cmd_status)
