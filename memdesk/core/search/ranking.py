"""Re-ranking a fetched candidate pool: merge → temporal decay → recency → sort → MMR → cut.

Everything here is pure (no SQLite, no embedder), so the GUI re-runs it on every
slider move. Under ``openclaw-2026.4`` a keyword-only or hybrid pool is ranked by
the port itself (``openclaw.hybrid.rank_hybrid`` + ``hybrid_select``,
``keyword_search.select_fts_only``: the functions the parity runner checks), with
the vectorised MMR and cached token sets swapped in; under ``memdesk`` it uses
memdesk's MMR tokens (whole chunk text, any script) with the same arithmetic, and
two bounded additions OpenClaw does not have:

- **recency**: when the query asks for the current state ("what do we use now",
  "最终"), a note gains up to ``recency_weight`` for being recent (``2^(-age /
  half-life)`` of it; evergreen notes count as fresh). It is added, not multiplied,
  so an older note that matches better by more than ``recency_weight`` keeps its
  place: recency breaks near-ties and never buries an old answer.
- **date match**: a note dated inside a period the query names ("in July",
  "7月14日", "last week", up to ``DATE_MATCH_AFTER_DAYS`` later, since notes record
  events a few days on) gains ``date_boost``.
- **same-note penalty**: every chunk of a note below that note's best-scored chunk
  loses ``same_note_penalty``, so a near-tie from another note comes before a
  second look into one note (its chunks overlap and share its subject).
- **the newest statement wins** (current-state questions only, ``supersede.py``): a
  dated hit stating a fact the query names ("Ferry owner: Sam") that an older dated
  hit states with another value ("Ferry owner: Priya") gains ``recency_weight``; and
  a hit whose lines that match the query only ask or plan ("Who owns Ferry
  long-term?", "- [ ] decide…") takes no recency bonus.

``openclaw-2026.9`` pools arrive ranked by that release's own pipeline
(``memdesk.core.openclaw.v2026_9``): only its result selection runs here.

Which of these a pool gets is its profile's choice (``profiles/``): ``rank`` asks the
profile, which calls the pipeline below that fits it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from memdesk.core.base import lexical
from memdesk.core.openclaw import decay as oc_decay
from memdesk.core.openclaw import hybrid as oc_hybrid
from memdesk.core.openclaw import keyword_search as oc_kw
from memdesk.core.openclaw import mmr as oc_mmr
from memdesk.core.search import dates, mmr_fast, supersede, temporal
from memdesk.core.search.hits import Candidate, CandidatePool, Hit

if TYPE_CHECKING:
    from memdesk.core.search.settings import SearchSettings

# memdesk makes only the MMR picks that can be shown, comparing only the items they
# depend on (``mmr_fast.mmr_select_lazy``); False: the full selection over the whole
# head, the straightforward path the tests compare it with.
LAZY_MMR = True
# A note written up to this many days after a date the query names still counts as
# "dated then" (daily notes record what happened "yesterday" or "last week").
DATE_MATCH_AFTER_DAYS = 3


@dataclasses.dataclass
class _Scored:
    cand: Candidate
    merged: float
    decay: float = 1.0
    recency: float = 0.0
    date_boost: float = 0.0
    same_note_penalty: float = 0.0
    supersede_bonus: float = 0.0
    supersedes: tuple[str, int, str] | None = None
    superseded_by: tuple[str, int, str] | None = None
    recency_withheld: bool = False
    score: float = 0.0
    pre_mmr_rank: int = 0
    mmr_rank: int | None = None
    mmr_penalty: float = 0.0
    mmr_against: str | None = None


def pool_satisfies(pool: CandidatePool, settings: SearchSettings) -> bool:
    """False when ``settings`` ask for more candidates than ``pool`` was fetched with
    (or another profile), so the caller must fetch again instead of re-ranking."""
    fetched = pool.timings_ms.get("pool_size", 0.0)
    return pool.profile == settings.profile and settings.candidate_pool_size <= fetched


@functools.lru_cache(maxsize=8192)
def _oc_tokens(text: str) -> frozenset[str]:
    """OpenClaw's MMR tokens (its ASCII+CJK tokenizer, run on the ≤700 UTF-16 unit snippet)."""
    return frozenset(oc_mmr.tokenize(text))


