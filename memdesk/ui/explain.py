"""The explanation pane's text: ``core.search.explain_text``'s words for a score, in the
app's language, laid out as a two-column table.

The words themselves live in the core (``memdesk mcp`` gives an agent the same ones);
this module only translates them, escapes note text for HTML and lays them out.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication

from memdesk.core import messages
from memdesk.core.search import explain as explain_mod
from memdesk.core.search import explain_text, highlight
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import near_ties as near_ties_mod
from memdesk.core.search import settings as settings_mod


def _tr(template: str) -> str:
    return QCoreApplication.translate(messages.CONTEXT, template)


def _bold(text: str) -> str:
    return f"<b>{text}</b>"


def rows(e: explain_mod.Explanation) -> list[tuple[str, str]]:
    """(heading, sentence) per part of the score; HTML-escaped where it carries note text."""
    return explain_text.rows(e, _tr, html.escape)


def annotation_rows(e: explain_mod.Explanation) -> list[tuple[str, str]]:
    """The annotation multipliers OpenClaw 2026.9 applied (none for other profiles)."""
    return explain_text.annotation_rows(e, _tr, html.escape)


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
    head = explain_text.heading(e, _tr, html.escape, _bold)
    body = "".join(
        f"<tr><td style='padding-right:8px'><b>{title}</b></td><td>{text}</td></tr>"
        for title, text in [*near_tie_rows(hit, hits, near_tie), *rows(e)]
    )
    return f"{head}<table cellspacing='0' cellpadding='1'>{body}</table>"
