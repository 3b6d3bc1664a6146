"""Maximal Marginal Relevance re-ranking (``mmr.ts``).

OpenClaw's MMR tokenizes the (<=700 unit) snippet into ASCII word tokens plus
CJK unigrams/bigrams, normalizes relevance min-max over the whole candidate
list, then greedily picks ``argmax lambda*rel - (1-lambda)*maxJaccard``.
:func:`mmr_select` is the generic greedy core (also used by memdesk's own
ranking); :func:`mmr_rerank` is OpenClaw's entry point expressed through it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from .config import DEFAULT_MMR_LAMBDA
from .text import js_lower, js_trim

_ASCII_TOKEN_RE = re.compile(r"[a-z0-9_]+")
# Scripts without whitespace word boundaries: kana, CJK ext A + unified, Hangul.
_CJK_RE = re.compile("[\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u1100-\u11ff]")


def tokenize(text: str, *, legacy: bool = False) -> set[str]:
    """MMR tokenizer: lowercase ``[a-z0-9_]+`` runs plus CJK unigrams and bigrams.

    Bigrams only join CJK characters adjacent in the text. Accented Latin,
    Cyrillic, Arabic... are dropped (``Café`` -> ``caf``). ``legacy=True`` is
    the v2026.2.27 ASCII-only tokenizer (CJK text gives the empty set).
    """
    lower = js_lower(js_trim(text))
    tokens: dict[str, None] = dict.fromkeys(_ASCII_TOKEN_RE.findall(lower))
    if legacy:
        return set(tokens)
    cjk = [(i, ch) for i, ch in enumerate(lower) if _CJK_RE.match(ch)]
    for (i, a), (j, b) in zip(cjk, cjk[1:], strict=False):
        if j == i + 1:
            tokens[a + b] = None
    for _, ch in cjk:
        tokens[ch] = None
    return set(tokens)


def jaccard_similarity(set_a: Iterable[str], set_b: Iterable[str]) -> float:
    """``|A∩B| / |A∪B|``; two empty sets are identical (1), one empty gives 0."""
    a = set_a if isinstance(set_a, (set, frozenset)) else set(set_a)
    b = set_b if isinstance(set_b, (set, frozenset)) else set(set_b)
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    inter = len(a & b)
    union = len(a) + len(b) - inter
    return 0.0 if union == 0 else inter / union


def text_similarity(content_a: str, content_b: str, *, legacy: bool = False) -> float:
    """Jaccard similarity of the two texts' MMR token sets."""
    return jaccard_similarity(tokenize(content_a, legacy=legacy), tokenize(content_b, legacy=legacy))


def compute_mmr_score(relevance: float, max_similarity: float, lambda_: float) -> float:
    """``lambda*relevance - (1-lambda)*maxSimilarity``."""
    return lambda_ * relevance - (1 - lambda_) * max_similarity


def _js_max(values: Sequence[float]) -> float:
    # Math.max: any NaN poisons the result (Python's max() is order-dependent).
    if any(math.isnan(v) for v in values):
        return math.nan
    return max(values) if values else -math.inf


def _js_min(values: Sequence[float]) -> float:
    if any(math.isnan(v) for v in values):
        return math.nan
    return min(values) if values else math.inf


def clamp_lambda(lambda_: float) -> float:
    """``Math.max(0, Math.min(1, lambda))`` (NaN stays NaN, like JS)."""
    if math.isnan(lambda_):
        return math.nan
    return max(0.0, min(1.0, lambda_))


@dataclass(frozen=True)
class MMRStep:
    """One greedy pick, in selection order.

    ``index``: position of the item in the input. ``mmr_score``: its MMR value
    when picked. ``max_sim``: its max Jaccard similarity to earlier picks.
    ``against``: input index of the earliest pick reaching that similarity, or
    None when nothing selected so far overlaps it (``max_sim == 0``).
    """

    index: int
    mmr_score: float
    max_sim: float
    against: int | None


def mmr_select(
    scores: Sequence[float],
    token_sets: Sequence[frozenset[str]],
    lambda_: float,
) -> list[MMRStep]:
    """Greedy MMR over all items with OpenClaw's normalization and tie rules.

    Relevance is ``(s-min)/(max-min)`` over all ``scores`` (1 for all when the
    range is 0). Each round picks the largest MMR score; an equal MMR score is
    won by the higher original score, and a full tie keeps the earlier item. If
    no candidate has a comparable score (NaN) selection stops early, as in
    OpenClaw. ``lambda_`` is used as given (clamp it first if needed).
    """
    n = len(scores)
    if len(token_sets) != n:
        raise ValueError("scores and token_sets must have the same length")
    max_score = _js_max(scores)
    min_score = _js_min(scores)
    score_range = max_score - min_score

    def normalize(score: float) -> float:
        if score_range == 0:
            return 1.0
        return (score - min_score) / score_range

    relevance = [normalize(s) for s in scores]
    # Running max similarity to the selected set, updated as picks happen: same
    # value as OpenClaw's per-round recomputation, O(n^2) instead of O(n^3).
    max_sim = [0.0] * n
    against: list[int | None] = [None] * n
    remaining = list(range(n))
    steps: list[MMRStep] = []
    while remaining:
        best: int | None = None
        best_mmr = -math.inf
        for cand in remaining:
            mmr = compute_mmr_score(relevance[cand], max_sim[cand], lambda_)
            if mmr > best_mmr or (
                mmr == best_mmr and scores[cand] > (scores[best] if best is not None else -math.inf)
            ):
                best_mmr = mmr
                best = cand
        if best is None:
            break
        steps.append(MMRStep(best, best_mmr, max_sim[best], against[best]))
        remaining.remove(best)
        picked_tokens = token_sets[best]
        picked_len = len(picked_tokens)
        for cand in remaining:
            # jaccard_similarity inlined: this loop is the hot path of live re-ranking.
            cand_tokens = token_sets[cand]
            if not picked_len or not cand_tokens:
                sim = 1.0 if not picked_len and not cand_tokens else 0.0
            else:
                inter = len(cand_tokens & picked_tokens)
                sim = inter / (len(cand_tokens) + picked_len - inter)
            if sim > max_sim[cand]:
                max_sim[cand] = sim
                against[cand] = best
    return steps