# Similarity matrices of recent pools: a slider move re-ranks the same pool, so
# the matrix is computed once per pool and re-indexed for the new order.
_SIM_CACHE: dict[tuple[str, tuple[str, ...]], np.ndarray] = {}
_SIM_CACHE_SIZE = 64  # golden-set auto-tune cycles through every labelled query


def _similarity(profile: str, item_ids: Sequence[str], token_sets: Sequence[frozenset[str]]) -> np.ndarray:
    """Jaccard matrix of the items in the given order (computed once per pool)."""
    ids = tuple(sorted(item_ids))
    key = (profile, ids)
    matrix = _SIM_CACHE.get(key)
    if matrix is None:
        tokens_of = dict(zip(item_ids, token_sets, strict=True))
        matrix = mmr_fast.jaccard_matrix([tokens_of[c] for c in ids])
        if len(_SIM_CACHE) >= _SIM_CACHE_SIZE:
            # Ranked on several threads at once (GUI re-ranks, reader, auto-tune): another
            # thread may evict or insert between these steps, so evicting is best effort.
            with contextlib.suppress(StopIteration, RuntimeError):
                _SIM_CACHE.pop(next(iter(_SIM_CACHE)), None)
        _SIM_CACHE[key] = matrix
    position = {c: k for k, c in enumerate(ids)}
    order = [position[i] for i in item_ids]
    return matrix[np.ix_(order, order)]


def _select(
    profile: str,
    ids: Sequence[str],
    scores: Sequence[float],
    token_sets: Sequence[frozenset[str]],
    lam: float,
) -> list[oc_mmr.MMRStep]:
    """MMR picks: ``mmr_fast`` (same selections as the reference, property-tested) over
    the cached similarity matrix; NaN scores follow the reference loop (which may stop early)."""
    if any(math.isnan(x) for x in scores):
        return oc_mmr.mmr_select(scores, token_sets, lam)
    return mmr_fast.mmr_select(scores, _similarity(profile, ids, token_sets), lam)


def _apply_decay(
    items: list[_Scored], settings: SearchSettings, now: dt.datetime, pool: CandidatePool, additions: bool
) -> bool:
    """Decay, recency and date match; True when the query asks for the current state
    (and recency is on), so the superseding rule applies too."""
    current = (
        additions
        and settings.recency
        and settings.recency_weight > 0
        and temporal.asks_current_state(pool.query, now.date())
    )
    windows = temporal.date_windows(pool.query, now.date()) if additions and settings.date_boost > 0 else []
    after = dt.timedelta(days=DATE_MATCH_AFTER_DAYS)
    for item in items:
        date = item.cand.date
        item.decay = _freshness(date, now, settings.half_life_days) if settings.decay else 1.0
        # Recency: the same curve (evergreen notes never age), but added and bounded.
        item.recency = (
            settings.recency_weight * _freshness(date, now, settings.half_life_days) if current else 0.0
        )
        in_window = date is not None and any(first <= date <= last + after for first, last in windows)
        item.date_boost = settings.date_boost if in_window else 0.0
        item.score = item.merged * item.decay + item.recency + item.date_boost
    return current


# The superseding rule reads the statements of at most this many of the best-scored
# candidates: a statement further down cannot reach the shown results by it anyway.
SUPERSEDE_HEAD = 60


