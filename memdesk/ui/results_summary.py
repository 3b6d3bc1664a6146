"""The line above the results: how many hits from how many candidates, in which mode and
profile, how long it took, and why some scores may look odd (keyword-only, MMR order)."""

from __future__ import annotations

import itertools

from PySide6.QtCore import QCoreApplication

from memdesk.qt import messages as qt_messages
from memdesk.qt import session as session_mod
from memdesk.ui import status_bar as status_bar_mod


def summary_line(results: session_mod.Results) -> str:
    """The summary for ``results`` in the current language ("" for an empty query).

    Its strings keep the window's translation context ("MainWindow"), where they were."""
    if not results.query.strip():
        return ""
    pool = results.pool
    # An OpenClaw profile whose own index is empty (its reindex fails) searched nothing.
    mode = status_bar_mod.mode_name("none" if pool.index_failed else pool.mode) if pool else "—"
    how = (
        QCoreApplication.translate("MainWindow", "re-ranked in memory")
        if results.reranked
        else QCoreApplication.translate("MainWindow", "{0} ms").format(f"{results.seconds * 1000:.0f}")
    )
    size = len(pool.candidates) if pool else 0
    summary = QCoreApplication.translate(
        "MainWindow", "{0} hits from {1} candidates · {2} · {3} profile · {4}"
    ).format(len(results.hits), size, mode, results.settings.profile, how)
    if pool is not None and pool.notice:
        summary += " · " + qt_messages.text(pool.notice)
    if pool is not None and pool.model_loading:
        summary += " · " + QCoreApplication.translate("MainWindow", "keyword-only while the model loads")
    if pool is not None and pool.embedder_busy:
        summary += " · " + QCoreApplication.translate(
            "MainWindow", "keyword-only while notes are being embedded"
        )
    not_embedded = sum(1 for c in pool.candidates if c.keyword_only) if pool else 0
    if not_embedded:
        summary += " · " + QCoreApplication.translate(
            "MainWindow", "{0} not embedded yet, scored by keywords"
        ).format(not_embedded)
    scores = [h.score for h in results.hits]
    if results.settings.mmr and any(a < b for a, b in itertools.pairwise(scores)):
        summary += " · " + QCoreApplication.translate(
            "MainWindow", "in MMR order (diversity): Final need not descend"
        )
    return summary


def decay_line(results: session_mod.Results) -> str:
    """ "Your agent's 30-day decay and minimum score 0.35 hide 9 older notes that
    memdesk finds for this question" when an agent profile's decay buries notes
    memdesk's own profile returns ("" otherwise)."""
    gap = results.decay_gap
    if gap is None or not gap.hidden or not results.query.strip():
        return ""
    # The notes' names, not their paths: the line stays one or two lines beside the results.
    names = ", ".join(p.rsplit("/", 1)[-1] for p in gap.hidden[:3]) + (", …" if len(gap.hidden) > 3 else "")
    days, floor = f"{gap.half_life_days:g}", f"{gap.min_score:g}"
    if len(gap.hidden) == 1:
        return QCoreApplication.translate(
            "MainWindow",
            "Your agent's {0}-day decay and minimum score {1} hide 1 older note that memdesk "
            "finds for this question: {2}",
        ).format(days, floor, names)
    return QCoreApplication.translate(
        "MainWindow",
        "Your agent's {0}-day decay and minimum score {1} hide {2} older notes that memdesk "
        "finds for this question: {3}",
    ).format(days, floor, len(gap.hidden), names)
