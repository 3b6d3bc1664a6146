"""The explanation pane's words for a score: ``explain``'s parts of a score, in plain words.

One definition for every place a person or an agent reads why a hit scored as it did:
the app's explanation pane (``memdesk.ui.explain``: translated, HTML-escaped, laid out
as a table) and ``memdesk mcp``'s ``memory_search(explain=true)`` (English, plain text).
Qt-free: each sentence is a ``QT_TRANSLATE_NOOP("core", ...)`` template, which
lupdate catalogues under the pane's translation context, and the caller passes ``tr``
(the pane: ``tr(QT_TRANSLATE_NOOP("core", ...))``; default: English as is).
"""

from __future__ import annotations

from collections.abc import Callable

from memdesk.core.messages import QT_TRANSLATE_NOOP
from memdesk.core.search.explain import Explanation

# A template in the pane's language (the pane) or as written (English).
Translate = Callable[[str], str]
# What note text (paths, matched words, project keys) goes through: html.escape in the pane.
Escape = Callable[[str], str]


def _same(text: str) -> str:
    return text


def _n(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _without_decay(e: Explanation, tr: Translate) -> str | None:
    """Where the hit would rank with decay off ("What if"), if decay moved it."""
    if e.rank_without_decay is not None:
        return tr(QT_TRANSLATE_NOOP("core", "without decay: rank {0}")).format(e.rank_without_decay)
    if e.dropped_without_decay:
        return tr(QT_TRANSLATE_NOOP("core", "without decay: not in the results"))
    return None


def _without_recency(e: Explanation, tr: Translate) -> str | None:
    """Where the hit would rank with recency off ("What if"), if recency moved it."""
    if e.rank_without_recency is not None:
        return tr(QT_TRANSLATE_NOOP("core", "without recency: rank {0}")).format(e.rank_without_recency)
    if e.dropped_without_recency:
        return tr(QT_TRANSLATE_NOOP("core", "without recency: not in the results"))
    return None


def rows(e: Explanation, tr: Translate = _same, escape: Escape = _same) -> list[tuple[str, str]]:
    """(heading, sentence) per part of the score, ``escape`` applied to what carries note
    text (the pane escapes HTML)."""
    out: list[tuple[str, str]] = []
    if e.matched:
        parts = []
        for term in e.matched[:8]:
            where = ", ".join(str(n) for n in term.lines[:6]) + ("…" if len(term.lines) > 6 else "")
            parts.append(
                tr(QT_TRANSLATE_NOOP("core", "“{0}” ×{1} (line {2})")).format(
                    escape(term.text), term.count, where
                )
            )
        out.append((tr(QT_TRANSLATE_NOOP("core", "Words matched")), "; ".join(parts)))
    elif e.mode != "vector":
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Words matched")),
                tr(QT_TRANSLATE_NOOP("core", "none of the query's words: found by meaning")),
            )
        )
    if e.vector is not None:
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Vector {0}")).format(_n(e.vector, 2)),
                tr(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "how close the meaning is (cosine similarity of the embeddings; 1 = same meaning)",
                    )
                ),
            )
        )
    if e.text is not None:
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Text {0}")).format(_n(e.text, 2)),
                tr(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "how well the words match (BM25 keyword score; rarer words and more matches score higher)",
                    )
                ),
            )
        )
        share = text_share_row(e, tr, escape)
        if share is not None:
            out.append(share)
    elif e.mode != "vector":
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Text —")),
                tr(QT_TRANSLATE_NOOP("core", "not a keyword hit")),
            )
        )
    combined = tr(QT_TRANSLATE_NOOP("core", "Combined {0}")).format(_n(e.merged))
    if e.mode == "fts":
        if e.embedder_busy:
            why = tr(
                QT_TRANSLATE_NOOP(
                    "core",
                    "keyword-only while notes are being embedded: the text score is the score, "
                    "the weights do not apply (the query runs again, hybrid, when they are done)",
                )
            )
        elif e.model_loading:
            why = tr(
                QT_TRANSLATE_NOOP(
                    "core",
                    "keyword-only while the embedding model loads: the text score is the score, "
                    "the weights do not apply (the query runs again, hybrid, when it is ready)",
                )
            )
        else:
            why = tr(
                QT_TRANSLATE_NOOP(
                    "core",
                    "keyword-only mode (no embedding model): the text score is the score, the weights do not apply",
                )
            )
        out.append((combined, why))
    elif e.keyword_only:
        out.append(
            (
                combined,
                tr(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "not embedded yet (a sync adds its vector): scored by its text score alone, "
                        "as a keyword search scores it",
                    )
                ),
            )
        )
    elif e.mode == "vector":
        out.append(
            (
                combined,
                tr(QT_TRANSLATE_NOOP("core", "vector-only mode: the vector score is the score")),
            )
        )
    else:
        vector_word = tr(QT_TRANSLATE_NOOP("core", "vector"))
        text_word = tr(QT_TRANSLATE_NOOP("core", "text"))
        formula = (
            f"{e.vector_weight:.2f} × {vector_word} {_n(e.vector, 2)} + "
            f"{e.text_weight:.2f} × {text_word} {_n(e.text, 2)}"
        )
        if abs(e.weight_sum - 1.0) > 1e-9 and e.weight_sum > 0:
            formula = f"({formula}) ÷ {e.weight_sum:.2f} " + tr(
                QT_TRANSLATE_NOOP("core", "(the weights' sum)")
            )
        out.append((combined, formula))
    if e.decay_state == "off":
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Decay ×1")),
                tr(QT_TRANSLATE_NOOP("core", "temporal decay is off")),
            )
        )
    elif e.decay_state == "evergreen":
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Decay ×1")),
                tr(QT_TRANSLATE_NOOP("core", "this note has no date (like MEMORY.md): it never ages")),
            )
        )
    else:
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Decay ×{0}")).format(_n(e.decay, 2)),
                tr(QT_TRANSLATE_NOOP("core", "the note is {0} days old, half-life {1} days")).format(
                    e.age_days, e.half_life_days
                ),
            )
        )
    if e.recency > 0:
        if e.date is None:
            when = tr(
                QT_TRANSLATE_NOOP("core", "the note has no date (like MEMORY.md): it counts as current")
            )
        else:
            # The age says why a bonus is small: in a workspace last written to long ago
            # every dated note's bonus is near +0.000.
            when = tr(QT_TRANSLATE_NOOP("core", "dated {0}, {2} days old, half-life {1} days")).format(
                e.date.isoformat(), e.half_life_days, e.age_days
            )
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Recency +{0}")).format(_n(e.recency)),
                tr(
                    QT_TRANSLATE_NOOP("core", "the query asks for the current state; {0} (at most +{1})")
                ).format(when, _n(e.recency_weight, 2)),
            )
        )
    elif e.recency_withheld:
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Recency +0")),
                tr(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "the query asks for the current state, but the lines here that match it only "
                        "ask or plan (a question, a to-do): not an answer, so no bonus for being current",
                    )
                ),
            )
        )
    elif e.recency_not_asked:
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Recency +0")),
                tr(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "the query does not ask for the current state (or it asks about a past "
                        "occasion or period): no note gains for being recent",
                    )
                ),
            )
        )
    if e.date_boost > 0 and e.date is not None:
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Date match +{0}")).format(_n(e.date_boost)),
                tr(QT_TRANSLATE_NOOP("core", "dated {0}, in the period the query names")).format(
                    e.date.isoformat()
                ),
            )
        )
    if e.supersedes is not None:
        path, line, text = e.supersedes
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Supersedes +{0}")).format(_n(e.supersede_bonus)),
                tr(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "states the same fact later than {0}:{1} (“{2}”): for the current state "
                        "the newer statement wins",
                    )
                ).format(escape(path), line, escape(text)),
            )
        )
    if e.superseded_by is not None:
        path, line, text = e.superseded_by
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Superseded")),
                tr(QT_TRANSLATE_NOOP("core", "{0}:{1} states the same fact later (“{2}”)")).format(
                    escape(path), line, escape(text)
                ),
            )
        )
    if e.same_note_penalty > 0:
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Same note −{0}")).format(_n(e.same_note_penalty)),
                tr(QT_TRANSLATE_NOOP("core", "another chunk of this note scores higher and ranks above it")),
            )
        )
    out.extend(annotation_rows(e, tr, escape))
    final = tr(QT_TRANSLATE_NOOP("core", "combined {0} × decay {1}")).format(_n(e.merged), _n(e.decay, 2))
    if e.importance is not None:
        final += " × " + tr(QT_TRANSLATE_NOOP("core", "importance {0}")).format(
            _n(e.importance_multiplier, 2)
        )
    if e.project_multiplier != 1.0:
        final += " × " + tr(QT_TRANSLATE_NOOP("core", "project {0}")).format(_n(e.project_multiplier, 2))
    if e.recency > 0:
        final += " + " + tr(QT_TRANSLATE_NOOP("core", "recency {0}")).format(_n(e.recency))
    if e.date_boost > 0:
        final += " + " + tr(QT_TRANSLATE_NOOP("core", "date match {0}")).format(_n(e.date_boost))
    if e.supersede_bonus > 0:
        final += " + " + tr(QT_TRANSLATE_NOOP("core", "newer statement {0}")).format(_n(e.supersede_bonus))
    if e.same_note_penalty > 0:
        final += " − " + tr(QT_TRANSLATE_NOOP("core", "same note {0}")).format(_n(e.same_note_penalty))
    out.append((tr(QT_TRANSLATE_NOOP("core", "Final {0}")).format(_n(e.final)), final))
    if e.mmr_lambda is not None:
        if e.mmr_first_pick:
            why = tr(QT_TRANSLATE_NOOP("core", "picked first: nothing above it to be similar to"))
        elif e.mmr_against is not None:
            why = tr(
                QT_TRANSLATE_NOOP("core", "most like {0}:{1} (similarity {2}), which ranks above it")
            ).format(escape(e.mmr_against[0]), e.mmr_against[1], _n(e.mmr_similarity, 2))
        else:
            why = tr(QT_TRANSLATE_NOOP("core", "similarity {0} to a hit above it")).format(
                _n(e.mmr_similarity, 2)
            )
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "MMR λ {0}")).format(f"{e.mmr_lambda:.2f}"),
                tr(QT_TRANSLATE_NOOP("core", "rank {0} by score → {1} for diversity; {2}")).format(
                    e.pre_mmr_rank, e.mmr_rank, why
                ),
            )
        )
    what_if = [text for text in (_without_decay(e, tr), _without_recency(e, tr)) if text]
    if e.rank_without_mmr is not None:
        what_if.append(tr(QT_TRANSLATE_NOOP("core", "without MMR: rank {0}")).format(e.rank_without_mmr))
    if what_if:
        out.append((tr(QT_TRANSLATE_NOOP("core", "What if")), " · ".join(what_if)))
    if e.min_score > 0:
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Cut-off")),
                tr(QT_TRANSLATE_NOOP("core", "hits under min score {0} are dropped")).format(
                    f"{e.min_score:.2f}"
                ),
            )
        )
    return out


