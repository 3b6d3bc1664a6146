"""``memdesk model build|list``: offline GGUF embedding models."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memdesk.cli import common
from memdesk.core import paths


def cmd_model(args: argparse.Namespace) -> int:
    from memdesk.core.embed.models import registry

    folder = paths.models_dir()
    if args.model_cmd == "list":
        infos = registry.list_models(folder)
        data = [registry.model_info_json(i) for i in infos]
        lines = [
            f"{'*' if d.get('default') else ' '} {d['name']:<10} "
            f"{'built' if d['built'] else 'not built':<10} {d['path']}"
            for d in data
        ]
        common.emit(data, args.json, "\n".join(lines))
        return 0
    names = list(registry.MODEL_NAMES) if args.name == "all" else [args.name]
    for name in names:

        def progress(msg: str, _name: str = name) -> None:
            sys.stderr.write(f"[{_name}] {msg}\n")
            sys.stderr.flush()

        path = registry.build_model(name, folder, progress=progress, force=args.force)
        sys.stdout.write(f"{name}: {path}\n")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("model", help="build or list embedding models (offline)")
    msub = p.add_subparsers(dest="model_cmd", required=True)
    b = msub.add_parser("build", help="convert pip-installed weights to GGUF")
    b.add_argument("name", nargs="?", default="all", choices=("minilm", "e5-small", "all"))
    b.add_argument("--force", action="store_true", help="rebuild even if up to date")
    b.set_defaults(func=cmd_model)
    ls = msub.add_parser("list", help="built and configured models")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_model)
