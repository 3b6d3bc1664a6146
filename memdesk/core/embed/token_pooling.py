"""Pooling a forward pass's token vectors over spans of its text ("late chunking").

A mean-pooled encoder's text vector is the mean of its output token vectors. The
mean over a subset of those tokens (the lines of one passage window) is that
passage's vector *in the context of the whole text*: it costs no forward pass of
its own. These helpers are the arithmetic of it, free of llama.cpp: which tokens a
character range of the text covers, and the normalised mean of token ranges.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence

import numpy as np

# A window: the character ranges (start, end) of the text it is made of (its lines).
CharSpans = Sequence[tuple[int, int]]


def token_offsets(text: str, cuts: Iterable[int], count: Callable[[str], int]) -> dict[int, int]:
    """char position -> tokens before it in ``text``'s body, for 0, ``len(text)`` and ``cuts``.

    ``count`` gives the tokens of a piece of text without special tokens. The text is
    tokenized piece by piece between consecutive cuts; at line boundaries (the only
    cuts windows make) both bundled tokenizers (WordPiece, SentencePiece unigram)
    give the pieces' tokens exactly in a row, as the whole text's tokens (checked on
    every chunk of LoCoMo and the example workspace). Elsewhere it is an
    approximation by a token or so, which a mean over a window hardly feels.
    """
    points = sorted({0, len(text), *(min(max(0, c), len(text)) for c in cuts)})
    offsets = {0: 0}
    total = 0
    for start, end in itertools.pairwise(points):
        total += count(text[start:end])
        offsets[end] = total
    return offsets


def span_vectors(
    body: np.ndarray, token_spans: Sequence[Sequence[tuple[int, int]]], fallback: np.ndarray
) -> np.ndarray:
    """L2-normalised mean of ``body``'s rows (token vectors) over each window's token
    ranges, shape (len(token_spans), dims); ``fallback`` for a window covering no token."""
    out = np.empty((len(token_spans), body.shape[1]), dtype=np.float32)
    n = body.shape[0]
    for i, ranges in enumerate(token_spans):
        parts = [body[max(0, a) : min(b, n)] for a, b in ranges if min(b, n) > max(0, a)]
        if not parts:
            out[i] = fallback
            continue
        total = np.concatenate(parts).astype(np.float64).sum(axis=0)
        norm = float(np.linalg.norm(total))
        out[i] = (total / norm).astype(np.float32) if norm > 0 else fallback
    return out
