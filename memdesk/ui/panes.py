"""The window's body and how its panes share the window's size: the model banner over
three columns, the note tree (or the empty workspace's start) | the results over the
note and its score explanation | the Ranking and Retrieval quality column.

The policy lives here: the results get whole rows first, the Ranking column is as
wide as its widest row, and beside the agent dock the tree folds away before the
results lose their columns. The window restores saved sizes and says when to share.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtWidgets import (
    QFrame,
    QLineEdit,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QStyle,
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


class Panes(QWidget):
    """The central widget (see the module docstring); ``splitter`` holds the three
    columns, ``center_splitter`` the results over ``note_splitter`` (note | explanation)."""

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
        right.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
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
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.addWidget(self.left)
        self.splitter.addWidget(center)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([180, 830, 270])
        self._folded_tree = 0  # the tree's width while folded away for the agent dock
        self._folded_ranking = False  # the Ranking column hidden for the History panel
        self._note_share: list[int] | None = None  # note | explanation before the panel came
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(banner)
        layout.addWidget(self.splitter, 1)

    def fit_right_pane(self) -> None:
        """The Ranking column is as wide as its widest row, plus room for the vertical
        scroll bar (it appears when auto-tune's result makes the column taller than the
        window, and took its width from the values' column). Again after a language
        change: the labels' widths change with their language."""
        right = self.right_pane
        body = right.widget()
        assert body is not None  # set in __init__
        extent = right.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, right)
        need = body.sizeHint().width() + extent
        grow = need - right.width()
        right.setMinimumWidth(need)
        if grow > 0 and right.isVisible():
            # The splitter keeps the pane's old width until told: take the room from the
            # results column, which scrolls sideways where it must.
            sizes = self.splitter.sizes()
            self.splitter.setSizes([sizes[0], max(0, sizes[1] - grow), sizes[2] + grow])

    def share_width(self, width: int) -> None:
        right = self.right_pane.minimumWidth()
        left = max(150, width * 14 // 100)
        self.splitter.setSizes([left, max(300, width - left - right), right])

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
        spare = window_width - separator - 2 * self.splitter.handleWidth() - sizes[2] - need
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
        ranking = sizes[2] if self.right_pane.isVisible() else 0
        spare = window_width - separator - handles - tree - need
        if spare >= ranking + dock_wanted:
            return None
        if self.right_pane.isVisible():
            self._folded_ranking = True
            self.right_pane.setVisible(False)
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
            self.right_pane.setVisible(True)
            sizes = self.splitter.sizes()
            right = self.right_pane.minimumWidth()
            if sizes[2] < right:
                self.splitter.setSizes([sizes[0], max(0, sizes[1] - (right - sizes[2])), right])

    def unfolded_state(self) -> QByteArray:
        """The splitter's state with what a dock folded given back (kept at quit)."""
        self.give_back_ranking()
        self.give_back_tree()
        return self.splitter.saveState()

    def give_back_tree(self) -> None:
        """The tree's width again after the dock went (as much as the results can spare)."""
        sizes = self.splitter.sizes()
        if self._folded_tree and sizes[0] == 0:
            tree = min(self._folded_tree, max(0, sizes[1] - MIN_CENTER_WIDTH))
            self.splitter.setSizes([tree, sizes[1] - tree, sizes[2]])
        self._folded_tree = 0
