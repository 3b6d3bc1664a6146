"""The window's body and how its panes share the window's size: the model banner over
three columns, the note tree (or the empty workspace's start) | the results over the
note and its score explanation | the Ranking and Retrieval quality column.

The policy lives here: the results get whole rows first, the Ranking column is as
wide as its widest row, and beside the agent dock the tree folds away before the
results lose their columns. In a narrow window the Ranking column gives way first: it
narrows to the least its rows need, then folds away (its splitter handle still brings
it back, and it comes back as the window widens), so the results and the note keep
``MIN_CENTER_WIDTH`` pixels whenever there are that many to share. The window restores saved sizes and says when to share.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QByteArray, QEvent, QObject, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QLineEdit,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from memdesk.ui import editor as editor_mod
from memdesk.ui import search_panel as search_mod
from memdesk.ui import workspace_tree as tree_mod

RESULT_ROWS = 8  # whole result rows the window's first layout shows, at 1280x800 too
MIN_NOTE_HEIGHT = 160  # the note and explanation row, when the results take the rest
MIN_CENTER_WIDTH = 480  # what the results keep when the tree comes back
NOTE_SHARE_BESIDE_HISTORY = 60  # the note's percent of its row while the History panel is open
CENTER_CHROME = 40  # the results' vertical scroll bar, frames and margins beside the columns


class _Splitter(QSplitter):
    """A splitter that lets ``resized`` share its width anew after its own resize."""

    def __init__(self, orientation: Qt.Orientation, resized: Callable[[], None]) -> None:
        super().__init__(orientation)
        self._resized = resized

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._resized()


class Panes(QWidget):
    """The central widget (see the module docstring); ``splitter`` holds the three
    columns, ``center_splitter`` the results over ``note_splitter`` (note | explanation)."""

    # The Ranking column shown (True) or not (folded by a narrow window, hidden beside
    # the History panel or by the user): View > Ranking panel follows it.
    ranking_shown = Signal(bool)

    def __init__(
        self,
        *,
        banner: QWidget,
        tree_filter: QLineEdit,
        tree: tree_mod.WorkspaceTree,
        empty_state: QWidget,
        search_panel: search_mod.SearchPanel,
        note_editor: editor_mod.NoteEditor,
        right_widgets: list[QWidget],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._search_panel = search_panel
        self._ranking_taken = 0  # what the narrow-window policy took from the Ranking column
        self._ranking_kept = 0  # its width while the policy leaves it alone (or the user's)
        self.ranking_least = 0  # the Ranking column's least width: its rows whole (fit_right_pane)
        # The score explanation sits beside the note, not under the results: stacked,
        # table, explanation and editor left four rows and a cut explanation at 1280x800.
        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.setObjectName("noteSplitter")
        lower.addWidget(note_editor)
        lower.addWidget(search_panel.detail)
        lower.setStretchFactor(0, 1)
        lower.setStretchFactor(1, 1)
        lower.setSizes([450, 450])
        self.note_splitter = lower
        center = QSplitter(Qt.Orientation.Vertical)
        center.setObjectName("centerSplitter")
        center.addWidget(search_panel)
        center.addWidget(lower)
        center.setCollapsible(0, False)
        # The results keep the height share_height gives them; the note row takes what
        # the window gains or loses later (maximising, a wrapped summary's guess).
        center.setStretchFactor(0, 0)
        center.setStretchFactor(1, 1)
        self.center_splitter = center
        right_body = QWidget()
        right_layout = QVBoxLayout(right_body)
        right_layout.setContentsMargins(0, 0, 0, 0)
        for widget in right_widgets:
            right_layout.addWidget(widget)
        right_layout.addStretch(1)
        # Scrolls rather than forcing a window taller than a small or scaled screen.
        right = QScrollArea()
        right.setObjectName("rightPane")
        right.setWidget(right_body)
        right.setWidgetResizable(True)
        right.setFrameShape(QFrame.Shape.NoFrame)
        # Laid out by fit_ranking at its least width or wider, or folded: a scroll bar shows
        # only when the user drags it narrower by hand.
        right.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.right_pane = right
        # Room for the vertical scroll bar too: it appears when auto-tune's result makes
        # the column taller than the window, and took its width from the values' column.
        self.fit_right_pane()
        tree_page = QWidget()
        self.tree_page = tree_page
        tree_layout = QVBoxLayout(tree_page)
        tree_layout.setContentsMargins(0, 4, 0, 0)
        tree_layout.setSpacing(2)
        tree_layout.addWidget(tree_filter)
        tree_layout.addWidget(tree, 1)
        self.left = QStackedWidget()
        self.left.setObjectName("leftPane")
        self.left.addWidget(tree_page)
        self.left.addWidget(empty_state)
        self.splitter = _Splitter(Qt.Orientation.Horizontal, self.fit_ranking)
        self.splitter.setObjectName("mainSplitter")
        # A width the user gives the Ranking column by hand is theirs to keep.
        self.splitter.splitterMoved.connect(self._on_splitter_moved)
        self.splitter.addWidget(self.left)
        self.splitter.addWidget(center)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([180, 830, 270])
        self._folded_tree = 0  # the tree's width while folded away for the agent dock
        self._folded_ranking = False  # the Ranking column hidden for the History panel
        self._note_share: list[int] | None = None  # note | explanation before the panel came
        self._user_hidden = False  # hidden by View > Ranking panel: stays hidden until chosen
        self._shown = True  # what ranking_shown last said (laid out, the column is shown)
        # Folded, the column is a thin handle at the right edge that few find: the search
        # row says where the sliders went, and brings them back.
        self.ranking_button = QToolButton()
        self.ranking_button.setObjectName("showRankingButton")
        self.ranking_button.setText(self.tr("Ranking ◂"))
        self.ranking_button.setToolTip(self.tr("Show the Ranking panel (sliders and retrieval quality)"))
        self.ranking_button.setAutoRaise(True)
        self.ranking_button.setVisible(False)
        search_panel.top_row.addWidget(self.ranking_button)
        right.installEventFilter(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(banner)
        layout.addWidget(self.splitter, 1)

    def ranking_visible(self) -> bool:
        """Whether the Ranking column is on screen with some width (not folded or hidden)."""
        return not self.right_pane.isHidden() and self.splitter.sizes()[2] > 0

    def _note_ranking_state(self) -> None:
        shown = self.ranking_visible()
        self.ranking_button.setVisible(not shown)
        if shown != self._shown:
            self._shown = shown
            self.ranking_shown.emit(shown)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # Qt override
        # The splitter folds and unfolds the column by resizing it, and by hand too.
        if obj is self.right_pane and event.type() in (
            QEvent.Type.Resize,
            QEvent.Type.Show,
            QEvent.Type.Hide,
        ):
            self._note_ranking_state()
        return super().eventFilter(obj, event)

    @property
    def ranking_is_shown(self) -> bool:
        """What ``ranking_shown`` last said: before the first layout, the column is shown."""
        return self._shown

    def set_ranking_shown(self, show: bool, *, by_user: bool = False) -> None:
        """View > Ranking panel. Hidden, it stays hidden (a wider window does not bring
        it back); shown in a narrow window, it takes at least its least width and the
        results and the note narrow instead (as a drag of its handle would)."""
        if by_user:
            self._user_hidden = not show
        if not show:
            self.right_pane.setVisible(False)
            self._ranking_taken = 0
            self._note_ranking_state()
            return
        self._folded_ranking = False
        self.right_pane.setVisible(True)
        tree, center, ranking = self.splitter.sizes()
        total = tree + center + ranking
        wanted = max(self._ranking_kept, self.ranking_least) or self.ranking_width()
        new = min(wanted, max(self.ranking_least, total - tree - MIN_CENTER_WIDTH))
        # The results keep the least their search row needs and the tree stays: below
        # about 800 px the column gets what is left and scrolls sideways.
        center_least = self.center_splitter.minimumSizeHint().width()
        new = max(0, min(new, total - tree - center_least))
        self.splitter.setSizes([tree, total - tree - new, new])
        self._ranking_taken = 0
        self._ranking_kept = new
        self._note_ranking_state()

    def fit_right_pane(self) -> None:
        """The Ranking column is as wide as its widest row, plus room for the vertical
        scroll bar (it appears when auto-tune's result makes the column taller than the
        window, and took its width from the values' column). Again after a language
        change: the labels' widths change with their language."""
        right = self.right_pane
        body = right.widget()
        assert body is not None  # set in __init__
        need = self.ranking_width()
        grow = need - right.width()
        # No minimum width of its own (that held the window 785 px wide or more): fit_ranking
        # keeps it at this least width, where nothing of it is cut, or folds it away.
        self.ranking_least = body.minimumSizeHint().width() + self._scroll_bar_extent()
        if grow > 0 and right.isVisible() and not self._ranking_taken:
            # The splitter keeps the pane's old width until told: take the room from the
            # results column, which scrolls sideways where it must.
            sizes = self.splitter.sizes()
            self.splitter.setSizes([sizes[0], max(0, sizes[1] - grow), sizes[2] + grow])
        self.fit_ranking()

    def _scroll_bar_extent(self) -> int:
        right = self.right_pane
        return right.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, right)

    def ranking_width(self) -> int:
        """The Ranking column's width when there is room: its widest row and a scroll bar."""
        body = self.right_pane.widget()
        assert body is not None  # set in __init__
        return body.sizeHint().width() + self._scroll_bar_extent()

    def share_width(self, width: int) -> None:
        right = self.ranking_width()
        left = max(150, width * 14 // 100)
        self._ranking_taken = 0
        self._ranking_kept = right
        self.splitter.setSizes([left, max(300, width - left - right), right])
        self.fit_ranking()

    def fit_ranking(self) -> None:
        """In a narrow window the Ranking column gives the results and the note their
        room (at 785 px it kept its 310 px and the note had 145 px): it keeps its width
        while they have ``MIN_CENTER_WIDTH``, narrows towards its least width (its rows
        whole) to leave them that, else folds away; what it gave comes back as the
        window widens. Runs after each resize of the splitter."""
        if self.right_pane.isHidden():
            return  # hidden beside the History panel
        tree, center, ranking = self.splitter.sizes()
        if not self._ranking_taken and center >= MIN_CENTER_WIDTH:
            self._ranking_kept = ranking
            return  # room enough: the column keeps the width it has (the user's, too)
        total = tree + center + ranking
        # Qt's splitter may have narrowed it first: it wants back what it had.
        wanted = max(ranking + self._ranking_taken, self._ranking_kept)
        least = min(wanted, self.ranking_least)
        room = total - tree - MIN_CENTER_WIDTH
        if room >= wanted:
            new = wanted
        elif room >= least:
            new = room
        else:
            new = 0
        self._ranking_taken = wanted - new
        if new != ranking:
            self.splitter.setSizes([tree, total - tree - new, new])
        self._note_ranking_state()

    def _on_splitter_moved(self, _pos: int, _index: int) -> None:
        self._ranking_taken = 0
        self._ranking_kept = self.splitter.sizes()[2]

    def share_height(self, height: int) -> None:
        """The results get the height of ``RESULT_ROWS`` rows at least (more in a tall
        body); the note and the explanation share the rest of ``height``."""
        room = max(0, height - self.center_splitter.handleWidth())
        results = max(self._search_panel.results_height(RESULT_ROWS), room * 11 // 20)
        self.center_splitter.setSizes([results, max(MIN_NOTE_HEIGHT, room - results)])

    def make_room_for_dock(self, *, window_width: int, separator: int, dock_wanted: int) -> int | None:
        """Beside a dock that wants ``dock_wanted`` pixels: the tree folds away if the
        results would lose their columns or a readable snippet (it comes back with
        ``give_back_tree``). The dock's width when it must narrow, else None."""
        sizes = self.splitter.sizes()
        panel = self._search_panel
        need = panel.fixed_columns_width() + panel.snippet_min_width() + CENTER_CHROME
        # The Ranking column counts at its full width: a narrow moment may have folded it.
        ranking = sizes[2] + self._ranking_taken
        spare = window_width - separator - 2 * self.splitter.handleWidth() - ranking - need
        tree = sizes[0]
        if spare >= tree + dock_wanted:
            return None
        if tree > 0:
            self._folded_tree = tree
            self.splitter.setSizes([0, sizes[0] + sizes[1], sizes[2]])
        return spare

    def make_room_for_history(self, *, window_width: int, separator: int, dock_wanted: int) -> int | None:
        """Beside the History panel the tree and the note stay: the Ranking column goes
        (hidden, so its width no longer holds the window wider than the screen) when
        the tree, the results' columns and the panel do not fit with it; it comes back
        with ``give_back_ranking``. The panel's width when it must narrow, else None."""
        sizes = self.splitter.sizes()
        panel = self._search_panel
        need = panel.fixed_columns_width() + panel.snippet_min_width() + CENTER_CHROME
        handles = 2 * self.splitter.handleWidth()
        if sizes[0] == 0 and self._folded_tree:
            # Folded for the agent dock this panel now shares a tab with: the tree is
            # what the panel's notes are picked from, so it comes back.
            sizes = [self._folded_tree, max(0, sizes[1] - self._folded_tree), sizes[2]]
            self.splitter.setSizes(sizes)
            self._folded_tree = 0
        tree = sizes[0]
        ranking = sizes[2] + self._ranking_taken if self.right_pane.isVisible() else 0
        spare = window_width - separator - handles - tree - need
        if spare >= ranking + dock_wanted:
            return None
        if self.right_pane.isVisible():
            self._folded_ranking = True
            self.right_pane.setVisible(False)
            self._ranking_taken = 0
        if self._note_share is None:
            # The note, where a restore lands, gets the larger part of its row: half of
            # a column beside the panel was too narrow for a line of Markdown.
            self._note_share = self.note_splitter.sizes()
            row = sum(self._note_share)
            self.note_splitter.setSizes(
                [row * NOTE_SHARE_BESIDE_HISTORY // 100, row - row * NOTE_SHARE_BESIDE_HISTORY // 100]
            )
        # The results may scroll sideways rather than squeeze the note: the panel keeps
        # what the tree and a readable note leave it.
        room = window_width - separator - handles - tree - MIN_CENTER_WIDTH
        return None if room >= dock_wanted else max(0, room)

    def give_back_ranking(self) -> None:
        """The Ranking column again after the History panel went."""
        if self._note_share is not None:
            self.note_splitter.setSizes(self._note_share)
            self._note_share = None
        if self._folded_ranking:
            self._folded_ranking = False
            if self._user_hidden:
                return  # the user hid it before the panel came: it stays hidden
            self.right_pane.setVisible(True)
            sizes = self.splitter.sizes()
            right = self.ranking_width()
            if sizes[2] < right:
                self.splitter.setSizes([sizes[0], max(0, sizes[1] - (right - sizes[2])), right])
            self.fit_ranking()

    def unfolded_state(self) -> QByteArray:
        """The splitter's state with what a dock or a narrow window folded given back
        (kept at quit)."""
        self.give_back_ranking()
        self.give_back_tree()
        if self._ranking_taken:
            tree, center, ranking = self.splitter.sizes()
            give = min(self._ranking_taken, center)
            self.splitter.setSizes([tree, center - give, ranking + give])
            self._ranking_taken = 0
        return self.splitter.saveState()

    def give_back_tree(self) -> None:
        """The tree's width again after the dock went (as much as the results can spare)."""
        sizes = self.splitter.sizes()
        if self._folded_tree and sizes[0] == 0:
            tree = min(self._folded_tree, max(0, sizes[1] - MIN_CENTER_WIDTH))
            self.splitter.setSizes([tree, sizes[1] - tree, sizes[2]])
        self._folded_tree = 0
