"""Embedding models memdesk builds offline into GGUF files (``memdesk model build``)."""

from __future__ import annotations

from memdesk.core.embed.models.registry import (
    DEFAULT_MODEL,
    MODEL_NAMES,
    ModelInfo,
    ModelSpec,
    build_model,
    find_default_model,
    list_models,
    model_file,
)

__all__ = [
    "DEFAULT_MODEL",
    "MODEL_NAMES",
    "ModelInfo",
    "ModelSpec",
    "build_model",
    "find_default_model",
    "list_models",
    "model_file",
]
