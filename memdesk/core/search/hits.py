"""Value types that flow from the index to the ranking and on to the UI and CLI."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

# Defined below the index (which reports per mode too); the search's importers keep this name.
from memdesk.core.base.modes import Mode as Mode


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One chunk fetched by either search leg, before any weighting.

    ``vector_score`` is raw cosine (None when the vector leg did not return it);
    ``text_score`` is the keyword leg's score in [0, 1] (None when not a keyword hit).
    """

    chunk_id: str
    path: str  # workspace-relative, "/"-separated
    source: str
    start_line: int
    end_line: int
    text: str  # the whole chunk text
    snippet: str  # what is shown (OpenClaw: first 700 UTF-16 units)
    vector_score: float | None
    text_score: float | None
    date: dt.date | None  # the date decay uses; None = evergreen (never decays)
    # Keyword-indexed but not embedded yet (a sync writes keywords first): in a
    # hybrid search it is scored as in keyword mode instead of losing its vector half.
    keyword_only: bool = False
    # Annotations as OpenClaw 2026.9 reads them (<!-- importance: N -->, <!-- project: ... -->).
    importance: int | None = None
    project_key: str | None = None
    # Set by a pipeline that ranks in full itself (openclaw-2026.9): ``ranking.rank``
    # then keeps this order and score and only applies the minScore/maxResults rule.
    ranked: RankedParts | None = None
    # The chunk's MMR token ids as the index stores them (``lexical.encode_stored_tokens``),
    # so ranking need not tokenize the text; None (or another format): tokenized from ``text``.
    mmr_tokens: bytes | None = None


@dataclasses.dataclass(frozen=True)
class RankedParts:
    """A candidate's final score and its factors, from a self-ranking pipeline."""

    score: float
    merged: float  # weighted content score before decay and multipliers
    decay: float
    importance_multiplier: float
    project_multiplier: float
    pre_mmr_rank: int
    mmr_rank: int | None
    keyword_hit: bool  # may back-fill under minScore (OpenClaw keeps keyword-only hits)
    exact_path: int = 0  # 3 path, 2 basename, 1 stem matched the query; 0 none


@dataclasses.dataclass(frozen=True)
class CandidatePool:
    """Everything one query fetched from SQLite; re-ranking it needs no I/O.

    ``order`` matters: OpenClaw merges vector hits first, then new keyword hits,
    and stable sorts keep that order among ties.
    """

    query: str
    mode: Mode
    profile: str
    candidates: tuple[Candidate, ...]
    # The terms the keyword leg matched, exactly (after dropping stop words and terms
    # too common to rank): what snippets and the editor highlight, and nothing else.
    query_terms: tuple[str, ...] = ()
    # A hybrid search's keyword terms before the ones in half the chunks or more were
    # left out (memdesk profile; empty elsewhere): its text scores count for the share
    # of these that ``query_terms`` kept (``keyword.searched_share``), which ``explain`` shows.
    keyword_asked: tuple[str, ...] = ()
    fts_only_fallback: bool = False  # OpenClaw FTS-only "top maxResults anyway" rule applies
    timings_ms: dict[str, float] = dataclasses.field(default_factory=dict)
    # Keyword-only because the embedding model was still loading (the window does
    # not wait for it; the query runs again, hybrid, once it is ready).
    model_loading: bool = False
    # Keyword-only because a sync was embedding notes (the GUI does not make the query
    # wait for, or compete with, the indexer; it runs again, hybrid, after the sync).
    embedder_busy: bool = False
    # One line the user must read with these results, e.g. that the index was found
    # damaged and the notes' text was indexed again before answering.
    notice: str | None = None
    # An OpenClaw profile whose own index holds nothing, as that release's reindex fails
    # on this workspace (``notice`` says why): nothing was searched, whatever ``mode``
    # says was asked, so the UI must not call these results hybrid.
    index_failed: bool = False


@dataclasses.dataclass(frozen=True)
class Hit:
    """A ranked result with every component of its score."""

    rank: int  # 1-based final position
    chunk_id: str
    path: str
    source: str
    start_line: int
    end_line: int
    snippet: str
    text: str
    vector_score: float | None
    text_score: float | None
    merged_score: float  # weights x components, before decay
    decay: float  # multiplier in (0, 1]; 1.0 when evergreen or decay is off
    score: float  # final: merged x decay + recency + date_boost + supersede_bonus - same_note_penalty
    pre_mmr_rank: int  # 1-based rank after decay, before MMR
    mmr_rank: int | None  # 1-based MMR position, None when MMR is off
    date: dt.date | None
    mmr_penalty: float = 0.0  # max similarity to an already selected hit
    mmr_against: str | None = None  # chunk_id of the hit that similarity was to
    recency: float = 0.0  # added for being recent (memdesk, current-state queries), <= recency_weight
    date_boost: float = 0.0  # added because the note is dated in a period the query names
    same_note_penalty: float = 0.0  # taken off because a chunk of the same note scores higher
    # The newest statement wins (memdesk, current-state queries): added to rank this hit
    # just above the older hit whose statement it supersedes, <= recency_weight.
    supersede_bonus: float = 0.0
    supersedes: tuple[str, int, str] | None = None  # (path, line, text) of the older statement
    superseded_by: tuple[str, int, str] | None = None  # (path, line, text) of the newer one
    recency_withheld: bool = False  # its matching lines only ask or plan: no recency bonus
    rank_without_recency: int | None = None  # None: recency changed nothing (or the hit was not shown)
    importance: int | None = None  # <!-- importance: N --> the profile applied
    importance_multiplier: float = 1.0
    project_key: str | None = None  # <!-- project: ... --> keys of the hit
    project_multiplier: float = 1.0
    exact_path: int = 0  # openclaw-2026.9: 3/2/1 = the query named this file's path/basename/stem

    def to_json(self) -> dict[str, Any]:
        """The CLI's result object: a contract other tools parse (``memdesk search --json``)."""
        return {
            "rank": self.rank,
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "snippet": self.snippet,
            "vector_score": self.vector_score,
            "text_score": self.text_score,
            "merged_score": self.merged_score,
            "decay": self.decay,
            "score": self.score,
            "pre_mmr_rank": self.pre_mmr_rank,
            "mmr_rank": self.mmr_rank,
            "date": self.date.isoformat() if self.date else None,
            "recency": self.recency,
            "date_boost": self.date_boost,
            "same_note_penalty": self.same_note_penalty,
            "supersede_bonus": self.supersede_bonus,
            "supersedes": _statement_json(self.supersedes),
            "superseded_by": _statement_json(self.superseded_by),
            "rank_without_recency": self.rank_without_recency,
            "importance": self.importance,
            "importance_multiplier": self.importance_multiplier,
            "project_key": self.project_key,
            "project_multiplier": self.project_multiplier,
        }


def _statement_json(statement: tuple[str, int, str] | None) -> dict[str, Any] | None:
    if statement is None:
        return None
    path, line, text = statement
    return {"path": path, "line": line, "text": text}