class MMRItemLike(Protocol):
    """What :func:`mmr_rerank` needs from an item."""

    @property
    def id(self) -> str: ...

    @property
    def score(self) -> float: ...

    @property
    def content(self) -> str: ...


@dataclass(frozen=True)
class MMRItem:
    """``MMRItem``: an id, a relevance score and the text compared for diversity."""

    id: str
    score: float
    content: str


I = TypeVar("I", bound=MMRItemLike)


TokenSets = Callable[[str], frozenset[str]]
Select = Callable[[Sequence[str], Sequence[float], Sequence[frozenset[str]], float], list[MMRStep]]
"""``select(ids, scores, token_sets, lambda)``: the greedy pick order (``mmr_select``'s contract)."""


def _reference_select(
    ids: Sequence[str], scores: Sequence[float], token_sets: Sequence[frozenset[str]], lambda_: float
) -> list[MMRStep]:
    return mmr_select(scores, token_sets, lambda_)


def rerank_steps(
    ids: Sequence[str],
    scores: Sequence[float],
    contents: Sequence[str],
    *,
    enabled: bool,
    lambda_: float = DEFAULT_MMR_LAMBDA,
    legacy_tokenizer: bool = False,
    tokens: TokenSets | None = None,
    select: Select | None = None,
) -> list[MMRStep]:
    """``mmrRerank``'s order as steps: which input goes at each position, and why.

    Disabled or <=1 item: input order. lambda (clamped to [0,1]) of exactly 1:
    stable sort by score descending. Otherwise greedy MMR over token sets cached
    by id like OpenClaw (a repeated id uses the last such item's tokens).
    ``tokens`` and ``select`` swap in equivalent implementations (a cached
    tokenizer, the vectorised ``mmr_fast``); the defaults are the reference.
    """
    n = len(scores)
    if not enabled or n <= 1:
        return [MMRStep(i, scores[i], 0.0, None) for i in range(n)]
    lam = clamp_lambda(lambda_)
    if lam == 1:
        order = sorted(range(n), key=lambda i: -scores[i])
        return [MMRStep(i, scores[i], 0.0, None) for i in order]
    tokenizer = tokens or (lambda text: frozenset(tokenize(text, legacy=legacy_tokenizer)))
    cache: dict[str, frozenset[str]] = {}
    for item_id, content in zip(ids, contents, strict=True):
        cache[item_id] = tokenizer(content)
    return (select or _reference_select)(ids, scores, [cache[i] for i in ids], lam)


def mmr_rerank(
    items: Sequence[I],
    enabled: bool = False,
    lambda_: float = DEFAULT_MMR_LAMBDA,
    *,
    legacy_tokenizer: bool = False,
) -> list[I]:
    """``mmrRerank(items, {enabled, lambda})``: all items, re-ordered by MMR (see ``rerank_steps``)."""
    steps = rerank_steps(
        [item.id for item in items],
        [item.score for item in items],
        [item.content for item in items],
        enabled=enabled,
        lambda_=lambda_,
        legacy_tokenizer=legacy_tokenizer,
    )
    return [items[step.index] for step in steps]


class _HybridLike(Protocol):
    @property
    def path(self) -> str: ...

    @property
    def start_line(self) -> int: ...

    @property
    def score(self) -> float: ...

    @property
    def snippet(self) -> str: ...


H = TypeVar("H", bound=_HybridLike)


def apply_mmr_to_hybrid_results(
    results: Sequence[H],
    enabled: bool = False,
    lambda_: float = DEFAULT_MMR_LAMBDA,
    *,
    legacy_tokenizer: bool = False,
) -> list[H]:
    """``applyMMRToHybridResults``: MMR on hybrid results, comparing snippets.

    Item ids are ``path:startLine:index`` so they are unique per position.
    """
    if not results:
        return list(results)
    by_id: Mapping[str, H] = {f"{r.path}:{r.start_line}:{i}": r for i, r in enumerate(results)}
    items = [MMRItem(item_id, r.score, r.snippet) for item_id, r in by_id.items()]
    reranked = mmr_rerank(items, enabled, lambda_, legacy_tokenizer=legacy_tokenizer)
    return [by_id[item.id] for item in reranked]
