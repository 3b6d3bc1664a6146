"""A deterministic stand-in embedder for narrow unit tests of ranking arithmetic.

Never the only proof that search works: the engine tests also run the real GGUF model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from memdesk.core.base import lexical
from memdesk.core.embed.embedder import EmbedderIdentity


class HashEmbedder:
    """Bag of words hashed into ``dims`` buckets, L2-normalised."""

    def __init__(self, dims: int = 64, name: str = "hash-64") -> None:
        self._identity = EmbedderIdentity(provider="fake", model=name, dims=dims)
        self.calls = 0

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    @property
    def dims(self) -> int:
        return self._identity.dims

    @property
    def max_input_tokens(self) -> int:
        return 512

    def count_tokens(self, text: str) -> int:
        return len(lexical.mmr_tokens(text))

    def _vec(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dims, dtype=np.float32)
        for token in lexical.mmr_tokens(text):
            bucket = int(hashlib.md5(token.encode()).hexdigest()[:8], 16) % self.dims
            vec[bucket] += 1.0
        norm = float(np.linalg.norm(vec))
        return vec / norm if norm > 0 else vec

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, self.dims), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._vec(text)
