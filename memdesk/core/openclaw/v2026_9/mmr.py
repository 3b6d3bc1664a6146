"""MMR in 2026.9 (``mmr.ts``): always on, λ 0.7, over snippets; two token-less snippets
are duplicates only if their texts are equal."""

from __future__ import annotations

import math

from .. import mmr as oc_mmr
from ..text import js_trim
from .constants import MMR_LAMBDA
from .results import Result


def mmr_tokens(text: str) -> frozenset[str]:
    """2026.9 ``tokenize``, unchanged since 2026.4: ASCII words plus CJK unigrams and adjacent bigrams."""
    return frozenset(oc_mmr.tokenize(text))


def mmr_rerank(items: list[Result], lambda_: float = MMR_LAMBDA) -> list[Result]:
    """``mmrRerank`` on snippets; empty token sets compare by their text."""
    if len(items) <= 1:
        return list(items)
    lam = max(0.0, min(1.0, lambda_))
    if lam == 1:
        return sorted(items, key=lambda r: -r.score)
    toks = [mmr_tokens(r.snippet) for r in items]
    empty_text = [js_trim(r.snippet).lower() if not t else None for r, t in zip(items, toks, strict=True)]
    scores = [r.score for r in items]
    hi, lo = max(scores), min(scores)
    rng = hi - lo
    rel = [1.0 if rng == 0 else (s - lo) / rng for s in scores]
    max_sim = [0.0] * len(items)
    remaining = list(range(len(items)))
    out: list[Result] = []
    while remaining:
        best = None
        best_mmr = -math.inf
        for i in remaining:
            m = lam * rel[i] - (1 - lam) * max_sim[i]
            if m > best_mmr or (
                m == best_mmr and scores[i] > (scores[best] if best is not None else -math.inf)
            ):
                best_mmr, best = m, i
        if best is None:
            break
        out.append(items[best])
        remaining.remove(best)
        for i in remaining:
            if not toks[i] and not toks[best]:
                sim = float(empty_text[i] == empty_text[best])
            elif not toks[i] or not toks[best]:
                sim = 0.0
            else:
                inter = len(toks[i] & toks[best])
                sim = inter / (len(toks[i]) + len(toks[best]) - inter)
            if sim > max_sim[i]:
                max_sim[i] = sim
    return out
