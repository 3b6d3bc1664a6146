"""The explanation pane's text: ``core.search.explain``'s parts of a score, in plain words.

The numbers come from the core; this module only words them (translatably) and lays
them out as a two-column table.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication

from memdesk.core.search import explain as explain_mod
from memdesk.core.search import highlight
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import near_ties as near_ties_mod
from memdesk.core.search import settings as settings_mod


def _n(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _without_decay(e: explain_mod.Explanation) -> str | None:
    """Where the hit would rank with decay off ("What if"), if decay moved it."""
    if e.rank_without_decay is not None:
        return QCoreApplication.translate("Explanation", "without decay: rank {0}").format(
            e.rank_without_decay
        )
    if e.dropped_without_decay:
        return QCoreApplication.translate("Explanation", "without decay: not in the results")
    return None


def _without_recency(e: explain_mod.Explanation) -> str | None:
    """Where the hit would rank with recency off ("What if"), if recency moved it."""
    if e.rank_without_recency is not None:
        return QCoreApplication.translate("Explanation", "without recency: rank {0}").format(
            e.rank_without_recency
        )
    if e.dropped_without_recency:
        return QCoreApplication.translate("Explanation", "without recency: not in the results")
    return None


def rows(e: explain_mod.Explanation) -> list[tuple[str, str]]:
    """(heading, sentence) per part of the score; HTML-escaped where it carries note text."""
    out: list[tuple[str, str]] = []
    if e.matched:
        parts = []
        for term in e.matched[:8]:
            where = ", ".join(str(n) for n in term.lines[:6]) + ("…" if len(term.lines) > 6 else "")
            parts.append(
                QCoreApplication.translate("Explanation", "“{0}” ×{1} (line {2})").format(
                    html.escape(term.text), term.count, where
                )
            )
        out.append((QCoreApplication.translate("Explanation", "Words matched"), "; ".join(parts)))
    elif e.mode != "vector":
        out.append(
            (
                QCoreApplication.translate("Explanation", "Words matched"),
                QCoreApplication.translate("Explanation", "none of the query's words: found by meaning"),
            )
        )
    if e.vector is not None:
        out.append(
            (
                QCoreApplication.translate("Explanation", "Vector {0}").format(_n(e.vector, 2)),
                QCoreApplication.translate(
                    "Explanation",
                    "how close the meaning is (cosine similarity of the embeddings; 1 = same meaning)",
                ),
            )
        )
    if e.text is not None:
        out.append(
            (
                QCoreApplication.translate("Explanation", "Text {0}").format(_n(e.text, 2)),
                QCoreApplication.translate(
                    "Explanation",
                    "how well the words match (BM25 keyword score; rarer words and more matches score higher)",
                ),
            )
        )
    elif e.mode != "vector":
        out.append(
            (
                QCoreApplication.translate("Explanation", "Text —"),
                QCoreApplication.translate("Explanation", "not a keyword hit"),
            )
        )
    combined = QCoreApplication.translate("Explanation", "Combined {0}").format(_n(e.merged))
    if e.mode == "fts":
        if e.embedder_busy:
            why = QCoreApplication.translate(
                "Explanation",
                "keyword-only while notes are being embedded: the text score is the score, "
                "the weights do not apply (the query runs again, hybrid, when they are done)",
            )
        elif e.model_loading:
            why = QCoreApplication.translate(
                "Explanation",
                "keyword-only while the embedding model loads: the text score is the score, "
                "the weights do not apply (the query runs again, hybrid, when it is ready)",
            )
        else:
            why = QCoreApplication.translate(
                "Explanation",
                "keyword-only mode (no embedding model): the text score is the score, the weights do not apply",
            )
        out.append((combined, why))
    elif e.keyword_only:
        out.append(
            (
                combined,
                QCoreApplication.translate(
                    "Explanation",
                    "not embedded yet (a sync adds its vector): scored by its text score alone, "
                    "as a keyword search scores it",
                ),
            )
        )
    elif e.mode == "vector":
        out.append(
            (
                combined,
                QCoreApplication.translate("Explanation", "vector-only mode: the vector score is the score"),
            )
        )
    else:
        vector_word = QCoreApplication.translate("Explanation", "vector")
        text_word = QCoreApplication.translate("Explanation", "text")
        formula = (
            f"{e.vector_weight:.2f} × {vector_word} {_n(e.vector, 2)} + "
            f"{e.text_weight:.2f} × {text_word} {_n(e.text, 2)}"
        )
        if abs(e.weight_sum - 1.0) > 1e-9 and e.weight_sum > 0:
            formula = f"({formula}) ÷ {e.weight_sum:.2f} " + QCoreApplication.translate(
                "Explanation", "(the weights' sum)"
            )
        out.append((combined, formula))
    if e.decay_state == "off":
        out.append(
            (
                QCoreApplication.translate("Explanation", "Decay ×1"),
                QCoreApplication.translate("Explanation", "temporal decay is off"),
            )
        )
    elif e.decay_state == "evergreen":
        out.append(
            (
                QCoreApplication.translate("Explanation", "Decay ×1"),
                QCoreApplication.translate(
                    "Explanation", "this note has no date (like MEMORY.md): it never ages"
                ),
            )
        )
    else:
        out.append(
            (
                QCoreApplication.translate("Explanation", "Decay ×{0}").format(_n(e.decay, 2)),
                QCoreApplication.translate(
                    "Explanation", "the note is {0} days old, half-life {1} days"
                ).format(e.age_days, e.half_life_days),
            )
        )
    if e.recency > 0:
        if e.date is None:
            when = QCoreApplication.translate(
                "Explanation", "the note has no date (like MEMORY.md): it counts as current"
            )
        else:
            # The age says why a bonus is small: in a workspace last written to long ago
            # every dated note's bonus is near +0.000.
            when = QCoreApplication.translate(
                "Explanation", "dated {0}, {2} days old, half-life {1} days"
            ).format(e.date.isoformat(), e.half_life_days, e.age_days)
        out.append(
            (
                QCoreApplication.translate("Explanation", "Recency +{0}").format(_n(e.recency)),
                QCoreApplication.translate(
                    "Explanation", "the query asks for the current state; {0} (at most +{1})"
                ).format(when, _n(e.recency_weight, 2)),
            )
        )
    elif e.recency_not_asked:
        out.append(
            (
                QCoreApplication.translate("Explanation", "Recency +0"),
                QCoreApplication.translate(
                    "Explanation",
                    "the query does not ask for the current state (or it asks about a past "
                    "occasion or period): no note gains for being recent",
                ),
            )
        )
    if e.date_boost > 0 and e.date is not None:
        out.append(
            (
                QCoreApplication.translate("Explanation", "Date match +{0}").format(_n(e.date_boost)),
                QCoreApplication.translate("Explanation", "dated {0}, in the period the query names").format(
                    e.date.isoformat()
                ),
            )
        )
    if e.same_note_penalty > 0:
        out.append(
            (
                QCoreApplication.translate("Explanation", "Same note −{0}").format(_n(e.same_note_penalty)),
                QCoreApplication.translate(
                    "Explanation", "another chunk of this note scores higher and ranks above it"
                ),
            )
        )
    out.extend(annotation_rows(e))
    final = QCoreApplication.translate("Explanation", "combined {0} × decay {1}").format(
        _n(e.merged), _n(e.decay, 2)
    )
    if e.importance is not None:
        final += " × " + QCoreApplication.translate("Explanation", "importance {0}").format(
            _n(e.importance_multiplier, 2)
        )
    if e.project_multiplier != 1.0:
        final += " × " + QCoreApplication.translate("Explanation", "project {0}").format(
            _n(e.project_multiplier, 2)
        )
    if e.recency > 0:
        final += " + " + QCoreApplication.translate("Explanation", "recency {0}").format(_n(e.recency))
    if e.date_boost > 0:
        final += " + " + QCoreApplication.translate("Explanation", "date match {0}").format(_n(e.date_boost))
    if e.same_note_penalty > 0:
        final += " − " + QCoreApplication.translate("Explanation", "same note {0}").format(
            _n(e.same_note_penalty)
        )
    out.append((QCoreApplication.translate("Explanation", "Final {0}").format(_n(e.final)), final))
    if e.mmr_lambda is not None:
        if e.mmr_first_pick:
            why = QCoreApplication.translate("Explanation", "picked first: nothing above it to be similar to")
        elif e.mmr_against is not None:
            why = QCoreApplication.translate(
                "Explanation", "most like {0}:{1} (similarity {2}), which ranks above it"
            ).format(html.escape(e.mmr_against[0]), e.mmr_against[1], _n(e.mmr_similarity, 2))
        else:
            why = QCoreApplication.translate("Explanation", "similarity {0} to a hit above it").format(
                _n(e.mmr_similarity, 2)
            )
        out.append(
            (
                QCoreApplication.translate("Explanation", "MMR λ {0}").format(f"{e.mmr_lambda:.2f}"),
                QCoreApplication.translate(
                    "Explanation", "rank {0} by score → {1} for diversity; {2}"
                ).format(e.pre_mmr_rank, e.mmr_rank, why),
            )
        )
    what_if = [text for text in (_without_decay(e), _without_recency(e)) if text]
    if e.rank_without_mmr is not None:
        what_if.append(
            QCoreApplication.translate("Explanation", "without MMR: rank {0}").format(e.rank_without_mmr)
        )
    if what_if:
        out.append((QCoreApplication.translate("Explanation", "What if"), " · ".join(what_if)))
    if e.min_score > 0:
        out.append(
            (
                QCoreApplication.translate("Explanation", "Cut-off"),
                QCoreApplication.translate("Explanation", "hits under min score {0} are dropped").format(
                    f"{e.min_score:.2f}"
                ),
            )
        )
    return out


def annotation_rows(e: explain_mod.Explanation) -> list[tuple[str, str]]:
    """The annotation multipliers OpenClaw 2026.9 applied (none for other profiles)."""
    out: list[tuple[str, str]] = []
    if e.importance is not None:
        out.append(
            (
                QCoreApplication.translate("Explanation", "Importance ×{0}").format(
                    _n(e.importance_multiplier, 2)
                ),
                html.escape(
                    QCoreApplication.translate(
                        "Explanation", "the entry is marked <!-- importance: {0} -->: × (0.75 + 0.05 × {0})"
                    ).format(e.importance)
                ),
            )
        )
    if e.project_key is not None:
        keys = html.escape(e.project_key)
        if e.project_multiplier > 1.0:
            why = QCoreApplication.translate("Explanation", "project {0} is active in the session").format(
                keys
            )
        elif e.project_multiplier < 1.0:
            why = QCoreApplication.translate(
                "Explanation", "project {0} is not the session's project"
            ).format(keys)
        else:
            why = QCoreApplication.translate(
                "Explanation", "project {0}; no project context (as in the CLI), so no change"
            ).format(keys)
        out.append(
            (
                QCoreApplication.translate("Explanation", "Project ×{0}").format(_n(e.project_multiplier, 2)),
                why,
            )
        )
    return out


def near_tie_rows(
    hit: hits_mod.Hit, hits: Sequence[hits_mod.Hit], near_tie: Sequence[int]
) -> list[tuple[str, str]]:
    """One line per hit this one is closer to than the agent's own jitter (first: it
    says what the ranks under it mean for the agent)."""
    out: list[tuple[str, str]] = []
    scores = {h.rank: h.score for h in hits}
    for rank in near_tie:
        other = scores.get(rank)
        if other is None:
            continue
        out.append(
            (
                QCoreApplication.translate("Explanation", "Near-tie ≈#{0}").format(rank),
                QCoreApplication.translate(
                    "Explanation",
                    "{0} against {1} for #{2}: closer than {3}, the jitter OpenClaw shows between two "
                    "runs of the same search, so the agent may put these two in either order",
                ).format(f"{hit.score:.6f}", f"{other:.6f}", rank, f"{near_ties_mod.AGENT_JITTER:g}"),
            )
        )
    return out


def explanation_html(
    hit: hits_mod.Hit,
    settings: settings_mod.SearchSettings,
    *,
    mode: str,
    hits: Sequence[hits_mod.Hit],
    pool: hits_mod.CandidatePool | None = None,
    terms: highlight.KeywordTerms | None = None,
    today: dt.date | None = None,
    near_tie: Sequence[int] = (),
) -> str:
    """``near_tie``: the ranks of the hits the agent may order this one either way with."""
    e = explain_mod.explain(hit, settings, mode, hits=hits, pool=pool, terms=terms, today=today)
    head = (
        f"<b>{html.escape(e.path)}</b> · "
        + QCoreApplication.translate("Explanation", "lines {0}–{1}").format(e.start_line, e.end_line)
        + " · "
        + QCoreApplication.translate("Explanation", "rank {0}").format(e.rank)
    )
    # What recency or decay did to the rank, on the line that is always in view (the
    # "What if" row at the bottom of the table needs scrolling to in a short pane).
    for rank, text in (
        (e.rank_without_recency, _without_recency(e)),
        (e.rank_without_decay, _without_decay(e)),
    ):
        if text and rank != e.rank:
            head += " · " + text
    body = "".join(
        f"<tr><td style='padding-right:8px'><b>{title}</b></td><td>{text}</td></tr>"
        for title, text in [*near_tie_rows(hit, hits, near_tie), *rows(e)]
    )
    return f"{head}<table cellspacing='0' cellpadding='1'>{body}</table>"
