"""``memdesk model build|list``: offline GGUF embedding models."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from memdesk.cli import common
from memdesk.core import paths


def cmd_model(args: argparse.Namespace) -> int:
    from memdesk.core.embed.models import registry

    folder = paths.models_dir()
    if args.model_cmd == "list":
        infos = registry.list_models(folder)
        data = [registry.model_info_json(i) for i in infos]
        loaded = registry.find_default_model(folder)
        lines: list[str] = []
        for info, d in zip(infos, data, strict=True):
            mark = "  (loaded by default)" if info.path == loaded else ""
            lines.append(
                f"{'*' if d.get('default') else ' '} {d['name']:<10} "
                f"{'built' if d['built'] else 'not built':<10} {d['path']}{mark}"
            )
            # The model's files in other weight formats (BF16 on a CPU that multiplies it).
            for fmt, path in info.formats.items():
                if path != info.path:
                    mark = "  (loaded by default)" if path == loaded else ""
                    lines.append(f"  {'':<10} {fmt:<10} {path}{mark}")
        if not args.json:  # the JSON stays the list of models
            lines.append(f"llama.cpp CPU backend: {_cpu_backend_line()}")
        common.emit(data, args.json, "\n".join(lines))
        return 0
    if args.model_cmd == "embed":
        return _embed(args, registry.find_default_model(folder))
    # "all" in a desktop bundle: the models it ships the source of (building another
    # says what to do instead: pip cannot install its source into a bundle).
    names = [n for n in registry.MODEL_NAMES if registry.buildable(n)] if args.name == "all" else [args.name]
    # By default the portable F16 file and, where this CPU runs another format faster,
    # that one too (the models dir then holds one file per format; loading picks the CPU's).
    formats = [args.weights] if args.weights else list(dict.fromkeys(("f16", registry.cpu_weights())))
    for name in names:
        for weights in formats:

            def progress(msg: str, _name: str = name, _weights: str = weights) -> None:
                sys.stderr.write(f"[{_name} {_weights}] {msg}\n")
                sys.stderr.flush()

            path = registry.build_model(name, folder, progress=progress, force=args.force, weights=weights)
            sys.stdout.write(f"{name} ({weights}): {path}\n")
    return 0


def _embed(args: argparse.Namespace, default: Path | None) -> int:
    """Embed one text as a query and print its vector: a check of the model and the
    CPU backend (the packaging check compares the vectors of two CPU variants)."""
    from memdesk.core import errors
    from memdesk.core.embed import cpu_backend
    from memdesk.core.embed.gguf_embedder import GgufEmbedder

    path = Path(args.model).expanduser() if args.model else default
    if path is None:
        raise errors.EmbedderUnavailable("no embedding model built yet (run: memdesk model build)")
    embedder = GgufEmbedder(path)
    try:
        vector = [float(x) for x in embedder.embed_query(args.text)]
    finally:
        embedder.close()
    backend = cpu_backend.loaded()
    data = {
        "model": embedder.identity.model,
        "cpu_backend": backend.variant if backend else None,
        "vector": vector,
    }
    head = ", ".join(f"{x:.4f}" for x in vector[:4])
    common.emit(data, args.json, f"{data['model']} on {_cpu_backend_line()}: {len(vector)} dims [{head}, …]")
    return 0


def _cpu_backend_line() -> str:
    """Which CPU variant llama.cpp runs with here (loads llama.cpp, not a model).

    A variant forced by MEMDESK_LLAMA_CPU that cannot run is an error (one line, exit 1);
    otherwise a missing llama.cpp is only reported, as the models list is useful without it.
    """
    from memdesk.core import errors
    from memdesk.core.embed import cpu_backend, llama_runtime

    try:
        return llama_runtime.active_cpu_backend().describe()
    except errors.EmbedderUnavailable as exc:
        if os.environ.get(cpu_backend.FORCE_ENV):
            raise
        return f"unavailable ({exc})"


def register(sub: Any) -> None:
    p = sub.add_parser("model", help="build or list embedding models (offline)")
    msub = p.add_subparsers(dest="model_cmd", required=True)
    b = msub.add_parser("build", help="convert pip-installed weights to GGUF")
    b.add_argument("name", nargs="?", default="all", choices=("minilm", "e5-small", "all"))
    b.add_argument("--force", action="store_true", help="rebuild even if up to date")
    b.add_argument(
        "--weights",
        choices=("f16", "bf16", "f32", "q8_0"),
        help="the encoder matrices' format (default: f16, plus this CPU's fastest if another)",
    )
    b.set_defaults(func=cmd_model)
    ls = msub.add_parser("list", help="built and configured models")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_model)
    e = msub.add_parser("embed", help="embed one text with the default model and print its vector")
    e.add_argument("text")
    e.add_argument("--model", metavar="PATH", help="a GGUF file instead of the default model")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=cmd_model)
