"""Qt item models over core values: search hits as a table, workspace notes as a tree.

Columns are data (one ``Column`` per column, as in Anki's browser table), so the
header, the cell text, the bar the delegate draws and the tooltip of a column
are defined in one place.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from memdesk.core.eval import golden as eval_golden
from memdesk.core.search import highlight
from memdesk.core.search import hits as hits_mod
from memdesk.core.search import near_ties as near_ties_mod
from memdesk.qt.translations import QT_TRANSLATE_NOOP

HitRole = Qt.ItemDataRole.UserRole  # the whole ``Hit``
ScoreRole = Qt.ItemDataRole.UserRole + 1  # float in [0, 1] for the bar, or None
KindRole = Qt.ItemDataRole.UserRole + 2  # Column.kind, read by delegates
PathRole = Qt.ItemDataRole.UserRole + 3  # workspace-relative path of a tree node
StateRole = Qt.ItemDataRole.UserRole + 4  # "indexed" | "pending" | "failed" | "" for folders
SpansRole = Qt.ItemDataRole.UserRole + 5  # matched (start, end) ranges of the snippet text
FolderRole = Qt.ItemDataRole.UserRole + 6  # the real folder of a tree node (new notes go there)
BadgesRole = Qt.ItemDataRole.UserRole + 7  # [(badge, tooltip)] of a hit's annotations (location column)
UnseenRole = Qt.ItemDataRole.UserRole + 8  # bool: the agent changed this note since the user last looked

AnyIndex = QModelIndex | QPersistentModelIndex


def _tr(text: str) -> str:
    return QCoreApplication.translate("ResultsModel", text)


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
    Qt.CheckState.Checked: QT_TRANSLATE_NOOP("ResultsModel", "relevant"),
    Qt.CheckState.PartiallyChecked: QT_TRANSLATE_NOOP(
        "ResultsModel", "counts as relevant: overlaps a labelled range"
    ),
    Qt.CheckState.Unchecked: QT_TRANSLATE_NOOP("ResultsModel", "not labelled"),
}

# Header tooltips say in plain words what each number is (translated when shown).
COLUMNS: tuple[Column, ...] = (
    Column(
        "relevant",
        QT_TRANSLATE_NOOP("ResultsModel", "\u2713"),
        lambda h: "",
        QT_TRANSLATE_NOOP(
            "ResultsModel",
            "Relevant to this query: tick to add the hit to "
            "the golden set (.memdesk/golden.jsonl). A half tick means the hit itself is not "
            "labelled but overlaps a labelled line range, so it counts as relevant",
        ),
        kind="check",
    ),
    Column(
        "rank",
        QT_TRANSLATE_NOOP("ResultsModel", "#"),
        lambda h: str(h.rank),
        QT_TRANSLATE_NOOP("ResultsModel", "Position in the results"),
        kind="number",
    ),
    Column(
        "location",
        QT_TRANSLATE_NOOP("ResultsModel", "File:lines"),
        lambda h: f"{h.path}:{h.start_line}-{h.end_line}",
        QT_TRANSLATE_NOOP("ResultsModel", "The note and the lines of the matching chunk"),
    ),
    Column(
        "vector",
        QT_TRANSLATE_NOOP("ResultsModel", "Vector"),
        lambda h: _fmt_score(h.vector_score),
        QT_TRANSLATE_NOOP(
            "ResultsModel",
            "How close the meaning is: cosine similarity of the query's and the chunk's "
            "embeddings (1 = same meaning; — = no vector score)",
        ),
        kind="score",
        score=lambda h: h.vector_score,
    ),
    Column(
        "text",
        QT_TRANSLATE_NOOP("ResultsModel", "Text"),
        lambda h: _fmt_score(h.text_score),
        QT_TRANSLATE_NOOP(
            "ResultsModel",
            "How well the words match: the keyword (BM25) score in [0, 1]; rarer words and "
            "more of them score higher (— = no keyword match)",
        ),
        kind="score",
        score=lambda h: h.text_score,
    ),
    Column(
        "decay",
        QT_TRANSLATE_NOOP("ResultsModel", "Decay"),
        lambda h: f"{h.decay:.3f}",
        QT_TRANSLATE_NOOP(
            "ResultsModel",
            "Age penalty: the score is multiplied by this (1 = undated note, or decay off; "
            "0.5 = the note is one half-life old)",
        ),
        kind="score",
        score=lambda h: h.decay,
    ),
    Column(
        "final",
        QT_TRANSLATE_NOOP("ResultsModel", "Final"),
        lambda h: f"{h.score:.3f}",
        QT_TRANSLATE_NOOP(
            "ResultsModel",
            "Final score: vector and text combined with the slider weights, times decay. "
            "With MMR on, rows are in MMR order, so this column need not descend",
        ),
        kind="score",
        score=lambda h: h.score,
    ),
    Column(
        "pre_mmr",
        QT_TRANSLATE_NOOP("ResultsModel", "Pre-MMR"),
        lambda h: str(h.pre_mmr_rank),
        QT_TRANSLATE_NOOP("ResultsModel", "Rank by final score, before MMR re-ordered for diversity"),
        kind="number",
    ),
    Column(
        "mmr",
        QT_TRANSLATE_NOOP("ResultsModel", "MMR"),
        lambda h: "—" if h.mmr_rank is None else str(h.mmr_rank),
        QT_TRANSLATE_NOOP(
            "ResultsModel",
            "Rank chosen by maximal marginal relevance, which pushes near-duplicates down (— = MMR off)",
        ),
        kind="number",
    ),
    Column(
        "snippet",
        QT_TRANSLATE_NOOP("ResultsModel", "Snippet"),
        lambda h: " ".join(h.snippet.split()),
        QT_TRANSLATE_NOOP(
            "ResultsModel",
            "The part of the chunk that matched, with the query's terms highlighted "
            "(the whole chunk is in the tooltip)",
        ),
        kind="snippet",
    ),
)


def annotation_badges(hit: hits_mod.Hit) -> list[tuple[str, str]]:
    """(badge, tooltip) per OpenClaw annotation a hit carries, with the multiplier applied.

    Only the openclaw-2026.9 profile reads annotations; other profiles' hits have none.
    """
    out: list[tuple[str, str]] = []
    if hit.importance is not None:
        factor = f"{hit.importance_multiplier:.2f}"
        out.append(
            (
                QCoreApplication.translate("ResultsModel", "★{0} ×{1}").format(hit.importance, factor),
                QCoreApplication.translate(
                    "ResultsModel", "Importance {0}: the score is multiplied by {1} (0.75 + 0.05 × {0})"
                ).format(hit.importance, factor),
            )
        )
    if hit.project_key is not None:
        factor = f"{hit.project_multiplier:.2f}"
        out.append(
            (
                QCoreApplication.translate("ResultsModel", "{0} ×{1}").format(hit.project_key, factor),
                QCoreApplication.translate(
                    "ResultsModel", "Project {0}: the score is multiplied by {1}"
                ).format(hit.project_key, factor),
            )
        )
    return out


def near_tie_badges(partners: Sequence[int]) -> list[tuple[str, str]]:
    """(badge, tooltip) for a hit the agent may order either way with the hits ranked ``partners``."""
    jitter = f"{near_ties_mod.AGENT_JITTER:g}"
    return [
        (
            QCoreApplication.translate("ResultsModel", "≈#{0}").format(rank),
            QCoreApplication.translate(
                "ResultsModel",
                "Near-tie with #{0}: the scores are closer than {1}, OpenClaw's own jitter between two "
                "runs, so the agent may order these two either way",
            ).format(rank, jitter),
        )
        for rank in partners
    ]


def column_index(key: str) -> int:
    return next(i for i, c in enumerate(COLUMNS) if c.key == key)


class ResultsModel(QAbstractTableModel):
    """The hits of the current query; reset as a whole on each new ranking.

    The ``relevant`` column shows the query's golden labels exactly as the quality
    readout counts them (``eval_golden.assign_labels``): checked when the hit's own
    ``path#Lstart-Lend`` is labelled, half-checked when the hit counts for a label it
    only overlaps (a whole-file label, or one whose text moved), empty otherwise.
    Ticking a box does not change the model: it asks, and whoever owns the labels
    calls ``set_relevant``.

    The snippet column shows an excerpt of each chunk centred on its matches, with
    the matched ranges (``SpansRole``) from the keyword leg's own tokenizer.

    Signals:
        relevance_toggled(object, bool): the user ticked (True) or unticked a ``Hit``.
    """

    relevance_toggled = Signal(object, bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._hits: tuple[hits_mod.Hit, ...] = ()
        self._terms = highlight.KeywordTerms(())
        self._relevant: tuple[eval_golden.Relevant, ...] = ()
        self._claims: list[eval_golden.Relevant | None] = []
        self._excerpts: dict[int, highlight.Excerpt] = {}
        self._spans: dict[int, list[tuple[int, int]]] = {}
        self._near_ties: Mapping[str, tuple[int, ...]] = {}
        self.excerpt_chars = 240
        # More (badge, tooltip) per hit beside its annotations (a search as of a past day
        # marks the hits whose note changed since).
        self.extra_badges: Callable[[hits_mod.Hit], list[tuple[str, str]]] | None = None

    @property
    def hits(self) -> tuple[hits_mod.Hit, ...]:
        return self._hits

    @property
    def query_terms(self) -> tuple[str, ...]:
        return self._terms.terms

    @property
    def keyword_terms(self) -> highlight.KeywordTerms:
        return self._terms

    @property
    def relevant(self) -> tuple[eval_golden.Relevant, ...]:
        return self._relevant

    def near_tie(self, hit: hits_mod.Hit) -> tuple[int, ...]:
        """Ranks of the neighbours the agent may put ``hit`` before or after (``near_ties``)."""
        return self._near_ties.get(hit.chunk_id, ())

    def set_hits(
        self,
        hits: Sequence[hits_mod.Hit],
        terms: highlight.KeywordTerms | Sequence[str] = (),
        relevant: Sequence[eval_golden.Relevant] | None = None,
        near_ties: Mapping[str, tuple[int, ...]] | None = None,
    ) -> bool:
        """Show ``hits``; True when the rows were reset.

        ``near_ties``: ``core.search.near_ties`` of these hits (an agent profile's hits
        closer than the agent's own jitter), marked on both rows.

        The same chunks in the same order (a search run again because some note
        changed on disk, or a re-ranking that moved nothing) are not a reset: only
        the changed values repaint, so the views keep their selection and scroll.
        """
        hits = tuple(hits)
        terms = terms if isinstance(terms, highlight.KeywordTerms) else highlight.KeywordTerms(tuple(terms))
        relevant = tuple(relevant) if relevant is not None else self._relevant
        near = dict(near_ties or {})
        same_rows = [h.chunk_id for h in hits] == [h.chunk_id for h in self._hits]
        if (
            same_rows
            and hits == self._hits
            and terms == self._terms
            and relevant == self._relevant
            and near == self._near_ties
        ):
            return False
        if not same_rows:
            self.beginResetModel()
        self._near_ties = near
        # A row's marks are found in its hit's text: new terms, or a hit whose text
        # changed in place (its note edited on disk, the same chunk in the same row),
        # need them found again.
        if terms != self._terms or hits != self._hits:
            self._spans = {}
        self._terms = terms
        self._hits = hits
        self._excerpts = {}
        self._relevant = relevant
        self._claims = eval_golden.assign_labels(self._hits, self._relevant)
        if not same_rows:
            self.endResetModel()
            return True
        if hits:
            self.dataChanged.emit(self.index(0, 0), self.index(len(hits) - 1, len(COLUMNS) - 1))
        return False

    @staticmethod
    def hit_key(hit: hits_mod.Hit) -> tuple[str, int, int]:
        """Where a hit is (note and line range): finds it again after its chunk was
        re-indexed under a new id."""
        return (hit.path, hit.start_line, hit.end_line)

    def set_relevant(self, relevant: Sequence[eval_golden.Relevant]) -> None:
        """The current query's labelled items (repaints the check column only)."""
        relevant = tuple(relevant)
        if relevant == self._relevant:
            return
        self._relevant = relevant
        self._claims = eval_golden.assign_labels(self._hits, self._relevant)
        if self._hits:
            column = column_index("relevant")
            self.dataChanged.emit(
                self.index(0, column),
                self.index(len(self._hits) - 1, column),
                [Qt.ItemDataRole.CheckStateRole, Qt.ItemDataRole.DisplayRole],
            )

    def check_state(self, hit: hits_mod.Hit) -> Qt.CheckState:
        row = next((i for i, h in enumerate(self._hits) if h.chunk_id == hit.chunk_id), -1)
        claim = self._claims[row] if 0 <= row < len(self._claims) else None
        if claim is None:
            return Qt.CheckState.Unchecked
        if claim == eval_golden.Relevant(hit.path, hit.start_line, hit.end_line):
            return Qt.CheckState.Checked
        return Qt.CheckState.PartiallyChecked

    def claimed_label(self, row: int) -> eval_golden.Relevant | None:
        return self._claims[row] if 0 <= row < len(self._claims) else None

    def match_spans(self, row: int) -> list[tuple[int, int]]:
        """Matched ranges of the whole chunk text of ``row`` (cached)."""
        if row not in self._spans:
            hit = self.hit(row)
            self._spans[row] = highlight.match_spans(hit.text, self._terms) if hit else []
        return self._spans[row]

    def excerpt(self, row: int) -> highlight.Excerpt | None:
        hit = self.hit(row)
        if hit is None:
            return None
        if row not in self._excerpts:
            self._excerpts[row] = highlight.excerpt(hit.text, self.match_spans(row), width=self.excerpt_chars)
        return self._excerpts[row]

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
            return _tr(column.header)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tr(column.tooltip)
        return None

    def _badges(self, hit: hits_mod.Hit) -> list[tuple[str, str]]:
        extra = self.extra_badges(hit) if self.extra_badges is not None else []
        return [*annotation_badges(hit), *near_tie_badges(self.near_tie(hit)), *extra]

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
                return _tr(RELEVANCE_WORDS[state])
            if role == Qt.ItemDataRole.ToolTipRole:
                claim = self.claimed_label(index.row())
                why = (
                    QCoreApplication.translate("ResultsModel", "counts for the label {0}").format(
                        claim.label()
                    )
                    if state == Qt.CheckState.PartiallyChecked and claim
                    else ""
                )
                return (
                    f"{_tr(column.tooltip)}\n{hit.path}#L{hit.start_line}-L{hit.end_line}: "
                    f"{_tr(RELEVANCE_WORDS[state])}" + (f" ({why})" if why else "")
                )
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignCenter)
        if column.kind == "snippet" and role in (Qt.ItemDataRole.DisplayRole, SpansRole):
            shown = self.excerpt(index.row())
            if shown is None:
                return None
            if role == SpansRole:  # offsets into the DisplayRole text, after its "… "
                lead = 2 if shown.clipped_start else 0
                return [(start + lead, end + lead) for start, end in shown.spans]
            return ("… " if shown.clipped_start else "") + shown.text + (" …" if shown.clipped_end else "")
        if role == Qt.ItemDataRole.DisplayRole:
            return column.text(hit)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column.kind == "snippet":
                return hit.text if len(hit.text) <= 2000 else hit.text[:2000] + " …"
            if column.key == "location":
                tip = f"{hit.path}\n" + QCoreApplication.translate("ResultsModel", "lines {0}–{1}").format(
                    hit.start_line, hit.end_line
                )
                return "\n".join([tip, *(why for _, why in self._badges(hit))])
            return f"{_tr(column.tooltip)}\n{column.text(hit)}"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if column.kind in ("number", "score"):
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if role == HitRole:
            return hit
        if role == BadgesRole and column.key == "location":
            return [badge for badge, _ in self._badges(hit)]
        if role == ScoreRole:
            return column.score(hit) if column.score else None
        if role == KindRole:
            return column.kind
        return None


