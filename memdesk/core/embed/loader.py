"""Which embedder a model spec means: ``"auto"`` (the built default), ``None``/``"none"``
(keyword search only, on purpose) or a GGUF file path. The one place these words are read."""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path

from memdesk.core import errors, paths
from memdesk.core.embed.embedder import Embedder
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.core.messages import of as message_of

log = logging.getLogger(__name__)

ModelSpec = Path | str | None


def parse_model_spec(value: str | Path | None) -> ModelSpec:
    """A command-line or preference value as a spec: missing or ``auto`` is the
    default model, ``none`` (any case) is keyword-only, anything else a path."""
    if value is None:
        return "auto"
    if isinstance(value, Path):
        return value
    if value.lower() == "none":
        return None
    if value == "auto":
        return "auto"
    return Path(value).expanduser()


def load_embedder(model: ModelSpec) -> tuple[Embedder | None, str | None]:
    """Resolve ``model`` to an embedder, or (None, why not) for FTS-only mode.

    ``"auto"`` is the default built model in the models dir; ``None``/``"none"``
    means FTS-only on purpose; anything else is a GGUF path. Never raises for a
    bad model: the caller degrades to FTS-only and shows the reason.
    """
    if model is None or (isinstance(model, str) and model.lower() == "none"):
        return None, msg(QT_TRANSLATE_NOOP("core", "no embedding model selected (FTS-only by choice)"))
    path: Path | None
    reference: Path | None = None
    if isinstance(model, str) and model == "auto":
        try:
            from memdesk.core.embed.models import registry

            path = registry.find_default_model(paths.models_dir())
            # This CPU's format of the model: OpenClaw's profiles still compute on the F16 file.
            reference = registry.portable_file(path) if path is not None else None
        except ImportError:
            path = None
        if path is None:
            return None, msg(
                QT_TRANSLATE_NOOP("core", "no embedding model built yet (run: memdesk model build)")
            )
    else:
        path = Path(model).expanduser()
    if importlib.util.find_spec("llama_cpp") is None:
        return None, msg(QT_TRANSLATE_NOOP("core", "llama-cpp-python is not installed"))
    try:
        from memdesk.core.embed import gguf_embedder

        # Lazy: the header is checked now, the weights load on first use, so
        # opening a workspace (status, keyword search, the window) never waits.
        return gguf_embedder.GgufEmbedder(path, lazy=True, reference_model=reference), None
    except errors.EmbedderUnavailable as exc:
        log.warning("%s", exc)
        return None, message_of(exc)
