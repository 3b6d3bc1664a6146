"""Qt item models over core values: search hits as a table, workspace notes as a tree.

Columns are data (one ``Column`` per column, as in Anki's browser table), so the
header, the cell text, the bar the delegate draws and the tooltip of a column
are defined in one place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from memdesk.core.eval import golden as eval_golden
from memdesk.core.search import hits as hits_mod

HitRole = Qt.ItemDataRole.UserRole  # the whole ``Hit``
ScoreRole = Qt.ItemDataRole.UserRole + 1  # float in [0, 1] for the bar, or None
KindRole = Qt.ItemDataRole.UserRole + 2  # Column.kind, read by delegates
PathRole = Qt.ItemDataRole.UserRole + 3  # workspace-relative path of a tree node
StateRole = Qt.ItemDataRole.UserRole + 4  # "indexed" | "pending" | "failed" | "" for folders

AnyIndex = QModelIndex | QPersistentModelIndex


def _fmt_score(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


@dataclasses.dataclass(frozen=True)
class Column:
    """One results column: how to show a ``Hit`` in it."""

    key: str
    header: str
    text: Callable[[hits_mod.Hit], str]
    tooltip: str
    kind: str = "text"  # "text" | "number" | "score" | "snippet" | "check"
    score: Callable[[hits_mod.Hit], float | None] | None = None


RELEVANCE_WORDS = {  # the check column's text (screen readers, copy); the delegate draws a box
    Qt.CheckState.Checked: "relevant",
    Qt.CheckState.PartiallyChecked: "overlaps a labelled range",
    Qt.CheckState.Unchecked: "not labelled",
}

COLUMNS: tuple[Column, ...] = (
    Column(
        "relevant",
        "\u2713",
        lambda h: "",
        "Relevant to this query: tick to add the hit to the "
        "golden set (.memdesk/golden.jsonl); a half tick means it overlaps a labelled range "
        "and already counts as relevant",
        kind="check",
    ),
    Column("rank", "#", lambda h: str(h.rank), "Final position", kind="number"),
    Column(
        "location",
        "File:lines",
        lambda h: f"{h.path}:{h.start_line}-{h.end_line}",
        "Note and line range of the chunk",
    ),
    Column(
        "vector",
        "Vector",
        lambda h: _fmt_score(h.vector_score),
        "Cosine similarity of query and chunk embeddings (— = not a vector hit)",
        kind="score",
        score=lambda h: h.vector_score,
    ),
    Column(
        "text",
        "Text",
        lambda h: _fmt_score(h.text_score),
        "Keyword (BM25) score in [0, 1] (— = not a keyword hit)",
        kind="score",
        score=lambda h: h.text_score,
    ),
    Column(
        "decay",
        "Decay",
        lambda h: f"{h.decay:.3f}",
        "Temporal decay multiplier (1 = evergreen or decay off)",
        kind="score",
        score=lambda h: h.decay,
    ),
    Column(
        "final",
        "Final",
        lambda h: f"{h.score:.3f}",
        "Final score: weighted merge x decay",
        kind="score",
        score=lambda h: h.score,
    ),
    Column(
        "pre_mmr",
        "Pre-MMR",
        lambda h: str(h.pre_mmr_rank),
        "Rank after decay, before MMR re-ordering",
        kind="number",
    ),
    Column(
        "mmr",
        "MMR",
        lambda h: "—" if h.mmr_rank is None else str(h.mmr_rank),
        "Rank chosen by maximal marginal relevance (— = MMR off)",
        kind="number",
    ),
    Column(
        "snippet",
        "Snippet",
        lambda h: " ".join(h.snippet.split()),
        "The chunk's text; matched terms are highlighted",
        kind="snippet",
    ),
)


def column_index(key: str) -> int:
    return next(i for i, c in enumerate(COLUMNS) if c.key == key)


class ResultsModel(QAbstractTableModel):
    """The hits of the current query; reset as a whole on each new ranking.

    The ``relevant`` column shows the query's golden labels: checked when the hit's
    own ``path#Lstart-Lend`` is labelled, partially checked when it only overlaps a
    labelled item (it still counts as relevant when scoring). Ticking a box does not
    change the model: it asks, and whoever owns the labels calls ``set_relevant``.

    Signals:
        relevance_toggled(object, bool): the user ticked (True) or unticked a ``Hit``.
    """

    relevance_toggled = Signal(object, bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._hits: tuple[hits_mod.Hit, ...] = ()
        self._terms: tuple[str, ...] = ()
        self._relevant: tuple[eval_golden.Relevant, ...] = ()

    @property
    def hits(self) -> tuple[hits_mod.Hit, ...]:
        return self._hits

    @property
    def query_terms(self) -> tuple[str, ...]:
        return self._terms

    @property
    def relevant(self) -> tuple[eval_golden.Relevant, ...]:
        return self._relevant

    def set_hits(
        self,
        hits: Sequence[hits_mod.Hit],
        terms: Sequence[str] = (),
        relevant: Sequence[eval_golden.Relevant] | None = None,
    ) -> None:
        self.beginResetModel()
        self._hits = tuple(hits)
        self._terms = tuple(terms)
        if relevant is not None:
            self._relevant = tuple(relevant)
        self.endResetModel()

    def set_relevant(self, relevant: Sequence[eval_golden.Relevant]) -> None:
        """The current query's labelled items (repaints the check column only)."""
        relevant = tuple(relevant)
        if relevant == self._relevant:
            return
        self._relevant = relevant
        if self._hits:
            column = column_index("relevant")
            self.dataChanged.emit(
                self.index(0, column),
                self.index(len(self._hits) - 1, column),
                [Qt.ItemDataRole.CheckStateRole, Qt.ItemDataRole.DisplayRole],
            )

    def check_state(self, hit: hits_mod.Hit) -> Qt.CheckState:
        own = eval_golden.Relevant(hit.path, hit.start_line, hit.end_line)
        if own in self._relevant:
            return Qt.CheckState.Checked
        if any(r.matches(hit) for r in self._relevant):
            return Qt.CheckState.PartiallyChecked
        return Qt.CheckState.Unchecked

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        flags = super().flags(index)
        if index.isValid() and COLUMNS[index.column()].kind == "check":
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    def setData(
        self,
        index: AnyIndex,
        value: Any,  # Qt override
        role: int = Qt.ItemDataRole.EditRole,
    ) -> bool:
        if (
            role != Qt.ItemDataRole.CheckStateRole
            or not index.isValid()
            or COLUMNS[index.column()].kind != "check"
        ):
            return False
        hit = self.hit(index.row())
        if hit is None:
            return False
        before = self.check_state(hit)
        on = Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(value, bool) else value
        self.relevance_toggled.emit(hit, on)
        return self.check_state(hit) != before

    def hit(self, row: int) -> hits_mod.Hit | None:
        return self._hits[row] if 0 <= row < len(self._hits) else None

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 (Qt idiom)
        return 0 if parent.isValid() else len(self._hits)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        column = COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.header
        if role == Qt.ItemDataRole.ToolTipRole:
            return column.tooltip
        return None

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._hits):
            return None
        hit = self._hits[index.row()]
        column = COLUMNS[index.column()]
        if column.kind == "check":
            state = self.check_state(hit)
            if role == Qt.ItemDataRole.CheckStateRole:
                return state
            if role == Qt.ItemDataRole.DisplayRole:
                return RELEVANCE_WORDS[state]
            if role == Qt.ItemDataRole.ToolTipRole:
                return (
                    f"{column.tooltip}\n{hit.path}#L{hit.start_line}-L{hit.end_line}: "
                    f"{RELEVANCE_WORDS[state]}"
                )
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.DisplayRole:
            return column.text(hit)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column.kind == "snippet":
                return hit.snippet
            return f"{column.tooltip}\n{column.text(hit)}"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if column.kind in ("number", "score"):
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if role == HitRole:
            return hit
        if role == ScoreRole:
            return column.score(hit) if column.score else None
        if role == KindRole:
            return column.kind
        return None


