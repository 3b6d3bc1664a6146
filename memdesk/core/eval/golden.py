"""Golden sets: a user's own labelled queries (JSON lines) and their scores on cached pools."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from memdesk.core import errors
from memdesk.core.eval.metrics import Scores, score_ranking
from memdesk.core.index import workspace
from memdesk.core.search import ranking
from memdesk.core.search.hits import CandidatePool, Hit
from memdesk.core.search.settings import SearchSettings

log = logging.getLogger(__name__)


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
    """A labelled query; ``anchors`` maps a label to the hash of its lines (``anchors.py``)."""

    query: str
    relevant: tuple[Relevant, ...]
    anchors: tuple[tuple[str, str], ...] = ()


def load_golden(path: Path) -> list[GoldenQuery]:
    """JSON lines ``{"query": ..., "relevant": ["memory/x.md", "MEMORY.md#L10-L20"]}``."""
    out: list[GoldenQuery] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise errors.EvalError(f"{path}: cannot read golden file ({exc})") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            query = str(obj["query"])
            rel = tuple(Relevant.parse(str(r)) for r in obj["relevant"])
            anchors = tuple((str(k), str(v)) for k, v in dict(obj.get("anchors") or {}).items())
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise errors.EvalError(
                f'{path}:{number}: expected {{"query": ..., "relevant": [...]}} ({{exc}})'
            ) from None
        out.append(GoldenQuery(query, rel, anchors))
    return out


def save_golden(path: Path, queries: Sequence[GoldenQuery]) -> None:
    def line(q: GoldenQuery) -> dict[str, Any]:
        obj: dict[str, Any] = {"query": q.query, "relevant": [r.label() for r in q.relevant]}
        if q.anchors:
            obj["anchors"] = dict(q.anchors)
        return obj

    text = "".join(json.dumps(line(q), ensure_ascii=False) + "\n" for q in queries)
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


def score_golden_queries(
    pools: Mapping[str, CandidatePool],
    golden: Sequence[GoldenQuery],
    settings: SearchSettings,
    *,
    now: Any = None,
) -> dict[str, Scores]:
    """Each golden query's scores (queries without a pool are left out), no I/O."""
    out: dict[str, Scores] = {}
    for item in golden:
        pool = pools.get(item.query)
        if pool is None:
            continue
        hits = ranking.rank(pool, settings, now=now)
        labels = hit_labels(hits, item.relevant)
        out[item.query] = score_ranking(labels, {r.label() for r in item.relevant})
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
