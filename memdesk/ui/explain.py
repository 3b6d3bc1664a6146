"""The explanation pane's text: how one hit's score came about, in plain words.

Every number is the one the ranking used; the weights are shown as the sliders hold
them (and how they were scaled when they do not add up to 1). What the hit's rank
would be without decay and without MMR comes from re-ranking the cached pool.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication

from memdesk.core.search import highlight, ranking
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import settings as settings_mod


def _n(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def matched_terms(
    text: str, spans: Sequence[tuple[int, int]], start_line: int
) -> list[tuple[str, int, list[int]]]:
    """(term as written, times, 1-based lines) for each matched term of a chunk."""
    seen: dict[str, tuple[str, int, list[int]]] = {}
    for start, end in spans:
        word = text[start:end]
        key = word.lower()
        line = start_line + text.count("\n", 0, start)
        shown, count, lines = seen.get(key, (word, 0, []))
        if line not in lines:
            lines.append(line)
        seen[key] = (shown, count + 1, lines)
    return list(seen.values())


def rank_of(chunk_id: str, hits: Sequence[hits_mod.Hit]) -> int | None:
    return next((h.rank for h in hits if h.chunk_id == chunk_id), None)


def explanation_html(
    hit: hits_mod.Hit,
    settings: settings_mod.SearchSettings,
    *,
    mode: str,
    hits: Sequence[hits_mod.Hit],
    pool: hits_mod.CandidatePool | None = None,
    terms: highlight.KeywordTerms | None = None,
    today: dt.date | None = None,
) -> str:
    rows: list[tuple[str, str]] = []
    head = (
        f"<b>{html.escape(hit.path)}</b> · "
        + QCoreApplication.translate("Explanation", "lines {0}–{1}").format(hit.start_line, hit.end_line)
        + " · "
        + QCoreApplication.translate("Explanation", "rank {0}").format(hit.rank)
    )

    # Which words matched, and where.
    spans = highlight.match_spans(hit.text, terms) if terms is not None else []
    found = matched_terms(hit.text, spans, hit.start_line)
    if found:
        parts = []
        for word, count, lines in found[:8]:
            where = ", ".join(str(n) for n in lines[:6]) + ("…" if len(lines) > 6 else "")
            parts.append(
                QCoreApplication.translate("Explanation", "“{0}” ×{1} (line {2})").format(
                    html.escape(word), count, where
                )
            )
        rows.append((QCoreApplication.translate("Explanation", "Words matched"), "; ".join(parts)))
    elif mode != "vector":
        rows.append(
            (
                QCoreApplication.translate("Explanation", "Words matched"),
                QCoreApplication.translate("Explanation", "none of the query's words: found by meaning"),
            )
        )

    # The two legs.
    if hit.vector_score is not None:
        rows.append(
            (
                QCoreApplication.translate("Explanation", "Vector {0}").format(_n(hit.vector_score, 2)),
                QCoreApplication.translate(
                    "Explanation",
                    "how close the meaning is (cosine similarity of the embeddings; 1 = same meaning)",
                ),
            )
        )
    if hit.text_score is not None:
        rows.append(
            (
                QCoreApplication.translate("Explanation", "Text {0}").format(_n(hit.text_score, 2)),
                QCoreApplication.translate(
                    "Explanation",
                    "how well the words match (BM25 keyword score; rarer words and more matches score higher)",
                ),
            )
        )
    elif mode != "vector":
        rows.append(
            (
                QCoreApplication.translate("Explanation", "Text —"),
                QCoreApplication.translate("Explanation", "not a keyword hit"),
            )
        )

    # The merge, with the weights exactly as on the sliders.
    vw, tw = settings.vector_weight, settings.text_weight
    if mode == "fts":
        rows.append(
            (
                QCoreApplication.translate("Explanation", "Combined {0}").format(_n(hit.merged_score)),
                QCoreApplication.translate(
                    "Explanation",
                    "keyword-only mode (no embedding model): the text score is the score, "
                    "the weights do not apply",
                ),
            )
        )
    elif mode == "vector":
        rows.append(
            (
                QCoreApplication.translate("Explanation", "Combined {0}").format(_n(hit.merged_score)),
                QCoreApplication.translate("Explanation", "vector-only mode: the vector score is the score"),
            )
        )
    else:
        sum_ = vw + tw
        formula = (
            f"{vw:.2f} × {QCoreApplication.translate('Explanation', 'vector')} {_n(hit.vector_score, 2)} + {tw:.2f} × "
            f"{QCoreApplication.translate('Explanation', 'text')} {_n(hit.text_score, 2)}"
        )
        if abs(sum_ - 1.0) > 1e-9 and sum_ > 0:
            formula = (
                "("
                + formula
                + f") ÷ {sum_:.2f} "
                + QCoreApplication.translate("Explanation", "(the weights' sum)")
            )
        rows.append(
            (QCoreApplication.translate("Explanation", "Combined {0}").format(_n(hit.merged_score)), formula)
        )

    # Decay.
    if not settings.decay:
        rows.append(
            (
                QCoreApplication.translate("Explanation", "Decay ×1"),
                QCoreApplication.translate("Explanation", "temporal decay is off"),
            )
        )
    elif hit.date is None:
        rows.append(
            (
                QCoreApplication.translate("Explanation", "Decay ×1"),
                QCoreApplication.translate(
                    "Explanation", "this note has no date (like MEMORY.md): it never ages"
                ),
            )
        )
    else:
        age = ((today or dt.date.today()) - hit.date).days
        rows.append(
            (
                QCoreApplication.translate("Explanation", "Decay ×{0}").format(_n(hit.decay, 2)),
                QCoreApplication.translate(
                    "Explanation", "the note is {0} days old, half-life {1} days"
                ).format(age, settings.half_life_days),
            )
        )
    rows.append(
        (
            QCoreApplication.translate("Explanation", "Final {0}").format(_n(hit.score)),
            QCoreApplication.translate("Explanation", "combined {0} × decay {1}").format(
                _n(hit.merged_score), _n(hit.decay, 2)
            ),
        )
    )

    # MMR and the counterfactual ranks.
    if hit.mmr_rank is not None:
        against = next((h for h in hits if h.chunk_id == hit.mmr_against), None)
        if hit.mmr_against and against is not None:
            why = QCoreApplication.translate(
                "Explanation", "most like {0}:{1} (similarity {2}), which ranks above it"
            ).format(html.escape(against.path), against.start_line, _n(hit.mmr_penalty, 2))
        elif hit.mmr_against:
            why = QCoreApplication.translate("Explanation", "similarity {0} to a hit above it").format(
                _n(hit.mmr_penalty, 2)
            )
        else:
            why = QCoreApplication.translate("Explanation", "picked first: nothing above it to be similar to")
        rows.append(
            (
                QCoreApplication.translate("Explanation", "MMR λ {0}").format(f"{settings.mmr_lambda:.2f}"),
                QCoreApplication.translate(
                    "Explanation", "rank {0} by score → {1} for diversity; {2}"
                ).format(hit.pre_mmr_rank, hit.mmr_rank, why),
            )
        )
    what_if = []
    if pool is not None and settings.decay:
        plain = ranking.rank(pool, settings.replace(decay=False), now=today)
        r = rank_of(hit.chunk_id, plain)
        what_if.append(
            QCoreApplication.translate("Explanation", "without decay: rank {0}").format(r)
            if r is not None
            else QCoreApplication.translate("Explanation", "without decay: not in the results")
        )
    if settings.mmr:
        what_if.append(
            QCoreApplication.translate("Explanation", "without MMR: rank {0}").format(hit.pre_mmr_rank)
        )
    if what_if:
        rows.append((QCoreApplication.translate("Explanation", "What if"), " · ".join(what_if)))
    if settings.min_score > 0:
        rows.append(
            (
                QCoreApplication.translate("Explanation", "Cut-off"),
                QCoreApplication.translate("Explanation", "hits under min score {0} are dropped").format(
                    f"{settings.min_score:.2f}"
                ),
            )
        )
    body = "".join(
        f"<tr><td style='padding-right:8px'><b>{title}</b></td><td>{text}</td></tr>" for title, text in rows
    )
    return f"{head}<table cellspacing='0' cellpadding='1'>{body}</table>"
