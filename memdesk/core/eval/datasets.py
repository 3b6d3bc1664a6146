"""BEIR datasets: loading (holdout splits guarded) and importing a corpus as notes."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import re
from pathlib import Path

from memdesk.core import errors

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Dataset:
    name: str
    corpus: dict[str, tuple[str, str]]  # doc id -> (title, text)
    queries: dict[str, str]
    qrels: dict[str, set[str]]  # query id -> relevant doc ids (score > 0)
    corpus_sha256: str


def load_beir(folder: Path, split: str = "dev") -> Dataset:
    folder = Path(folder)
    if "holdout" in split and not _holdout_allowed():
        raise errors.EvalError(
            "the holdout split is for final measurement only; "
            "set MEMDESK_ALLOW_HOLDOUT=1 to run it deliberately"
        )
    needed = [folder / "corpus.jsonl", folder / "queries.jsonl", folder / "qrels" / f"{split}.tsv"]
    for path in needed:
        if not path.is_file():
            raise errors.EvalError(
                f"{path}: missing (BEIR layout: corpus.jsonl, queries.jsonl, qrels/{split}.tsv)"
            )
    digest = hashlib.sha256()
    corpus: dict[str, tuple[str, str]] = {}
    with needed[0].open("rb") as handle:
        for raw in handle:
            digest.update(raw)
            if raw.strip():
                obj = json.loads(raw)
                corpus[str(obj["_id"])] = (str(obj.get("title") or ""), str(obj.get("text") or ""))
    queries = {}
    for line in needed[1].read_text(encoding="utf-8").splitlines():
        if line.strip():
            obj = json.loads(line)
            queries[str(obj["_id"])] = str(obj["text"])
    qrels: dict[str, set[str]] = {}
    for n, line in enumerate(needed[2].read_text(encoding="utf-8").splitlines()):
        parts = line.split("\t")
        if (n == 0 and parts[0] == "query-id") or len(parts) < 3:
            continue
        if float(parts[2]) > 0:
            qrels.setdefault(parts[0], set()).add(parts[1])
    qrels = {q: docs for q, docs in qrels.items() if q in queries}
    return Dataset(folder.name, corpus, queries, qrels, digest.hexdigest())


def _holdout_allowed() -> bool:

    return os.environ.get("MEMDESK_ALLOW_HOLDOUT") == "1"


def doc_note_path(doc_id: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", doc_id)
    if safe != doc_id or len(safe) > 80:
        safe = safe[:40] + "-" + hashlib.sha1(doc_id.encode()).hexdigest()[:12]
    return f"memory/doc-{safe}.md"


def import_corpus(dataset: Dataset, root: Path) -> dict[str, str]:
    """Write one note per document (title as heading) and return note path -> doc id.

    Idempotent: a marker holding the corpus hash skips the work on later runs.
    """
    marker = root / ".memdesk" / "corpus.json"
    mapping = {doc_note_path(d): d for d in dataset.corpus}
    if marker.is_file():
        try:
            if json.loads(marker.read_text())["sha256"] == dataset.corpus_sha256:
                return mapping
        except (ValueError, KeyError):
            pass
    (root / "memory").mkdir(parents=True, exist_ok=True)
    for rel, doc_id in mapping.items():
        title, text = dataset.corpus[doc_id]
        body = (f"# {title.strip()}\n\n" if title.strip() else "") + text.strip() + "\n"
        (root / rel).write_text(body, encoding="utf-8")
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps({"sha256": dataset.corpus_sha256, "docs": len(mapping)}))
    return mapping
