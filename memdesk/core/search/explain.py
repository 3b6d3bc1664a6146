"""How one hit's score came about, as plain data the UI puts into words.

Every number is one the ranking used. The weights are the settings' own (as the
sliders show them) with their sum, since the merge divides by it; the ranks the hit
would have without decay and without MMR come from re-ranking the cached pool,
which is pure and cheap.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from typing import Literal

from memdesk.core.search import highlight, keyword, profiles, ranking
from memdesk.core.search.hits import CandidatePool, Hit
from memdesk.core.search.settings import SearchSettings

DecayState = Literal["off", "evergreen", "dated"]


@dataclasses.dataclass(frozen=True)
class MatchedTerm:
    """A query word as written in the chunk, how often it matched and on which lines."""

    text: str
    count: int
    lines: tuple[int, ...]  # 1-based note lines


@dataclasses.dataclass(frozen=True)
class Explanation:
    """The parts of one hit's score, in the order the ranking applies them."""

    path: str
    start_line: int
    end_line: int
    rank: int
    mode: str  # "hybrid" | "fts" | "vector"
    matched: tuple[MatchedTerm, ...]
    vector: float | None
    text: float | None
    vector_weight: float  # as set (the slider), not normalised
    text_weight: float
    merged: float
    decay_state: DecayState
    decay: float
    age_days: int | None
    half_life_days: int
    final: float
    date: dt.date | None
    recency: float  # added for being recent (current-state questions), 0 if not
    recency_weight: float  # the most recency can add
    # Recency is on (memdesk profile) but the query is not a current-state question, so
    # no hit gained anything: said so, or a user who switched it on sees nothing happen.
    recency_not_asked: bool
    date_boost: float  # added because the note is dated in a period the query names
    same_note_penalty: float  # taken off because another chunk of the note scores higher
    # The newest statement wins (current-state questions): added to rank just above the
    # older statement this hit supersedes; (path, line, text) of that statement, and of
    # the newer statement that supersedes this hit.
    supersede_bonus: float
    supersedes: tuple[str, int, str] | None
    superseded_by: tuple[str, int, str] | None
    # Recency was asked for, but the lines of this hit that match the query only ask or
    # plan (an open question, a to-do): no bonus for being current.
    recency_withheld: bool
    rank_without_recency: int | None  # None when recency added nothing or the hit would drop out
    dropped_without_recency: bool
    mmr_lambda: float | None  # None when MMR is off
    pre_mmr_rank: int
    mmr_rank: int | None
    mmr_against: tuple[str, int] | None  # (path, start line) of the most similar hit above
    mmr_similarity: float
    mmr_first_pick: bool  # nothing was selected before it, so no similarity penalty
    rank_without_decay: int | None  # None when decay is off or the hit would drop out
    dropped_without_decay: bool
    rank_without_mmr: int | None  # None when MMR is off
    min_score: float
    # OpenClaw 2026.9's annotation multipliers (1.0 and None elsewhere).
    importance: int | None = None  # <!-- importance: N -->
    importance_multiplier: float = 1.0  # 0.75 + 0.05 * N
    project_key: str | None = None  # <!-- project: ... -->
    project_multiplier: float = 1.0  # 1.15 active project, 0.9 another, 1 without project context
    # Why a search is keyword-only when a model is set (mode "fts"): the model was still
    # loading, or a sync was embedding notes; both False with no model.
    model_loading: bool = False
    embedder_busy: bool = False
    # In a hybrid search: not embedded yet, so scored by its text score alone.
    keyword_only: bool = False
    # In a hybrid search whose keyword leg left out words in half the chunks or more:
    # ``text`` is its keyword match * keyword_searched / keyword_asked (distinct query
    # words), ``keyword_left_out`` the words left out. 0, 0, () when nothing was scaled.
    keyword_searched: int = 0
    keyword_asked: int = 0
    keyword_left_out: tuple[str, ...] = ()

    @property
    def text_share(self) -> float:
        """What the text score was multiplied by (1.0 when nothing was left out)."""
        return self.keyword_searched / self.keyword_asked if self.keyword_asked else 1.0

    @property
    def weight_sum(self) -> float:
        return self.vector_weight + self.text_weight

    def to_json(self) -> dict[str, object]:
        """Every field as JSON values (``memdesk search --explain --json``)."""
        out = dataclasses.asdict(self)
        out["date"] = self.date.isoformat() if self.date is not None else None
        for key in ("supersedes", "superseded_by"):
            statement = getattr(self, key)
            if statement is not None:
                out[key] = {"path": statement[0], "line": statement[1], "text": statement[2]}
        return out