def _apply_supersede(items: list[_Scored], settings: SearchSettings, query: str) -> None:
    """The newest statement wins: see ``supersede.py`` and the module docstring.

    Runs only for current-state questions. A hit whose lines matching the query are all
    open (a question, a to-do, a plan) gives its recency back; then a dated hit stating
    a value for the subject the query names ("Ferry owner: Sam") gains ``recency_weight``
    when an older dated hit states that subject otherwise ("Ferry owner: Priya", or
    "nobody owns Ferry yet": ``supersede.older_statement``), and each records the other
    for the explanation. Flat and bounded like recency: a better-matching hit by more
    than the weight keeps its place.
    """
    words = supersede.query_words(query)
    if not words:
        return
    head = sorted(items, key=lambda i: -i.score)[:SUPERSEDE_HEAD]
    stated: list[tuple[_Scored, list[supersede.Statement]]] = []
    for item in head:
        c = item.cand
        statements, open_lines = supersede.scan(c.text, c.start_line)
        if item.recency > 0 and open_lines:
            matching = supersede.matching_lines(c.text, c.start_line, words)
            if matching and all(n in open_lines for n in matching):
                item.score -= item.recency
                item.recency = 0.0
                item.recency_withheld = True
        own = supersede.about(statements, words)
        if own and c.date is not None:
            stated.append((item, own))
    stated.sort(key=lambda pair: pair[0].cand.date or dt.date.min)
    dated = [item for item in head if item.cand.date is not None]
    cap = max(0.0, settings.recency_weight)
    for newer, newer_says in stated:
        when = newer.cand.date
        assert when is not None
        older: list[tuple[_Scored, int, str, supersede.Statement]] = []
        for item in dated:
            if item.cand.date is None or item.cand.date >= when:
                continue
            for new in newer_says:
                found = supersede.older_statement(item.cand.text, item.cand.start_line, new)
                if found is not None:
                    older.append((item, found[0], found[1], new))
                    break
        if not older:
            continue
        top, line, text, _ = max(older, key=lambda o: o[0].score)
        for item, _line, _text, new in older:
            # Newer statements come later in ``stated``: each older hit names the newest.
            item.superseded_by = (newer.cand.path, new.line, new.text)
        newer.supersedes = (top.cand.path, line, text)
    for newer, _ in stated:
        # Only the newest statement wins: one that a later hit supersedes in turn gains
        # nothing ("Deploy day moves to Tuesday" once Wednesday is stated).
        if newer.supersedes is not None and newer.superseded_by is None:
            newer.supersede_bonus = cap
            newer.score += cap


def _freshness(date: dt.date | None, now: dt.datetime, half_life_days: float) -> float:
    """The decay curve, 1 for an evergreen note (no date): OpenClaw's multiplier."""
    if date is None:
        return 1.0
    return oc_decay.calculate_decay_multiplier(dates.age_days(date, now), half_life_days)


def _apply_same_note_penalty(items: list[_Scored], penalty: float) -> None:
    """Take ``penalty`` off every chunk of a note but the note's best-scored one.

    Flat, not per extra chunk: the note's best chunk keeps its place, and its other
    chunks keep their order among themselves and move at most ``penalty`` against
    chunks of other notes. Ties go to the earlier item (pool order, as the sort).
    """
    best: dict[tuple[str, str], int] = {}
    for k, item in enumerate(items):
        key = (item.cand.source, item.cand.path)
        j = best.get(key)
        if j is None or item.score > items[j].score:
            best[key] = k
    for k, item in enumerate(items):
        if best[(item.cand.source, item.cand.path)] != k:
            item.same_note_penalty = penalty
            item.score -= penalty


def _decay_and_sort(
    items: list[_Scored], settings: SearchSettings, now: dt.datetime, pool: CandidatePool, additions: bool
) -> None:
    """Apply decay (and with memdesk's ``additions``, recency and the same-note penalty),
    stable-sort by final score and record each pre-MMR rank."""
    current = _apply_decay(items, settings, now, pool, additions)
    if current:
        _apply_supersede(items, settings, pool.query)
    penalty = min(1.0, max(0.0, settings.same_note_penalty))
    if additions and penalty > 0:
        _apply_same_note_penalty(items, penalty)
    items.sort(key=lambda i: -i.score)
    for pos, item in enumerate(items, 1):
        item.pre_mmr_rank = pos


def _apply_mmr(
    items: list[_Scored], settings: SearchSettings, profile: str, additions: bool
) -> list[_Scored]:
    if not settings.mmr or len(items) <= 1:
        return items
    if additions:
        # memdesk diversifies the head of the ranking only: an item below
        # 3 x max_results cannot climb into the shown results on diversity alone
        # at any sensible lambda, and the window keeps slider moves cheap.
        window = max(20, 3 * settings.max_results)
        if len(items) > window:
            head = _apply_mmr_all(items[:window], settings, profile, additions)
            tail = items[window:]
            for pos, item in enumerate(tail, len(head) + 1):
                item.mmr_rank = pos
            return head + tail
    return _apply_mmr_all(items, settings, profile, additions)