@dataclasses.dataclass(eq=False)
class _Node:
    name: str
    path: str  # workspace-relative; folders too ("memory/projects")
    is_dir: bool
    parent: _Node | None
    children: list[_Node] = dataclasses.field(default_factory=list)

    def row(self) -> int:
        return self.parent.children.index(self) if self.parent else 0


class WorkspaceTreeModel(QAbstractItemModel):
    """The workspace's memory notes as folders and files, each with its index state.

    Not a ``QFileSystemModel``: that one loads folders lazily on its own thread and
    knows neither extra paths outside the workspace nor indexing states, while this
    tree is exactly the file list the index sees.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._root = _Node("", "", True, None)
        self._files: tuple[str, ...] = ()
        self._states: dict[str, tuple[str, str]] = {}
        self._by_path: dict[str, _Node] = {}

    @property
    def files(self) -> tuple[str, ...]:
        return self._files

    def set_files(self, files: Sequence[str]) -> None:
        """Rebuild the tree if the file set changed (states are kept)."""
        files = tuple(files)
        if set(files) == set(self._files):
            return
        self.beginResetModel()
        self._files = files
        self._root = _Node("", "", True, None)
        self._by_path = {}
        for rel in sorted(files, key=self._sort_key):
            parent = self._root
            parts = rel.split("/")
            for depth, part in enumerate(parts):
                sub = "/".join(parts[: depth + 1])
                node = self._by_path.get(sub)
                if node is None:
                    node = _Node(part, sub, depth < len(parts) - 1, parent)
                    parent.children.append(node)
                    self._by_path[sub] = node
                parent = node
        self.endResetModel()

    @staticmethod
    def _sort_key(rel: str) -> tuple[int, str]:
        # Root files first (the curated memory), then memory/ in path order.
        return (0 if "/" not in rel else 1, rel)

    def set_states(self, states: dict[str, tuple[str, str]]) -> None:
        if states == self._states:
            return
        self._states = dict(states)
        if self._root.children:
            # One signal for the whole top level: views repaint their whole viewport on a
            # multi-row dataChanged, and thousands of per-file signals would stall the GUI.
            last = self.index(len(self._root.children) - 1, 0)
            self.dataChanged.emit(self.index(0, 0), last)

    def state(self, rel: str) -> tuple[str, str]:
        return self._states.get(rel, ("pending", "not indexed yet"))

    def index_of(self, rel: str) -> QModelIndex:
        node = self._by_path.get(rel)
        if node is None:
            return QModelIndex()
        return self.createIndex(node.row(), 0, node)

    def _node(self, index: AnyIndex) -> _Node:
        if index.isValid():
            return index.internalPointer()  # type: ignore[no-any-return]
        return self._root

    def index(self, row: int, column: int, parent: AnyIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        node = self._node(parent)
        if column != 0 or not 0 <= row < len(node.children):
            return QModelIndex()
        return self.createIndex(row, column, node.children[row])

    def parent(self, index: AnyIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid():
            return QModelIndex()
        node = self._node(index).parent
        if node is None or node is self._root:
            return QModelIndex()
        return self.createIndex(node.row(), 0, node)

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 1

    def hasChildren(self, parent: AnyIndex = QModelIndex()) -> bool:  # noqa: B008
        return self.rowCount(parent) > 0

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node = self._node(index)
        if role == Qt.ItemDataRole.DisplayRole:
            return node.name
        if role == PathRole:
            return node.path
        if node.is_dir:
            if role == StateRole:
                return ""
            if role == Qt.ItemDataRole.ToolTipRole:
                return node.path
            return None
        state, reason = self.state(node.path)
        if role == StateRole:
            return state
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{node.path}\n{state}" + (f": {reason}" if reason else "")
        return None