def matched_terms(text: str, spans: Sequence[tuple[int, int]], start_line: int) -> tuple[MatchedTerm, ...]:
    """Each matched word of a chunk (case folded together), with its count and lines."""
    seen: dict[str, tuple[str, int, list[int]]] = {}
    for start, end in spans:
        word = text[start:end]
        line = start_line + text.count("\n", 0, start)
        shown, count, lines = seen.get(word.lower(), (word, 0, []))
        if line not in lines:
            lines.append(line)
        seen[word.lower()] = (shown, count + 1, lines)
    return tuple(MatchedTerm(word, count, tuple(lines)) for word, count, lines in seen.values())


def explain(
    hit: Hit,
    settings: SearchSettings,
    mode: str,
    *,
    hits: Sequence[Hit] = (),
    pool: CandidatePool | None = None,
    terms: highlight.KeywordTerms | None = None,
    today: dt.date | None = None,
) -> Explanation:
    """Explain ``hit`` as ranked under ``settings`` (``hits``: the list it is in)."""
    spans = highlight.match_spans(hit.text, terms) if terms is not None else []
    if not settings.decay:
        state: DecayState = "off"
    elif hit.date is None:
        state = "evergreen"
    else:
        state = "dated"
    age = ((today or dt.date.today()) - hit.date).days if hit.date is not None else None
    against = next((h for h in hits if h.chunk_id == hit.mmr_against), None) if hit.mmr_against else None
    rank_without_decay: int | None = None
    dropped = False
    if pool is not None and settings.decay:
        plain = ranking.rank(pool, settings.replace(decay=False), now=today)
        rank_without_decay = next((h.rank for h in plain if h.chunk_id == hit.chunk_id), None)
        dropped = rank_without_decay is None
    searched, asked, left_out = _text_share(hit, pool)
    return Explanation(
        path=hit.path,
        start_line=hit.start_line,
        end_line=hit.end_line,
        rank=hit.rank,
        mode=mode,
        matched=matched_terms(hit.text, spans, hit.start_line),
        vector=hit.vector_score,
        text=hit.text_score,
        vector_weight=settings.vector_weight,
        text_weight=settings.text_weight,
        merged=hit.merged_score,
        decay_state=state,
        decay=hit.decay,
        age_days=age,
        half_life_days=settings.half_life_days,
        final=hit.score,
        date=hit.date,
        recency=hit.recency,
        recency_weight=settings.recency_weight,
        recency_not_asked=(
            profiles.get(settings.profile).accepts("recency")
            and settings.recency
            and settings.recency_weight > 0
            and not any(h.recency > 0 or h.recency_withheld for h in (*hits, hit))
        ),
        date_boost=hit.date_boost,
        same_note_penalty=hit.same_note_penalty,
        supersede_bonus=hit.supersede_bonus,
        supersedes=hit.supersedes,
        superseded_by=hit.superseded_by,
        recency_withheld=hit.recency_withheld,
        rank_without_recency=hit.rank_without_recency,
        dropped_without_recency=hit.recency > 0 and hit.rank_without_recency is None,
        mmr_lambda=settings.mmr_lambda if hit.mmr_rank is not None else None,
        pre_mmr_rank=hit.pre_mmr_rank,
        mmr_rank=hit.mmr_rank,
        mmr_against=(against.path, against.start_line) if against is not None else None,
        mmr_similarity=hit.mmr_penalty,
        mmr_first_pick=hit.mmr_against is None,
        rank_without_decay=rank_without_decay,
        dropped_without_decay=dropped,
        rank_without_mmr=hit.pre_mmr_rank if hit.mmr_rank is not None else None,
        min_score=settings.min_score,
        importance=hit.importance,
        importance_multiplier=hit.importance_multiplier,
        project_key=hit.project_key,
        project_multiplier=hit.project_multiplier,
        model_loading=pool is not None and pool.model_loading,
        embedder_busy=pool is not None and pool.embedder_busy,
        keyword_only=pool is not None
        and any(c.keyword_only and c.chunk_id == hit.chunk_id for c in pool.candidates),
        keyword_searched=searched,
        keyword_asked=asked,
        keyword_left_out=left_out,
    )


def _text_share(hit: Hit, pool: CandidatePool | None) -> tuple[int, int, tuple[str, ...]]:
    """(words searched, words asked, words left out) when ``hit``'s text score was
    scaled by the share of the query its keyword leg searched (``pool.memdesk_pool``:
    a hybrid hit with both scores), else (0, 0, ()). Only where the factor changed the
    score: a hit the keyword leg did not match (text 0) shows nothing."""
    if pool is None or not pool.keyword_asked or not hit.text_score or hit.vector_score is None:
        return 0, 0, ()
    if keyword.searched_share(pool.keyword_asked, pool.query_terms) >= 1.0:
        return 0, 0, ()
    asked = tuple(dict.fromkeys(pool.keyword_asked))
    kept = set(pool.query_terms)
    return len(kept), len(asked), tuple(t for t in asked if t not in kept)
