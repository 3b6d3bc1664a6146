"""The ``Embedder`` protocol the indexer and search take, and the model identity record.

Any object with these members works: the llama.cpp GGUF embedder
(``memdesk.core.embed.gguf_embedder``), or a small fake in unit tests of ranking math.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@dataclasses.dataclass(frozen=True)
class EmbedderIdentity:
    """What makes two embedders' vectors interchangeable; stored in the index ``meta``.

    ``provider``/``model``/``provider_key`` are the embedding-cache key parts, as in
    OpenClaw; ``file_sha256`` pins the exact weights.
    """

    provider: str  # "gguf" for llama.cpp models, "fake" in tests
    model: str  # human name, e.g. "multilingual-e5-small"
    dims: int
    pooling: str = "mean"
    query_prefix: str = ""
    document_prefix: str = ""
    file_sha256: str = ""

    @property
    def provider_key(self) -> str:
        """sha256 of the JSON of everything that changes the vectors besides the text."""
        data = {
            "provider": self.provider,
            "model": self.model,
            "dims": self.dims,
            "pooling": self.pooling,
            "query_prefix": self.query_prefix,
            "document_prefix": self.document_prefix,
            "file_sha256": self.file_sha256,
        }
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def to_json(self) -> dict[str, object]:
        return dataclasses.asdict(self) | {"provider_key": self.provider_key}


@runtime_checkable
class Embedder(Protocol):
    """Turns text into L2-normalised float32 vectors of ``identity.dims`` dimensions."""

    @property
    def identity(self) -> EmbedderIdentity: ...

    @property
    def dims(self) -> int: ...

    @property
    def max_input_tokens(self) -> int:
        """Longest sequence (in the model's own tokens, prefix included) it can take."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes as a document (prefix and special tokens included)."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Shape (len(texts), dims), rows L2-normalised. Never aborts on long input."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """Shape (dims,), L2-normalised."""
        ...


@runtime_checkable
class WindowEmbedder(Protocol):
    """An embedder that pools passage windows from the forward pass of their whole text
    ("late chunking", ``GgufEmbedder.embed_documents_windowed``)."""

    def embed_documents_windowed(
        self, texts: Sequence[str], windows: Sequence[Sequence[Sequence[tuple[int, int]]]]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """(``embed_documents(texts)``, per text one row per window), each window given as
        the character ranges of its text it is made of; rows L2-normalised."""
        ...