def _apply_mmr_all(
    items: list[_Scored], settings: SearchSettings, profile: str, additions: bool
) -> list[_Scored]:
    lam = oc_mmr.clamp_lambda(settings.mmr_lambda)
    if math.isnan(lam):
        lam = 0.7
    if lam == 1.0:
        # OpenClaw's shortcut: lambda 1 is a plain sort by score (already sorted).
        for pos, item in enumerate(items, 1):
            item.mmr_rank = pos
        return items
    scores = [i.score for i in items]
    lazy = LAZY_MMR and additions and all(math.isfinite(s) for s in scores)
    if lazy:
        # Only the picks that can be shown: the hits are the first max_results items
        # clearing min_score, so at most that many picks plus the items below it.
        # The lazy selection tokenizes and compares only the items a pick depends on
        # (about half the head); it makes the same picks as the full loop.
        shown = settings.max_results + sum(1 for s in scores if not s >= settings.min_score)
        similarity = mmr_fast.LazyJaccard([i.cand.text for i in items], [i.cand.mmr_tokens for i in items])
        steps = mmr_fast.mmr_select_lazy(scores, similarity, lam, shown)
    else:
        steps = _select(
            profile,
            [i.cand.chunk_id for i in items],
            scores,
            [lexical.mmr_tokens(i.cand.text) for i in items],
            lam,
        )
    ordered: list[_Scored] = []
    for pos, step in enumerate(steps, 1):
        item = items[step.index]
        item.mmr_rank = pos
        item.mmr_penalty = step.max_sim
        item.mmr_against = items[step.against].cand.chunk_id if step.against is not None else None
        ordered.append(item)
    if lazy and len(ordered) < len(items):
        # Items never picked follow in score order: below every shown hit, not shown.
        picked = {step.index for step in steps}
        for item in (item for k, item in enumerate(items) if k not in picked):
            ordered.append(item)
            item.mmr_rank = len(ordered)
    return ordered


def _hit(rank: int, c: Candidate, **scores: Any) -> Hit:
    """A hit: the candidate's chunk and leg scores, with ``scores`` (what the ranking made)."""
    return Hit(
        rank=rank,
        chunk_id=c.chunk_id,
        path=c.path,
        source=c.source,
        start_line=c.start_line,
        end_line=c.end_line,
        snippet=c.snippet,
        text=c.text,
        vector_score=c.vector_score,
        text_score=c.text_score,
        date=c.date,
        **scores,
    )


def _to_hits(items: Sequence[_Scored]) -> list[Hit]:
    return [
        _hit(
            pos,
            i.cand,
            merged_score=i.merged,
            decay=i.decay,
            recency=i.recency,
            date_boost=i.date_boost,
            same_note_penalty=i.same_note_penalty,
            supersede_bonus=i.supersede_bonus,
            supersedes=i.supersedes,
            superseded_by=i.superseded_by,
            recency_withheld=i.recency_withheld,
            score=i.score,
            pre_mmr_rank=i.pre_mmr_rank,
            mmr_rank=i.mmr_rank,
            mmr_penalty=i.mmr_penalty,
            mmr_against=i.mmr_against,
        )
        for pos, i in enumerate(items, 1)
    ]


