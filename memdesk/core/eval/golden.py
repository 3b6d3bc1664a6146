"""Golden sets: a user's own labelled queries (JSON lines), their scores on cached pools,
and ``GoldenSet``, the labels a person ticks in the tuning lab (load, tick, atomic save)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import logging
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from memdesk.core import diskio, errors
from memdesk.core.eval import anchors as anchors_mod
from memdesk.core.eval.metrics import Scores, score_ranking
from memdesk.core.index import workspace
from memdesk.core.search import ranking
from memdesk.core.search.hits import CandidatePool, Hit
from memdesk.core.search.settings import SearchSettings

log = logging.getLogger(__name__)


# Where the tuning lab keeps a workspace's golden set, relative to the workspace.
GOLDEN_REL = ".memdesk/golden.jsonl"
# Labelled queries by hand: thousands of lines at most, far below this.
MAX_GOLDEN_BYTES = 64 << 20

_RANGE = re.compile(r"^(?P<path>.+?)(?:#L(?P<start>\d+)(?:-L?(?P<end>\d+))?)?$")


@dataclasses.dataclass(frozen=True)
class Relevant:
    """A labelled relevant item: a whole file, or a line range of it."""

    path: str
    start: int | None = None
    end: int | None = None

    @classmethod
    def parse(cls, text: str) -> Relevant:
        match = _RANGE.match(text.strip())
        if not match:
            raise errors.EvalError(f"cannot read relevant item {text!r}")
        start = int(match["start"]) if match["start"] else None
        end = int(match["end"]) if match["end"] else start
        return cls(match["path"].removeprefix("./"), start, end)

    def label(self) -> str:
        if self.start is None:
            return self.path
        return f"{self.path}#L{self.start}-L{self.end}"

    def matches(self, hit: Hit) -> bool:
        if hit.path != self.path:
            return False
        if self.start is None or self.end is None:
            return True
        return hit.start_line <= self.end and hit.end_line >= self.start


@dataclasses.dataclass(frozen=True)
class GoldenQuery:
    """A labelled query; ``anchors`` maps a label to the hash of its lines (``anchors.py``).

    ``now`` is the clock the query was asked at (decay and recency count from it
    instead of today); ``category`` groups queries in reports.
    """

    query: str
    relevant: tuple[Relevant, ...]
    anchors: tuple[tuple[str, str], ...] = ()
    now: dt.datetime | None = None
    category: str | None = None
    id: str | None = None


class _BadClock(ValueError):
    pass


def _parse_now(value: object) -> dt.datetime | None:
    if value is None:
        return None
    text = str(value).strip()
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise _BadClock(f'"now": {text!r} is not a date (YYYY-MM-DD) or ISO date-time') from None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def _category(obj: dict[str, Any]) -> str | None:
    name = obj.get("category_name", obj.get("category"))
    return None if name is None or str(name).strip() == "" else str(name)


def load_golden(path: Path) -> list[GoldenQuery]:
    """JSON lines ``{"query": ..., "relevant": ["memory/x.md", "MEMORY.md#L10-L20"]}``.

    Optional per line: ``now`` (YYYY-MM-DD or an ISO date-time: the clock of that
    query), ``category_name`` (or ``category``) and ``id``; other keys are ignored.
    """
    out: list[GoldenQuery] = []
    try:
        # Bounded, a FIFO or a device refused at once (a link to /dev/zero hung the lab).
        lines = diskio.read_regular(path, MAX_GOLDEN_BYTES).decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        error = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise errors.EvalError(f"{path}: cannot read golden file ({error})") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            query = str(obj["query"])
            rel = tuple(Relevant.parse(str(r)) for r in obj["relevant"])
            anchors = tuple((str(k), str(v)) for k, v in dict(obj.get("anchors") or {}).items())
            now = _parse_now(obj.get("now"))
        except _BadClock as exc:
            raise errors.EvalError(f"{path}:{number}: {exc}") from None
        except (
            KeyError,
            TypeError,
            ValueError,
            AttributeError,
            RecursionError,
        ) as exc:  # JSONDecodeError too
            raise errors.EvalError(
                f'{path}:{number}: expected {{"query": ..., "relevant": [...]}} ({exc!r})'
            ) from None
        ident = obj.get("id")
        out.append(
            GoldenQuery(query, rel, anchors, now, _category(obj), None if ident is None else str(ident))
        )
    return out


def _golden_line(q: GoldenQuery) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    if q.id is not None:
        obj["id"] = q.id
    obj |= {"query": q.query, "relevant": [r.label() for r in q.relevant]}
    if q.anchors:
        obj["anchors"] = dict(q.anchors)
    if q.category is not None:
        obj["category_name"] = q.category
    if q.now is not None:
        midnight = q.now.time() == dt.time(0) and q.now.utcoffset() == dt.timedelta(0)
        obj["now"] = q.now.date().isoformat() if midnight else q.now.isoformat()
    return obj


def save_golden(path: Path, queries: Sequence[GoldenQuery], *, root: Path | None = None) -> None:
    """Write ``queries`` back as JSON lines, keeping anchors, ``now``, category and id;
    with ``root`` (the workspace), never through a symlink leading out of it."""
    text = "".join(json.dumps(_golden_line(q), ensure_ascii=False) + "\n" for q in queries)
    if root is not None:
        path = workspace.confined(root, path)
    workspace.write_note_atomic(path, text)


def assign_labels(hits: Sequence[Hit], relevant: Sequence[Relevant]) -> list[Relevant | None]:
    """The labelled item each hit counts as, ``None`` for a hit that counts as none.

    Each label is claimed once, and only by a hit it matches: first every hit whose
    own line range is labelled takes its label (so two ticked chunks of one note
    count twice, as ticked), then, in rank order, the remaining hits take the first
    unclaimed label they overlap (whole-file labels and hand-written ranges).
    """
    out: list[Relevant | None] = [None] * len(hits)
    claimed: set[Relevant] = set()
    wanted = set(relevant)
    for i, hit in enumerate(hits):
        own = Relevant(hit.path, hit.start_line, hit.end_line)
        if own in wanted and own not in claimed:
            out[i] = own
            claimed.add(own)
    for i, hit in enumerate(hits):
        if out[i] is None:
            label = next((r for r in relevant if r not in claimed and r.matches(hit)), None)
            if label is not None:
                out[i] = label
                claimed.add(label)
    return out


def hit_labels(hits: Sequence[Hit], relevant: Sequence[Relevant]) -> list[str]:
    """Each hit as the label it counts as (see ``assign_labels``), else its chunk id."""
    return [
        label.label() if label is not None else "chunk:" + hit.chunk_id
        for hit, label in zip(hits, assign_labels(hits, relevant), strict=True)
    ]


def score_hits(hits: Sequence[Hit], relevant: Sequence[Relevant]) -> Scores:
    """One labelled query's scores: each hit counts as the label it claims
    (``assign_labels``). Every golden-set figure goes through here: ``memdesk eval
    --golden``, the tuning lab's readout, auto-tune and ``benchmarks/quality.py``."""
    return score_ranking(hit_labels(hits, relevant), {r.label() for r in relevant})