@dataclasses.dataclass(eq=False)
class _Node:
    name: str
    path: str  # workspace-relative; folders too ("memory/projects"); "#…" for date groups
    is_dir: bool
    parent: _Node | None
    children: list[_Node] = dataclasses.field(default_factory=list)
    folder: str = ""  # the real folder a new note made here goes to

    def row(self) -> int:
        return self.parent.children.index(self) if self.parent else 0


GROUP_DATED_OVER = 100  # a folder with more dated notes than this groups them by year/month
_DATED = re.compile(r"^(\d{4})-(\d{2})-\d{2}")


def _is_group(node: _Node) -> bool:
    return node.is_dir and node.path.rpartition("/")[2].startswith("#")


class WorkspaceTreeModel(QAbstractItemModel):
    """The workspace's memory notes as folders and files, each with its index state.

    Not a ``QFileSystemModel``: that one loads folders lazily on its own thread and
    knows neither extra paths outside the workspace nor indexing states, while this
    tree is exactly the file list the index sees. A folder of many daily notes
    (``YYYY-MM-DD*.md``) shows them under year and month groups, newest first; a
    filter keeps only the notes whose path holds every word of it.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._root = _Node("", "", True, None)
        self._files: tuple[str, ...] = ()
        self._states: dict[str, tuple[str, str]] = {}
        self._by_path: dict[str, _Node] = {}
        self._filter: tuple[str, ...] = ()
        self._unseen: frozenset[str] = frozenset()

    @property
    def files(self) -> tuple[str, ...]:
        return self._files

    @property
    def unseen(self) -> frozenset[str]:
        return self._unseen

    def set_unseen(self, notes: Iterable[str]) -> bool:
        """The notes the agent changed since the user last looked (the tree's badge);
        True when that changed. Only the rows whose badge comes or goes are announced."""
        unseen = frozenset(notes)
        if unseen == self._unseen:
            return False
        changed = unseen ^ self._unseen
        self._unseen = unseen
        for rel in changed:
            index = self.index_of(rel)
            if index.isValid():
                self.dataChanged.emit(index, index, [UnseenRole, Qt.ItemDataRole.ToolTipRole])
        return True

    @property
    def filtering(self) -> bool:
        return bool(self._filter)

    @property
    def shown_files(self) -> list[str]:
        """The notes the tree shows now (after the filter), in tree order."""
        out: list[str] = []
        stack = list(reversed(self._root.children))
        while stack:
            node = stack.pop()
            if node.is_dir:
                stack.extend(reversed(node.children))
            else:
                out.append(node.path)
        return out

    def set_files(self, files: Sequence[str]) -> None:
        """Rebuild the tree if the file set changed (states are kept)."""
        files = tuple(files)
        if set(files) == set(self._files):
            return
        self._files = files
        self._rebuild()

    def set_filter(self, text: str) -> None:
        words = tuple(text.lower().split())
        if words != self._filter:
            self._filter = words
            self._rebuild()

    def _rebuild(self) -> None:
        self.beginResetModel()
        self._root = _Node("", "", True, None)
        self._by_path = {}
        shown = [f for f in self._files if all(w in f.lower() for w in self._filter)]
        dated: dict[str, int] = {}
        for rel in shown:
            folder, _, name = rel.rpartition("/")
            if folder and _DATED.match(name):
                dated[folder] = dated.get(folder, 0) + 1
        grouped = {folder for folder, count in dated.items() if count > GROUP_DATED_OVER}
        for rel in sorted(shown, key=self._sort_key):
            parts = rel.split("/")
            folder_parts, name = parts[:-1], parts[-1]
            parent = self._root
            for depth, part in enumerate(folder_parts):
                parent = self._child(parent, part, "/".join(parts[: depth + 1]), True)
            folder = "/".join(folder_parts)
            match = _DATED.match(name)
            if folder in grouped and match:
                year, month = match.group(1), f"{match.group(1)}-{match.group(2)}"
                parent = self._child(parent, year, f"{folder}/#{year}", True, folder=folder)
                parent = self._child(parent, month, f"{folder}/#{month}", True, folder=folder)
            self._child(parent, name, rel, False, folder=folder)
        for node in self._by_path.values():
            if _is_group(node):  # newest first inside a date group
                node.children.sort(key=lambda c: c.name, reverse=True)
            elif any(_is_group(c) for c in node.children):
                groups = sorted(
                    (c for c in node.children if _is_group(c)), key=lambda c: c.name, reverse=True
                )
                node.children = (
                    [c for c in node.children if c.is_dir and not _is_group(c)]
                    + groups
                    + [c for c in node.children if not c.is_dir]
                )
        self.endResetModel()

    def _child(
        self, parent: _Node, name: str, path: str, is_dir: bool, *, folder: str | None = None
    ) -> _Node:
        node = self._by_path.get(path)
        if node is None:
            node = _Node(
                name,
                path,
                is_dir,
                parent,
                folder=folder if folder is not None else (path if is_dir else path.rpartition("/")[0]),
            )
            parent.children.append(node)
            self._by_path[path] = node
        return node

    @staticmethod
    def _sort_key(rel: str) -> tuple[int, str]:
        # Root files first (the curated memory), then memory/ in path order.
        return (0 if "/" not in rel else 1, rel)

    def set_states(self, states: dict[str, tuple[str, str]], *, notify: bool = True) -> bool:
        """Take the notes' index states; True when they changed.

        ``notify=False`` is for the one view that repaints itself after the call
        (``WorkspaceTree``): a tree view answers each folder's dataChanged by asking the
        model for rows up the whole tree, 40-80 ms for 2,000 notes, on the GUI thread.
        """
        if states == self._states:
            return False
        self._states = dict(states)
        if not notify:
            return True
        # One signal per folder (children included): views repaint their whole viewport
        # on a multi-row dataChanged, and thousands of per-file signals would stall the GUI.
        for node in [self._root, *self._by_path.values()]:
            if node.is_dir and node.children:
                parent = QModelIndex() if node is self._root else self.createIndex(node.row(), 0, node)
                self.dataChanged.emit(
                    self.index(0, 0, parent),
                    self.index(len(node.children) - 1, 0, parent),
                    [StateRole, Qt.ItemDataRole.ToolTipRole],
                )
        return True

    def state(self, rel: str) -> tuple[str, str]:
        return self._states.get(rel, ("pending", "not indexed yet"))

    def index_of(self, rel: str) -> QModelIndex:
        node = self._by_path.get(rel)
        if node is None:
            return QModelIndex()
        return self.createIndex(node.row(), 0, node)

    def _node(self, index: AnyIndex) -> _Node:
        if index.isValid():
            node: _Node = index.internalPointer()
            return node
        return self._root

    def index(self, row: int, column: int, parent: AnyIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        node = self._node(parent)
        if column != 0 or not 0 <= row < len(node.children):
            return QModelIndex()
        return self.createIndex(row, column, node.children[row])

    # PySide types parent() as QObject.parent()'s overloads; a model's parent(index) is Qt's other overload.
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
        if role == FolderRole:
            return node.folder
        if node.is_dir:
            if role == StateRole:
                return ""
            if role == Qt.ItemDataRole.ToolTipRole:
                return f"{node.folder}/{node.name}" if _is_group(node) else node.path
            return None
        state, reason = self.state(node.path)
        if role == StateRole:
            return state
        if role == UnseenRole:
            return node.path in self._unseen
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = f"{node.path}\n{state}" + (f": {reason}" if reason else "")
            if node.path in self._unseen:
                tip += "\n" + QCoreApplication.translate(
                    "WorkspaceTreeModel", "Changed by the agent since you last looked"
                )
            return tip
        return None