def text_share_row(e: Explanation, tr: Translate = _same, escape: Escape = _same) -> tuple[str, str] | None:
    """The factor a hybrid search put on the text score because its keyword leg left
    out query words found in half the notes or more (``keyword.searched_share``), or
    None when it searched them all. The pane, ``memdesk search --explain`` and
    ``memory_search(explain=true)`` all say it in these words."""
    if not e.keyword_left_out or e.keyword_searched >= e.keyword_asked:
        return None
    words = ", ".join(f"“{escape(w)}”" for w in e.keyword_left_out[:8])
    if len(e.keyword_left_out) > 8:
        words += ", …"
    if len(e.keyword_left_out) == 1:
        common = tr(QT_TRANSLATE_NOOP("core", "{0} is in half the notes or more")).format(words)
    else:
        common = tr(QT_TRANSLATE_NOOP("core", "{0} are in half the notes or more")).format(words)
    fraction = f"{e.keyword_searched}/{e.keyword_asked}"
    return (
        tr(QT_TRANSLATE_NOOP("core", "Text ×{0}")).format(fraction),
        tr(
            QT_TRANSLATE_NOOP(
                "core", "{0} of {1} query words searched ({2}); already in the text score above"
            )
        ).format(e.keyword_searched, e.keyword_asked, common),
    )