def select_self_ranked(pool: CandidatePool, settings: SearchSettings) -> list[Hit]:
    """OpenClaw 2026.9's selection over its already ranked candidates.

    Hits scoring ``>= minScore``; in hybrid mode back-filled with keyword-only hits
    (no vector score) below it, and with nothing above it the keyword hits scoring
    ``>= 0``; keyword-only mode falls back to every hit. The pool is
    ``max(200, maxResults)`` and the list is cut to ``maxResults``.
    """
    cands = [c for c in pool.candidates if c.ranked is not None]

    def score(c: Candidate) -> float:
        assert c.ranked is not None
        return c.ranked.score

    cap = max(200, settings.max_results)
    strict = [c for c in cands if score(c) >= settings.min_score]
    if pool.mode == "fts":
        chosen = (strict or [c for c in cands if score(c) >= 0])[:cap]
    elif pool.mode == "vector":
        chosen = strict
    else:
        chosen = strict[:cap]
        keyword = [c for c in cands if c.ranked is not None and c.ranked.keyword_hit]
        if keyword and len(chosen) < cap:
            if not strict:
                chosen = [c for c in keyword if score(c) >= 0][:cap]
            else:
                seen = {c.chunk_id for c in chosen}
                for c in keyword:
                    if len(chosen) == cap:
                        break
                    if score(c) < settings.min_score and not c.vector_score and c.chunk_id not in seen:
                        seen.add(c.chunk_id)
                        chosen.append(c)
    hits = []
    for pos, c in enumerate(chosen[: settings.max_results], 1):
        r = c.ranked
        assert r is not None
        hits.append(
            _hit(
                pos,
                c,
                merged_score=r.merged,
                decay=r.decay,
                score=r.score,
                pre_mmr_rank=r.pre_mmr_rank,
                mmr_rank=r.mmr_rank,
                importance=c.importance,
                importance_multiplier=r.importance_multiplier,
                project_key=c.project_key,
                project_multiplier=r.project_multiplier,
                exact_path=r.exact_path,
            )
        )
    return hits


def rank(
    pool: CandidatePool, settings: SearchSettings, *, now: dt.date | dt.datetime | None = None
) -> list[Hit]:
    """Rank ``pool`` under ``settings``; every hit carries each component of its score.

    When recency moved anything, each hit also carries its rank without recency.
    """
    # The registry imports the profiles, which rank with this module's pipelines.
    from memdesk.core.search import profiles

    profile = profiles.get(pool.profile)
    settings = settings.clamped()
    clock = dates.as_utc_datetime(now)
    hits = profile.rank(pool, settings, clock)
    if not any(h.recency > 0 for h in hits):
        return hits
    plain = {h.chunk_id: h.rank for h in profile.rank(pool, settings.replace(recency=False), clock)}
    return [dataclasses.replace(h, rank_without_recency=plain.get(h.chunk_id)) for h in hits]


def rank_pipeline(
    pool: CandidatePool, settings: SearchSettings, clock: dt.datetime, *, additions: bool
) -> list[Hit]:
    """Merge → decay (→ memdesk's ``additions``: recency, date match, same-note penalty)
    → sort → MMR → cut: the memdesk profile's ranking."""
    vw, tw = settings.normalized_weights
    profile = pool.profile
    cands = pool.candidates

    if pool.mode == "vector":
        # No keyword leg (no FTS): memdesk keeps decay and MMR on the cosine score.
        items = [_Scored(c, c.vector_score or 0.0) for c in cands]
        items.sort(key=lambda i: -i.merged)
        _decay_and_sort(items, settings, clock, pool, additions)
        items = _apply_mmr(items, settings, profile, additions)
        kept = [i for i in items if i.score >= settings.min_score]
        return _to_hits(kept[: settings.max_results])

    if pool.mode == "fts":
        # Keyword-only: the text score is the whole score.
        items = [_Scored(c, c.text_score or 0.0) for c in cands]
        _decay_and_sort(items, settings, clock, pool, additions)
        items = _apply_mmr(items, settings, profile, additions)
        kept = [i for i in items if i.score >= settings.min_score]
        return _to_hits(kept[: settings.max_results])

    # Hybrid: vector hits first, then keyword-only hits (pool order), so that the
    # stable sort breaks ties the way OpenClaw's Map insertion order does.
    # A chunk not embedded yet is scored as keyword search scores it, not as half a hybrid.
    items = [
        _Scored(
            c,
            (c.text_score or 0.0)
            if c.keyword_only
            else vw * (c.vector_score or 0.0) + tw * (c.text_score or 0.0),
        )
        for c in cands
    ]
    _decay_and_sort(items, settings, clock, pool, additions)
    items = _apply_mmr(items, settings, profile, additions)
    strict = [i for i in items if i.score >= settings.min_score]
    return _to_hits(strict[: settings.max_results])


_EPOCH = dt.date(1970, 1, 1)


def _midnight_ms(date: dt.date) -> float:
    return float((date - _EPOCH).days * oc_decay.DAY_MS)


