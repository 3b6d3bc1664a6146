"""The session's results shown in the search panel, and the golden labels set on them.

Which query the table shows is kept here: labels ticked in the table go to it, and the
note's match marks of an older query are cleared when it changes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from PySide6.QtCore import QObject

from memdesk.core.search import highlight
from memdesk.core.search import hits as hits_mod
from memdesk.qt import golden as golden_mod
from memdesk.qt import session as session_mod
from memdesk.ui import agent_dock as agent_dock_mod
from memdesk.ui import editor as editor_mod
from memdesk.ui import results_summary as results_summary_mod
from memdesk.ui import search_panel as search_mod


def _day(clock: dt.date | dt.datetime | None) -> dt.date | None:
    return clock.date() if isinstance(clock, dt.datetime) else clock


class ResultsView(QObject):
    """Puts results and their labels into ``search_panel``; ``lab`` gives the current tuning lab."""

    def __init__(
        self,
        search_panel: search_mod.SearchPanel,
        note_editor: editor_mod.NoteEditor,
        agent_dock: agent_dock_mod.AgentDock,
        lab: Callable[[], golden_mod.TuningLab | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._panel = search_panel
        self._editor = note_editor
        self._dock = agent_dock
        self._lab = lab
        self.shown_query = ""  # the query whose hits the table shows (labels go to it)
        # Takes the session's results instead when it returns True (a search as of a past
        # day answers them from its snapshot: ui/asof_banner.py).
        self.intercept: Callable[[session_mod.Results], bool] | None = None

    def show(self, results: session_mod.Results) -> None:
        if results.query != self._panel.search_input.text():
            return  # a response to text the box no longer holds
        if self.intercept is not None and self.intercept(results):
            return
        pool = results.pool
        self._dock.set_query(results.query)  # the agent's own index answers beside this
        if results.query.strip() != self.shown_query.strip():
            self._editor.clear_hit_marks()  # the old query's highlight would mislead
        summary = results_summary_mod.summary_line(results)
        self.shown_query = results.query
        lab = self._lab()
        relevant = lab.relevant_for(results.query) if lab is not None else ()
        terms = (
            highlight.KeywordTerms.of_pool(pool)
            if pool
            else highlight.KeywordTerms((), results.settings.profile)
        )
        self._panel.show_results(
            results.hits,
            terms=terms,
            settings=results.settings,
            summary=summary,
            mode=pool.mode if pool else "hybrid",
            relevant=relevant,
            pool=pool,
            query=results.query,
            clock=_day(results.clock),
            decay_note=results_summary_mod.decay_line(results),
        )

    def hit_lines(self, hit: hits_mod.Hit) -> tuple[tuple[int, int], tuple[int, ...]]:
        """The lines ``hit`` spans in its note, and those its match marks are on."""
        model = self._panel.model
        row = next((i for i, h in enumerate(model.hits) if h is hit), -1)
        text = hit.text
        start = hit.start_line
        matched = tuple(sorted({start + text.count("\n", 0, s) for s, _e in model.match_spans(row)}))
        return (start, hit.end_line), matched

    def set_relevant(self, hit: hits_mod.Hit, on: bool) -> None:
        lab = self._lab()
        if lab is not None and self.shown_query.strip():
            lab.set_relevant(self.shown_query, hit, on)

    def golden_changed(self) -> None:
        lab = self._lab()
        if lab is not None:
            self._panel.model.set_relevant(lab.relevant_for(self.shown_query))