def annotation_rows(e: Explanation, tr: Translate = _same, escape: Escape = _same) -> list[tuple[str, str]]:
    """The annotation multipliers OpenClaw 2026.9 applied (none for other profiles)."""
    out: list[tuple[str, str]] = []
    if e.importance is not None:
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Importance ×{0}")).format(_n(e.importance_multiplier, 2)),
                escape(
                    tr(
                        QT_TRANSLATE_NOOP(
                            "core",
                            "the entry is marked <!-- importance: {0} -->: × (0.75 + 0.05 × {0})",
                        )
                    ).format(e.importance)
                ),
            )
        )
    if e.project_key is not None:
        keys = escape(e.project_key)
        if e.project_multiplier > 1.0:
            why = tr(QT_TRANSLATE_NOOP("core", "project {0} is active in the session")).format(keys)
        elif e.project_multiplier < 1.0:
            why = tr(QT_TRANSLATE_NOOP("core", "project {0} is not the session's project")).format(keys)
        else:
            why = tr(
                QT_TRANSLATE_NOOP("core", "project {0}; no project context (as in the CLI), so no change")
            ).format(keys)
        out.append(
            (
                tr(QT_TRANSLATE_NOOP("core", "Project ×{0}")).format(_n(e.project_multiplier, 2)),
                why,
            )
        )
    return out


def heading(e: Explanation, tr: Translate = _same, escape: Escape = _same, strong: Escape = _same) -> str:
    """The line above the table: the hit (``strong``: bold in the pane), its lines and
    rank, and what recency or decay did to the rank (the "What if" row at the table's
    bottom needs scrolling to)."""
    head = " · ".join(
        (
            strong(escape(e.path)),
            tr(QT_TRANSLATE_NOOP("core", "lines {0}–{1}")).format(e.start_line, e.end_line),
            tr(QT_TRANSLATE_NOOP("core", "rank {0}")).format(e.rank),
        )
    )
    for rank, text in (
        (e.rank_without_recency, _without_recency(e, tr)),
        (e.rank_without_decay, _without_decay(e, tr)),
    ):
        if text and rank != e.rank:
            head += " · " + text
    return head


def lines(e: Explanation) -> list[str]:
    """The pane's text in English, one line per row ("Heading: sentence") under the
    heading: what ``memory_search(explain=true)`` returns as ``explain_lines``."""
    return [heading(e)] + [f"{title}: {text}" for title, text in rows(e)]