def rank_openclaw_2026_4(pool: CandidatePool, settings: SearchSettings, clock: dt.datetime) -> list[Hit]:
    """``openclaw-2026.4``'s ranking: the port's own functions.

    A candidate decays from its ``date`` (UTC midnight, as OpenClaw dates a
    ``memory/YYYY-MM-DD.md`` note); the vectorised MMR and cached token sets
    replace their reference twins (same selections, same token sets).
    """
    if pool.mode == "vector":
        # No keyword leg (no FTS): OpenClaw returns cosine hits as they are, with
        # neither decay nor MMR.
        items = [_Scored(c, c.vector_score or 0.0) for c in pool.candidates]
        items.sort(key=lambda i: -i.merged)
        for pos, item in enumerate(items, 1):
            item.score, item.pre_mmr_rank = item.merged, pos
        shown = [i for i in items if i.score >= settings.min_score]
        return _to_hits(shown[: settings.max_results])
    vw, tw = settings.normalized_weights
    cands = {c.chunk_id: c for c in pool.candidates}
    stamps = {c.path: (_midnight_ms(c.date) if c.date is not None else None) for c in pool.candidates}

    def timestamp(path: str, source: str, workspace_dir: str | None) -> float | None:
        return stamps.get(path)

    now_ms = clock.timestamp() * 1000
    if pool.mode == "fts":
        # OpenClaw applies decay, no MMR, and if nothing clears minScore returns the
        # top maxResults anyway.
        ranked = [
            oc_hybrid.RankedHit(
                c.chunk_id,
                c.path,
                c.start_line,
                c.end_line,
                c.source,
                c.snippet,
                0.0,
                c.text_score or 0.0,
                c.text_score or 0.0,
                score=c.text_score or 0.0,
            )
            for c in pool.candidates
        ]
        if settings.decay:
            ranked = oc_hybrid.decay_ranked(
                ranked, half_life_days=settings.half_life_days, now_ms=now_ms, timestamp_resolver=timestamp
            )
        ranked = oc_hybrid.sort_ranked(ranked)
        kept = oc_kw.select_fts_only(ranked, max_results=settings.max_results, min_score=settings.min_score)
        return _ranked_to_hits(kept, cands)

    vector = [
        oc_hybrid.SearchHit(
            c.chunk_id, c.path, c.start_line, c.end_line, c.source, c.snippet, vector_score=c.vector_score
        )
        for c in pool.candidates
        if c.vector_score is not None
    ]
    keyword = [
        oc_hybrid.SearchHit(
            c.chunk_id, c.path, c.start_line, c.end_line, c.source, c.snippet, text_score=c.text_score
        )
        for c in pool.candidates
        if c.text_score is not None
    ]
    options = oc_hybrid.HybridOptions(
        vector_weight=vw,
        text_weight=tw,
        mmr_enabled=settings.mmr,
        mmr_lambda=settings.mmr_lambda,
        decay_enabled=settings.decay,
        half_life_days=settings.half_life_days,
        now_ms=now_ms,
    )
    ranked = oc_hybrid.rank_hybrid(
        vector,
        keyword,
        options,
        timestamp_resolver=timestamp,
        tokens=_oc_tokens,
        select=functools.partial(_select, pool.profile),
    )
    # OpenClaw's "relaxed" pass for keyword hits the vector leg missed lives in
    # hybrid_select (dead code upstream since the bm25 fix, kept for parity).
    kept = oc_hybrid.hybrid_select(
        ranked, keyword, min_score=settings.min_score, max_results=settings.max_results, text_weight=tw
    )
    return _ranked_to_hits(kept, cands)


def _ranked_to_hits(ranked: Sequence[oc_hybrid.RankedHit], cands: dict[str, Candidate]) -> list[Hit]:
    # A ranked hit's chunk, lines and snippet are its candidate's (the port copies them).
    return [
        _hit(
            pos,
            cands[r.id],
            merged_score=r.merged,
            decay=r.decay,
            score=r.score,
            pre_mmr_rank=r.pre_mmr_rank,
            mmr_rank=r.mmr_rank,
            mmr_penalty=r.mmr_penalty,
            mmr_against=r.mmr_against,
        )
        for pos, r in enumerate(ranked, 1)
    ]
