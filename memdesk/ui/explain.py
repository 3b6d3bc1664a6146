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
    e = explain_mod.explain(hit, settings, mode, hits=hits, pool=pool, terms=terms, today=today)
    head = explain_text.heading(e, _tr, html.escape, _bold)
    body = "".join(
        f"<tr><td style='padding-right:8px'><b>{title}</b></td><td>{text}</td></tr>"
        for title, text in rows(e)
    )
    return f"{head}<table cellspacing='0' cellpadding='1'>{body}</table>"