def score_golden_queries(
    pools: Mapping[str, CandidatePool],
    golden: Sequence[GoldenQuery],
    settings: SearchSettings,
    *,
    now: Any = None,
) -> dict[str, Scores]:
    """Each golden query's scores (queries without a pool are left out), no I/O.

    A query's own ``now`` overrides ``now`` for that query.
    """
    out: dict[str, Scores] = {}
    for item in golden:
        pool = pools.get(item.query)
        if pool is None:
            continue
        hits = ranking.rank(pool, settings, now=item.now if item.now is not None else now)
        out[item.query] = score_hits(hits, item.relevant)
    return out


def score_golden(
    pools: Mapping[str, CandidatePool],
    golden: Sequence[GoldenQuery],
    settings: SearchSettings,
    *,
    now: Any = None,
) -> Scores:
    """Mean scores of the golden set, re-ranking cached pools only (no I/O)."""
    return Scores.mean(list(score_golden_queries(pools, golden, settings, now=now).values()))


def hit_item(hit: Hit) -> Relevant:
    """The label a ticked hit gets: ``path#Lstart-Lend``."""
    return Relevant(hit.path, hit.start_line, hit.end_line)


def query_key(query: str) -> str:
    """Golden queries are keyed by their text without surrounding blanks (as searched)."""
    return query.strip()


