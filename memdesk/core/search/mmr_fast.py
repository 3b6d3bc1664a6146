"""Vectorised MMR with exactly the selections of ``openclaw.mmr.mmr_select``.

The GUI re-runs MMR on every slider move over pools of up to 200 candidates;
the pure-Python greedy loop costs O(n²) Jaccard calls in the interpreter. Here
the pairwise Jaccard matrix is one matrix product over token incidence and each
greedy round is a few array operations (a plain loop over the similarity rows for
the 30-item head memdesk diversifies, where NumPy's per-call cost would be most of
the time). The arithmetic is the same IEEE float64
sequence (``λ·rel − (1−λ)·sim``, ``inter / union``), and ties are broken the same
way (higher original score, then the earlier item), which a property test checks
against the reference implementation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from memdesk.core.openclaw.mmr import MMRStep


def jaccard_matrix(token_sets: Sequence[frozenset[str]]) -> np.ndarray:
    """Pairwise Jaccard similarity (float64, n×n); two empty sets count as identical.

    Each set becomes a Python int bitset over the pool's vocabulary, so an
    intersection count is one big-int AND and ``bit_count``: exact, and free of
    BLAS thread pools that stall when llama.cpp is busy on every core. The incidence
    matrix is filled in one indexed assignment and the values gathered in a list
    (per-element NumPy writes cost more than the arithmetic).
    """
    n = len(token_sets)
    vocab: dict[str, int] = {}
    flat = [vocab.setdefault(token, len(vocab)) for tokens in token_sets for token in tokens]
    sizes = [len(t) for t in token_sets]
    incidence = np.zeros((n, max(1, len(vocab))), dtype=bool)
    if flat:
        incidence[np.repeat(np.arange(n), sizes), np.array(flat, dtype=np.int64)] = True
    packed = np.packbits(incidence, axis=1)
    bits = [int.from_bytes(row.tobytes(), "big") for row in packed]
    values = [0.0] * (n * n)
    for i in range(n):
        bi, si = bits[i], sizes[i]
        values[i * n + i] = 1.0  # identical to itself, an empty set too
        for j in range(i + 1, n):
            inter = (bi & bits[j]).bit_count()
            union = si + sizes[j] - inter
            value = inter / union if union else 1.0  # both empty: identical
            values[i * n + j] = values[j * n + i] = value
    return np.array(values, dtype=np.float64).reshape(n, n)


# Up to this many items a plain loop beats NumPy's per-call cost (30 items: ~3x).
_LOOP_UP_TO = 64


def mmr_select(scores: Sequence[float], similarity: np.ndarray, lambda_: float) -> list[MMRStep]:
    """Greedy MMR over all items given their pairwise similarity matrix."""
    n = len(scores)
    if n == 0:
        return []
    values = [float(s) for s in scores]
    if n <= _LOOP_UP_TO and all(math.isfinite(v) for v in values):
        return _mmr_loop(values, similarity.tolist(), lambda_)
    return _mmr_arrays(values, similarity, lambda_)


def _mmr_arrays(values: list[float], similarity: np.ndarray, lambda_: float) -> list[MMRStep]:
    """``mmr_select``'s rounds as array operations (large pools)."""
    n = len(values)
    top, bottom = max(values), min(values)
    spread = top - bottom
    score_arr = np.array(values, dtype=np.float64)
    relevance = np.ones(n) if spread == 0 else (score_arr - bottom) / spread
    weighted_rel = lambda_ * relevance
    penalty_weight = 1 - lambda_
    max_sim = np.zeros(n)
    against = np.full(n, -1, dtype=np.int64)
    remaining = np.ones(n, dtype=bool)
    steps: list[MMRStep] = []
    for _ in range(n):
        mmr = weighted_rel - penalty_weight * max_sim
        masked = np.where(remaining, mmr, -np.inf)
        best_mmr = masked.max()
        tied = np.flatnonzero(remaining & (mmr == best_mmr))
        best = int(tied[0]) if len(tied) == 1 else int(tied[np.argmax(score_arr[tied])])
        steps.append(
            MMRStep(
                best,
                float(mmr[best]),
                float(max_sim[best]),
                int(against[best]) if against[best] >= 0 else None,
            )
        )
        remaining[best] = False
        sims = similarity[best]
        better = remaining & (sims > max_sim)
        max_sim = np.where(better, sims, max_sim)
        against = np.where(better, best, against)
    return steps


def _mmr_loop(values: list[float], similarity: list[list[float]], lambda_: float) -> list[MMRStep]:
    """``mmr_select``'s rounds as a plain loop: the same float64 operations per item."""
    n = len(values)
    top, bottom = max(values), min(values)
    spread = top - bottom
    weighted_rel = [lambda_ * (1.0 if spread == 0 else (v - bottom) / spread) for v in values]
    penalty_weight = 1 - lambda_
    max_sim = [0.0] * n
    against = [-1] * n
    remaining = list(range(n))
    steps: list[MMRStep] = []
    while remaining:
        best, best_mmr = -1, -math.inf
        for i in remaining:
            mmr = weighted_rel[i] - penalty_weight * max_sim[i]
            # Ties: the higher original score, then the earlier item.
            if mmr > best_mmr or (mmr == best_mmr and values[i] > values[best]):
                best, best_mmr = i, mmr
        steps.append(MMRStep(best, best_mmr, max_sim[best], against[best] if against[best] >= 0 else None))
        remaining.remove(best)
        sims = similarity[best]
        for i in remaining:
            if sims[i] > max_sim[i]:
                max_sim[i] = sims[i]
                against[i] = best
    return steps
