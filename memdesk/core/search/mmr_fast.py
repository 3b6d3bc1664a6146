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

import functools
import math
import threading
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from memdesk.core.base import lexical
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


# Token ids for the lazy MMR: each distinct MMR token gets one number for the life of
# the process, so a chunk's token set is a small sorted int array computed once per
# text, and an intersection count is a table look-up instead of a set operation.
_VOCAB: dict[str, int] = {}
_VOCAB_LOCK = threading.Lock()  # ranking runs on several threads; ids must never collide
# Past this many distinct tokens, new texts get no ids and are compared as sets (exact
# either way): it bounds the vocabulary's memory on a very large or ever-changing corpus.
VOCAB_LIMIT = 500_000


def _ids(tokens: Iterable[str]) -> np.ndarray | None:
    with _VOCAB_LOCK:
        new = {t for t in tokens if t not in _VOCAB}
        if len(_VOCAB) + len(new) > VOCAB_LIMIT:
            return None
        for t in new:
            _VOCAB[t] = len(_VOCAB)
        ids = [_VOCAB[t] for t in tokens]
    return np.array(sorted(ids), dtype=np.int64)


@functools.lru_cache(maxsize=8192)
def token_ids(text: str) -> np.ndarray | None:
    """The ids of ``lexical.mmr_tokens(text)`` (sorted, unique), or None when the
    vocabulary is full. Bypasses ``mmr_tokens``' own cache: the set is not kept."""
    return _ids(lexical.mmr_tokens.__wrapped__(text))


class LazyJaccard:
    """Jaccard similarity of MMR token sets of ``texts`` (by position), computed pair by
    pair on demand: the values of ``jaccard_matrix`` over ``lexical.mmr_tokens``.

    An item's set becomes a Python int bitset over token ids when first compared, so a
    pair costs one big-int AND and ``bit_count`` (a fraction of a microsecond). The ids
    are the index's own where it stored the item's tokens (``stored``), else this
    process's (``token_ids``); a pair with one of each is compared as two sets.
    """

    def __init__(self, texts: Sequence[str], stored: Sequence[bytes | None] | None = None) -> None:
        self._texts = texts
        self._stored = stored
        self._bits: dict[int, tuple[bool, int, int] | None] = {}  # i -> (stored?, bitset, size)
        self._sets: dict[int, frozenset[str]] = {}

    def _bitset(self, i: int) -> tuple[bool, int, int] | None:
        if i not in self._bits:
            ids = lexical.decode_stored_tokens(self._stored[i]) if self._stored is not None else None
            from_index = ids is not None
            if ids is None:
                ids = token_ids(self._texts[i])
            if ids is None:
                self._bits[i] = None
            else:
                flags = np.zeros(int(ids[-1]) + 1 if len(ids) else 0, dtype=bool)
                flags[ids] = True
                packed = np.packbits(flags, bitorder="little").tobytes()
                self._bits[i] = (from_index, int.from_bytes(packed, "little"), len(ids))
        return self._bits[i]

    def _set(self, i: int) -> frozenset[str]:
        if i not in self._sets:
            self._sets[i] = lexical.mmr_tokens(self._texts[i])
        return self._sets[i]

    def __call__(self, a: int, b: int) -> float:
        bits_a, bits_b = self._bitset(a), self._bitset(b)
        if bits_a is not None and bits_b is not None and bits_a[0] == bits_b[0]:
            inter, size_a, size_b = (bits_a[1] & bits_b[1]).bit_count(), bits_a[2], bits_b[2]
        else:  # a full vocabulary, or ids of two vocabularies
            set_a, set_b = self._set(a), self._set(b)
            inter, size_a, size_b = len(set_a & set_b), len(set_a), len(set_b)
        union = size_a + size_b - inter
        return inter / union if union else 1.0  # both empty: identical, as jaccard_matrix


def mmr_select_lazy(
    scores: Sequence[float], similarity: Callable[[int, int], float], lambda_: float, picks: int
) -> list[MMRStep]:
    """The first ``picks`` steps of ``mmr_select`` (same items, MMR scores, penalties and
    ``against``), asking ``similarity(selected, item)`` only where a pick could depend on it.

    An item's MMR score is its weighted relevance minus a non-negative penalty, so an
    item whose weighted relevance is below the best score found in a round can neither
    win nor tie it: items are visited in order of relevance and the round stops there.
    Each visited item's penalty is brought up to date against the picks made since its
    last visit, in pick order with the same strict comparison, so its maximum and the
    pick it is against are those of the full loop. Ties go to the higher score, then
    the earlier item, as ``mmr_select``. Scores must be finite.
    """
    n = len(scores)
    values = [float(s) for s in scores]
    if n == 0:
        return []
    top, bottom = max(values), min(values)
    spread = top - bottom
    weighted_rel = [lambda_ * (1.0 if spread == 0 else (v - bottom) / spread) for v in values]
    penalty_weight = 1 - lambda_
    by_relevance = sorted(range(n), key=lambda i: -weighted_rel[i])  # stable: earlier first
    max_sim = [0.0] * n
    against = [-1] * n
    seen = [0] * n  # how many picks each item's max_sim accounts for
    taken = [False] * n
    chosen: list[int] = []
    steps: list[MMRStep] = []
    for _ in range(min(picks, n)):
        best, best_mmr = -1, -math.inf
        for i in by_relevance:
            if taken[i]:
                continue
            if weighted_rel[i] < best_mmr:
                break  # neither this item nor any after it can reach the best
            for s in chosen[seen[i] :]:
                sim = similarity(s, i)
                if sim > max_sim[i]:
                    max_sim[i] = sim
                    against[i] = s
            seen[i] = len(chosen)
            mmr = weighted_rel[i] - penalty_weight * max_sim[i]
            if best < 0 or (mmr, values[i], -i) > (best_mmr, values[best], -best):
                best, best_mmr = i, mmr
        steps.append(MMRStep(best, best_mmr, max_sim[best], against[best] if against[best] >= 0 else None))
        taken[best] = True
        chosen.append(best)
    return steps