class GoldenSet:
    """The labelled queries of ``.memdesk/golden.jsonl``; every change is saved atomically.

    A query whose last item is unticked leaves the file; the others keep their order
    (new queries are appended), so the file stays diff-friendly. Each line-range
    label carries an anchor (a hash of its lines): ``reanchor`` moves labels whose
    text moved within the note, and lists those whose text is gone in ``lost``.
    """

    def __init__(self, path: Path, root: Path | None = None) -> None:
        self.path = Path(path)
        self.root = Path(root) if root is not None else self.path.parent.parent
        self._items: dict[str, tuple[Relevant, ...]] = {}
        self._anchors: dict[Relevant, str] = {}
        self.lost: tuple[tuple[str, Relevant], ...] = ()
        self.writable = True  # False after a failed load: never overwrite what we could not read

    def load(self) -> None:
        """Read the file (a missing file is an empty set); raises ``errors.EvalError``."""
        self._items = {}
        self._anchors = {}
        self.lost = ()
        self.writable = False
        if not self.path.exists():
            self.writable = True
            return
        for item in load_golden(self.path):
            key = query_key(item.query)
            if key and item.relevant:
                merged = self._items.get(key, ()) + tuple(
                    r for r in item.relevant if r not in self._items.get(key, ())
                )
                self._items[key] = merged
                for label, anchor in item.anchors:
                    try:
                        self._anchors[Relevant.parse(label)] = anchor
                    except errors.EvalError:
                        continue
        self.writable = True

    @property
    def queries(self) -> list[GoldenQuery]:
        return [
            GoldenQuery(q, rel, tuple((r.label(), self._anchors[r]) for r in rel if r in self._anchors))
            for q, rel in self._items.items()
        ]

    @property
    def item_count(self) -> int:
        return sum(len(rel) for rel in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def relevant_for(self, query: str) -> tuple[Relevant, ...]:
        return self._items.get(query_key(query), ())

    def anchor_for(self, item: Relevant) -> str | None:
        return self._anchors.get(item)

    def _note_lines(self, rel: str) -> list[str] | None:
        try:
            return workspace.read_note(self.root / rel).splitlines()
        except (OSError, errors.MemdeskError):
            return None

    def set_relevant(self, query: str, item: Relevant, on: bool) -> bool:
        """Add or remove ``item`` for ``query`` and save; False when nothing changed.

        Raises ``OSError`` when the file cannot be written and ``errors.EvalError`` when
        it could not be read (the set is left as it was).
        """
        key = query_key(query)
        if not key:
            return False
        if not self.writable:
            raise errors.EvalError(
                f"{self.path} could not be read; fix or remove it and reopen the workspace before labelling"
            )
        current = self._items.get(key, ())
        if on == (item in current):
            return False
        before, before_anchors = dict(self._items), dict(self._anchors)
        updated = (*current, item) if on else tuple(r for r in current if r != item)
        if updated:
            self._items[key] = updated
        else:
            self._items.pop(key, None)
        if on and item.start is not None and item.end is not None:
            lines = self._note_lines(item.path)
            if lines is not None:
                self._anchors[item] = anchors_mod.anchor_of(lines, item.start, item.end)
        self.lost = tuple((q, r) for q, r in self.lost if not (q == key and r == item))
        try:
            save_golden(self.path, self.queries, root=self.root)
        except (OSError, errors.MemdeskError):
            self._items, self._anchors = before, before_anchors
            raise
        return True

    def reanchor(self) -> bool:
        """Follow every anchored label to where its lines are now; True if any moved.

        Labels without an anchor (written by hand) are anchored to their lines as they
        are now. Labels whose lines are gone stay as they are and are listed in
        ``lost``. Moves are saved at once.
        """
        moved = False
        lost: list[tuple[str, Relevant]] = []
        texts: dict[str, list[str] | None] = {}
        new_items: dict[str, tuple[Relevant, ...]] = {}
        for key, items in self._items.items():
            out: list[Relevant] = []
            for item in items:
                if item.start is None or item.end is None:
                    out.append(item)
                    continue
                if item.path not in texts:
                    texts[item.path] = self._note_lines(item.path)
                lines = texts[item.path]
                anchor = self._anchors.get(item)
                if lines is None:
                    lost.append((key, item))
                    out.append(item)
                elif anchor is None:
                    self._anchors[item] = anchors_mod.anchor_of(lines, item.start, item.end)
                    out.append(item)
                else:
                    where = anchors_mod.reanchor(item.start, item.end, anchor, "\n".join(lines))
                    if where.lost:
                        lost.append((key, item))
                        out.append(item)
                    elif where.moved:
                        new = Relevant(item.path, where.start, where.end)
                        self._anchors[new] = anchor
                        out.append(new)
                        moved = True
                    else:
                        out.append(item)
            new_items[key] = tuple(dict.fromkeys(out))
        self._items = new_items
        self.lost = tuple(lost)
        if moved and self.writable:
            try:
                save_golden(self.path, self.queries, root=self.root)
            except (OSError, errors.MemdeskError) as exc:
                log.warning("cannot save re-anchored labels to %s: %s", self.path, exc)
        return moved
