"""OpenClaw 2026.9's builtin memory pipeline: indexing and search, ported from the release.

Read from the ``openclaw@2026.9.6`` npm package's ``dist`` (the bundle keeps
``//#region <source path>`` markers: ``extensions/memory-core/src/memory/*`` and
``packages/memory-host-sdk/src/host/*``); ``docs/openclaw-versions.md`` lists what
changed since 2026.4 and where each rule lives. What this module reproduces:

* files: ``MEMORY.md`` (exact name), ``USER.md``, ``memory/**/*.md`` (sorted);
* chunking v5 (400/80 weighted tokens, new CJK weights, a tail-of-line overlap),
  per bullet/heading entry in ``MEMORY.md`` and ``USER.md``, over the text with
  line-scoped ``<!-- importance|project|trigger: … -->`` carriers removed;
* recall metadata per entry: importance (curated roots only, lines ending in
  ``-->``), project keys (any memory file but ``USER.md``; a malformed annotation
  hides the entry), triggers;
* the keyword leg: body FTS (AND query, bm25 → ``r/(1+r)``, lexical boost on every
  hit), a separate path FTS index with exact path / basename / stem tiers, and the
  extracted-keyword fallback when the full query finds fewer than the candidate
  pool;
* the hybrid merge (0.7/0.3), temporal decay (always on, 30 days, dated files at
  any depth incl. ``-slug`` names), the importance multiplier ``0.75 + 0.05×N``,
  the project multiplier (1.15 / 0.9 for active projects), MMR (λ 0.7, always on)
  and the result selection that back-fills keyword-only hits under ``minScore``.

The index lives in an SQLite connection (``core/index/sqlite.py``) with the release's
own table names, so ``bm25()`` sees the same rows OpenClaw's does. The trigram
tokenizer and ``extraPaths`` (via ``Index(files=...)``) are reproduced; sessions and
multimodal files are not (see the doc).
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import math
import os
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from memdesk.core import errors
from memdesk.core.index import sqlite

from . import config as oc_config
from . import keywords as oc_keywords
from .hybrid import bm25_rank_to_score
from .ids import FTS_ONLY_MODEL, StoredChunk
from .text import hash_text, js_trim, truncate_utf16_safe, utf16_len, word_tokens

VERSION = "2026.9.6"
# 2026.9 keeps 2026.4's named defaults (DEFAULT_CHUNK_TOKENS, DEFAULT_MAX_RESULTS,
# DEFAULT_HYBRID_VECTOR_WEIGHT, DEFAULT_MMR_LAMBDA, DEFAULT_TEMPORAL_DECAY_HALF_LIFE_DAYS,
# ... in its memory-search modules, same values); only maxResults/minScore stay
# configurable, the rest became fixed. One source for the numbers: config.py.
CHUNK_TOKENS = oc_config.DEFAULT_CHUNK_TOKENS
CHUNK_OVERLAP = oc_config.DEFAULT_CHUNK_OVERLAP
MAX_RESULTS = oc_config.DEFAULT_MAX_RESULTS
MIN_SCORE = oc_config.DEFAULT_MIN_SCORE
VECTOR_WEIGHT = oc_config.DEFAULT_VECTOR_WEIGHT
TEXT_WEIGHT = oc_config.DEFAULT_TEXT_WEIGHT
CANDIDATE_UNIVERSE = 200  # search() asks searchCandidates for max(200, maxResults)
MMR_LAMBDA = oc_config.DEFAULT_MMR_LAMBDA
HALF_LIFE_DAYS = float(oc_config.DEFAULT_HALF_LIFE_DAYS)
SNIPPET_MAX_CHARS = 700
KEYWORD_FALLBACK_TERM_LIMIT = 6
EXACT_PATH_CANDIDATE_LIMIT = 200
DAY_MS = 86_400_000
INVALID_PROJECT_KEY = "!invalid-project-annotation"

# -- weighted size (normalization-core/src/cjk-chars.ts) -------------------------------------------
_WEIGHT_RANGES: tuple[tuple[tuple[int, int], ...], ...] = (
    ((183, 183), (12288, 12703), (19968, 40869), (44032, 55215), (65281, 65376)),
    (
        (4352, 4607),
        (11904, 12287),
        (12704, 19967),
        (40870, 40959),
        (40960, 42239),
        (42752, 42759),
        (43360, 43391),
        (55216, 55295),
        (63744, 64255),
    ),
    (
        (711, 711),
        (713, 715),
        (729, 729),
        (746, 747),
        (773, 773),
        (803, 803),
        (65040, 65103),
        (65377, 65500),
        (65504, 65510),
    ),
    ((119648, 119665),),
    (
        (94176, 94207),
        (110576, 110591),
        (110592, 110959),
        (127488, 127743),
        (131072, 195103),
        (196608, 210047),
    ),
)
# Extra weight per code point of each bucket on top of its UTF-16 length.
_BUCKET_EXTRA = (3, 11, 7, 10, 14)
_BOUNDS = sorted((lo, hi, bucket) for bucket, ranges in enumerate(_WEIGHT_RANGES) for lo, hi in ranges)
_STARTS = [b[0] for b in _BOUNDS]


def _bucket(cp: int) -> int | None:
    i = bisect.bisect_right(_STARTS, cp) - 1
    if i >= 0 and _BOUNDS[i][0] <= cp <= _BOUNDS[i][1]:
        return _BOUNDS[i][2]
    return None


def estimate_string_chars(text: str) -> int:
    """``estimateStringChars``: UTF-16 length plus per-script extra weight."""
    total = utf16_len(text)
    if text.isascii():
        return total
    for ch in text:
        cp = ord(ch)
        if cp < 128:
            continue
        bucket = _bucket(cp)
        if bucket is not None:
            total += _BUCKET_EXTRA[bucket]
    return total


# -- annotations (memory-host-sdk/src/host/curated-annotations.ts) ----------------------------------
_CARRIER_RE = re.compile(r"<!--\s*(trigger|importance|project)\s*:", re.IGNORECASE)
_PROJECT_RE = re.compile(r"<!--\s*(project)\s*:", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class Annotation:
    start: int
    end: int
    kind: str
    value: str


def scan_annotations(text: str, marker: re.Pattern[str], line_scoped: bool = False) -> list[Annotation]:
    """``scanMemoryAnnotations``: ``<!-- kind: value -->`` carriers in order.

    A carrier ends at the next ``-->``; line-scoped scanning skips a carrier whose
    ``-->`` is not on the same line.
    """
    out: list[Annotation] = []
    pos = 0
    closing = -1
    newline = -1
    while True:
        m = marker.search(text, pos)
        if m is None:
            return out
        value_start = m.end()
        if closing < value_start:
            closing = text.find("-->", value_start)
            if closing < 0:
                return out
        if line_scoped:
            if newline < value_start:
                nl = re.compile(r"[\r\n]").search(text, value_start)
                newline = nl.start() if nl else len(text)
            if newline < closing:
                pos = value_start
                continue
        out.append(Annotation(m.start(), closing + 3, m.group(1).lower(), js_trim(text[value_start:closing])))
        pos = closing + 3


def strip_annotation_carriers(text: str) -> str:
    """``stripMemoryAnnotationCarriers``: drop one-line carriers and the spaces they leave at line ends."""
    found = scan_annotations(text, _CARRIER_RE, True)
    if not found:
        return text
    parts: list[str] = []
    cursor = 0
    for a in found:
        parts.append(text[cursor : a.start])
        cursor = a.end
    parts.append(text[cursor:])
    joined = "".join(parts)

    def fix(m: re.Match[str]) -> str:
        end = m.end()
        return "" if end == len(joined) or joined[end] in "\r\n\u2028\u2029" else m.group(0)

    return re.sub(r"[ \t]+", fix, joined)


def normalize_project_key(value: str) -> str | None:
    trimmed = js_trim(value)
    if not trimmed or re.search(r"[\r\n<>]", trimmed):
        return None
    if trimmed.startswith("path:"):
        return trimmed
    sep = trimmed.find("/")
    if sep < 1:
        return trimmed
    return trimmed[:sep].lower() + trimmed[sep:]


@dataclasses.dataclass(frozen=True)
class RecallMetadata:
    importance: int | None = None
    triggers: str | None = None
    project_key: str | None = None


def extract_recall_metadata(
    source_lines: Sequence[str], *, curated_root: bool, project_scope_eligible: bool
) -> RecallMetadata:
    """``extractCuratedEntryRecallMetadata`` for one entry's original lines."""
    project_key: str | None = None
    if project_scope_eligible:
        text = "\n".join(source_lines)
        marker_count = len(_PROJECT_RE.findall(text))
        keys: dict[str, None] = {}
        parsed = raw_count = valid_count = 0
        for a in scan_annotations(text, _PROJECT_RE):
            parsed += 1
            for raw in a.value.split(";"):
                raw_count += 1
                key = normalize_project_key(raw)
                if key:
                    keys[key] = None
                    valid_count += 1
        if marker_count > 0:
            valid = parsed == marker_count and raw_count > 0 and raw_count == valid_count
            project_key = INVALID_PROJECT_KEY if not valid else ("; ".join(keys) if keys else None)
    phrases: dict[str, None] = {}
    importance: int | None = None
    for line in source_lines if curated_root else []:
        if not line.rstrip().endswith("-->"):
            continue
        for a in scan_annotations(line, _CARRIER_RE):
            if a.kind == "trigger":
                for phrase in re.split(r"[,;]", a.value):
                    if js_trim(phrase):
                        phrases[js_trim(phrase)] = None
            elif a.kind == "importance" and re.fullmatch(r"\d+", a.value):
                n = int(a.value)
                if 1 <= n <= 10:
                    importance = n if importance is None else max(importance, n)
    return RecallMetadata(importance, "; ".join(phrases) if phrases else None, project_key)


def importance_multiplier(importance: int | None) -> float:
    """``0.75 + 0.05 × importance`` (importance clamped to 1..10); 1 when unset."""
    if importance is None:
        return 1.0
    return 0.75 + max(1, min(10, math.floor(importance))) * 0.05


def project_multiplier(project_key: str | None, active: frozenset[str] | None) -> float:
    """1.15 when every key of the entry is an active project, 0.9 otherwise; 1 without either."""
    if not project_key or not active:
        return 1.0
    keys = [k.strip() for k in project_key.split(";") if k.strip()]
    return 1.15 if all(k in active for k in keys) else 0.9


# -- chunking (memory-host-sdk/src/host/markdown-chunks.ts, version 5) -------------------------------
@dataclasses.dataclass
class Chunk:
    start_line: int
    end_line: int
    text: str
    hash: str
    entry_start: int | None = None
    entry_end: int | None = None


def _entry_kind(line: str) -> str | None:
    if line.startswith("- "):
        return "entry"
    return "section" if re.match(r"^#{1,6}(?:\s|$)", line) else None


def _take_tail(text: str, budget: int) -> str:
    """``takeTailByEstimatedChars``: the longest suffix whose weight fits ``budget``."""
    acc = 0
    start = len(text)
    while start > 0:
        prev = start - 1
        acc += estimate_string_chars(text[prev:start])
        if not acc <= budget:
            break
        start = prev
    return text[start:]


def _coarse_slices(line: str, max_chars: int) -> list[str]:
    # truncateUtf16Safe(line.slice(start), maxChars), repeated.
    out = []
    rest = line
    while rest:
        piece = truncate_utf16_safe(rest, max_chars)
        if not piece:  # a lone pair at the cut: JS would loop; take one code point
            piece = rest[0]
        out.append(piece)
        rest = rest[len(piece) :]
    return out


def chunk_markdown(
    content: str, tokens: int = CHUNK_TOKENS, overlap: int = CHUNK_OVERLAP, *, per_entry: bool = False
) -> list[Chunk]:
    """``chunkMarkdown`` v5: line-tracked chunks; with ``per_entry`` a new chunk per entry."""
    lines = content.split("\n")
    max_chars = max(32, tokens * 4)
    overlap_chars = max(0, overlap * 4)
    chunks: list[Chunk] = []
    current: list[tuple[str, int]] = []
    current_chars = 0
    entry_start: int | None = None
    entry_first = 0

    def flush() -> None:
        if not current:
            return
        text = "\n".join(seg for seg, _ in current)
        chunks.append(Chunk(current[0][1], current[-1][1], text, hash_text(text)))

    def carry(window: int) -> None:
        nonlocal current, current_chars
        if window <= 0 or not current:
            current, current_chars = [], 0
            return
        acc = 0
        kept: list[tuple[str, int]] = []
        for seg, line_no in reversed(current):
            size = estimate_string_chars(seg) + 1
            remaining = window - acc
            if size > remaining:
                tail = _take_tail(seg, remaining - 1) if not kept else ""
                if tail:
                    kept.insert(0, (tail, line_no))
                    acc += estimate_string_chars(tail) + 1
                break
            acc += size
            kept.insert(0, (seg, line_no))
            if acc >= window:
                break
        current, current_chars = kept, acc

    def append(segment: str, line_no: int, chars: int) -> None:
        nonlocal current_chars
        size = chars + 1
        if current_chars + size > max_chars and current:
            flush()
            carry(min(overlap_chars, max(0, max_chars - size)))
        current.append((segment, line_no))
        current_chars += size

    def finish_entry(end_line: int) -> None:
        if entry_start is None:
            return
        for chunk in chunks[entry_first:]:
            chunk.entry_start, chunk.entry_end = entry_start, end_line

    for i, line in enumerate(lines):
        line_no = i + 1
        kind = (_entry_kind(line) or ("section" if i == 0 else None)) if per_entry else None
        if kind:
            if current:
                flush()
            finish_entry(line_no - 1)
            current, current_chars = [], 0
            entry_start = line_no if kind == "entry" else None
            entry_first = len(chunks)
        if not line:
            append("", line_no, 0)
            continue
        for coarse in _coarse_slices(line, max_chars):
            coarse_chars = estimate_string_chars(coarse)
            if coarse_chars > max_chars:
                part: list[str] = []
                part_chars = 0
                for ch in coarse:
                    w = estimate_string_chars(ch)
                    if part_chars + w > max_chars:
                        append("".join(part), line_no, part_chars)
                        part, part_chars = [], 0
                    part.append(ch)
                    part_chars += w
                append("".join(part), line_no, part_chars)
            else:
                append(coarse, line_no, coarse_chars)
    flush()
    finish_entry(len(lines))
    return chunks


# -- files (memory-host-sdk/src/host/internal.ts listMemoryFiles) ------------------------------------
def list_memory_files(workspace: Path) -> list[str]:
    """Workspace-relative paths in OpenClaw's order; symlinks are skipped."""
    root = Path(workspace)
    out: list[str] = []
    for name in ("MEMORY.md", "USER.md"):
        p = root / name
        if p.is_file() and not p.is_symlink():
            out.append(name)
    mem = root / "memory"
    if mem.is_dir() and not mem.is_symlink():
        found: list[str] = []
        for dirpath, dirnames, filenames in os.walk(mem, followlinks=False):
            dirnames[:] = [d for d in dirnames if not (Path(dirpath) / d).is_symlink()]
            for f in filenames:
                p = Path(dirpath) / f
                if f.endswith(".md") and p.is_file() and not p.is_symlink():
                    found.append(str(p))
        for abs_path in sorted(found):
            out.append(Path(abs_path).relative_to(root).as_posix())
    return out


# -- index -----------------------------------------------------------------------------------------
SCHEMA = (
    """CREATE TABLE memory_index_sources (id INTEGER PRIMARY KEY, path TEXT NOT NULL,
       source TEXT NOT NULL DEFAULT 'memory', hash TEXT NOT NULL, UNIQUE (path, source))""",
    """CREATE TABLE memory_index_chunks (chunk_rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
       path TEXT NOT NULL, source TEXT NOT NULL DEFAULT 'memory', start_line INTEGER NOT NULL,
       end_line INTEGER NOT NULL, hash TEXT NOT NULL, model TEXT NOT NULL, text TEXT NOT NULL,
       importance INTEGER, triggers TEXT, project_key TEXT)""",
    """CREATE VIRTUAL TABLE memory_index_chunks_fts USING fts5(text, id UNINDEXED, path UNINDEXED,
       source UNINDEXED, model UNINDEXED, start_line UNINDEXED, end_line UNINDEXED{tokenize})""",
    "CREATE VIRTUAL TABLE memory_index_paths_fts USING fts5(path, source UNINDEXED{tokenize})",
)
Tokenizer = Literal["unicode61", "trigram"]
# ``memory.search.store.fts.tokenizer``: both FTS tables get the same clause (memory-schema.ts).
_TOKENIZE_CLAUSE = {"unicode61": "", "trigram": ", tokenize='trigram case_sensitive 0'"}


@dataclasses.dataclass(frozen=True)
class IndexedChunk(StoredChunk):
    meta: RecallMetadata


def prepare_file_chunks(rel: str, content: str) -> list[tuple[Chunk, RecallMetadata]]:
    """``prepareMemoryIndexChunks`` for one memory file (no provider splitting)."""
    per_entry = rel in ("MEMORY.md", "USER.md")
    curated_root = rel in ("MEMORY.md", "memory.md", "USER.md")
    indexing = strip_annotation_carriers(content)
    source_lines = content.replace("\r\n", "\n").split("\n")
    chunks = [c for c in chunk_markdown(indexing, per_entry=per_entry) if js_trim(c.text)]
    cache: dict[tuple[int, int], RecallMetadata] = {}
    out = []
    for c in chunks:
        start = c.entry_start if c.entry_start is not None else c.start_line
        end = c.entry_end if c.entry_end is not None else c.end_line
        meta = cache.get((start, end))
        if meta is None:
            meta = extract_recall_metadata(
                source_lines[start - 1 : end],
                curated_root=curated_root,
                project_scope_eligible=rel.upper() != "USER.MD",
            )
            cache[(start, end)] = meta
        out.append((c, meta))
    return out


EmbedFn = Callable[[Sequence[str]], np.ndarray]


class Index:
    """One workspace indexed the way OpenClaw 2026.9 indexes it (in memory by default)."""

    def __init__(
        self,
        workspace: Path,
        *,
        model: str = FTS_ONLY_MODEL,
        embed_documents: EmbedFn | None = None,
        db_path: str = ":memory:",
        tokenizer: Tokenizer = "unicode61",
        files: Sequence[str] | None = None,
        sessions: Sequence[Any] = (),
    ) -> None:
        """``sessions``: ``sessions_2026_9.SessionEntry`` transcripts indexed after the
        memory files as source ``sessions`` (what ``sources: ["memory", "sessions"]`` adds)."""
        self.workspace = Path(workspace).resolve()
        self.sessions = list(sessions)
        self.session_mtimes: dict[str, float] = {e.path: float(e.mtime_ms) for e in self.sessions}
        self.model = model
        self.tokenizer: Tokenizer = tokenizer
        # Workspace-relative paths to index (``extraPaths`` included, in OpenClaw's order);
        # default: the workspace's own memory files.
        self.files = list(files) if files is not None else list_memory_files(self.workspace)
        self.conn = sqlite.connect(db_path)
        for ddl in SCHEMA:
            self.conn.execute(ddl.replace("{tokenize}", _TOKENIZE_CLAUSE[tokenizer]))
        self.chunks: list[IndexedChunk] = []
        self.vectors: np.ndarray | None = None
        self._build(embed_documents)

    def _build(self, embed_documents: EmbedFn | None) -> None:
        rowid = 0
        with self.conn:
            for source_id, rel in enumerate(self.files, 1):
                content = (self.workspace / rel).read_bytes().decode("utf-8", "replace")
                self.conn.execute(
                    "INSERT INTO memory_index_sources (id, path, source, hash) VALUES (?, ?, 'memory', ?)",
                    (source_id, rel, hash_text(content)),
                )
                self.conn.execute(
                    "INSERT INTO memory_index_paths_fts (rowid, path, source) VALUES (?, ?, 'memory')",
                    (source_id, rel),
                )
                for chunk, meta in prepare_file_chunks(rel, content):
                    rowid += 1
                    cid = hash_text(
                        f"memory:{rel}:{chunk.start_line}:{chunk.end_line}:{chunk.hash}:{self.model}"
                    )
                    self.conn.execute(
                        "INSERT INTO memory_index_chunks VALUES (?, ?, ?, 'memory', ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            rowid,
                            cid,
                            rel,
                            chunk.start_line,
                            chunk.end_line,
                            chunk.hash,
                            self.model,
                            chunk.text,
                            meta.importance,
                            meta.triggers,
                            meta.project_key,
                        ),
                    )
                    self.conn.execute(
                        "INSERT INTO memory_index_chunks_fts (rowid, text, id, path, source, model, start_line, "
                        "end_line) VALUES (?, ?, ?, ?, 'memory', ?, ?, ?)",
                        (rowid, chunk.text, cid, rel, self.model, chunk.start_line, chunk.end_line),
                    )
                    self.chunks.append(
                        IndexedChunk(
                            rowid, cid, rel, "memory", chunk.start_line, chunk.end_line, chunk.text, meta
                        )
                    )
            for source_id, entry in enumerate(self.sessions, len(self.files) + 1):
                rowid = self._add_session(source_id, rowid, entry)
        if embed_documents is not None and self.chunks:
            self.vectors = np.asarray(embed_documents([c.text for c in self.chunks]), dtype=np.float64)
        self.by_id = {c.id: c for c in self.chunks}

    def _add_session(self, source_id: int, rowid: int, entry: Any) -> int:
        """One transcript: its flattened text chunked like a memory file (no entries, no
        annotations), each chunk's lines mapped back to JSONL lines (``remapChunkLines``)."""
        self.conn.execute(
            "INSERT INTO memory_index_sources (id, path, source, hash) VALUES (?, ?, 'sessions', ?)",
            (source_id, entry.path, hash_text(entry.content)),
        )
        self.conn.execute(
            "INSERT INTO memory_index_paths_fts (rowid, path, source) VALUES (?, ?, 'sessions')",
            (source_id, entry.path),
        )
        line_map = entry.line_map
        for chunk in chunk_markdown(entry.content):
            if not js_trim(chunk.text):
                continue
            start = (
                line_map[chunk.start_line - 1] if 0 < chunk.start_line <= len(line_map) else chunk.start_line
            )
            end = line_map[chunk.end_line - 1] if 0 < chunk.end_line <= len(line_map) else chunk.end_line
            rowid += 1
            cid = hash_text(f"sessions:{entry.path}:{start}:{end}:{chunk.hash}:{self.model}")
            self.conn.execute(
                "INSERT INTO memory_index_chunks VALUES (?, ?, ?, 'sessions', ?, ?, ?, ?, ?, NULL, NULL, NULL)",
                (rowid, cid, entry.path, start, end, chunk.hash, self.model, chunk.text),
            )
            self.conn.execute(
                "INSERT INTO memory_index_chunks_fts (rowid, text, id, path, source, model, start_line, "
                "end_line) VALUES (?, ?, ?, ?, 'sessions', ?, ?, ?)",
                (rowid, chunk.text, cid, entry.path, self.model, start, end),
            )
            self.chunks.append(
                IndexedChunk(rowid, cid, entry.path, "sessions", start, end, chunk.text, RecallMetadata())
            )
        return rowid


# -- keyword leg (manager-search.ts + manager-keyword-retrieval.ts) ------------------------------------
def build_fts_query(raw: str) -> str | None:
    tokens = [js_trim(t) for t in word_tokens(raw)]
    tokens = [t for t in tokens if t]
    if not tokens:
        return None
    return " AND ".join('"' + t.replace('"', "") + '"' for t in tokens)


def plan_keyword_search(
    query: str, tokenizer: Tokenizer, *, combining_marks: bool = False
) -> tuple[str | None, list[str]]:
    """``planKeywordSearch``: (MATCH query, substring terms).

    unicode61: the usual AND of quoted tokens. trigram: a trigram index cannot match
    a term shorter than 3 characters, so such terms become substring filters and
    only the longer ones go to MATCH (``None`` when there are none).
    """
    if tokenizer != "trigram":
        return build_fts_query(query), []
    raw = _word_tokens_marks(query) if combining_marks else word_tokens(query)
    tokens = [t for t in (js_trim(t) for t in raw) if t]
    match_terms = [t for t in tokens if len(t) >= 3]  # Array.from: code points
    subs = [t for t in tokens if len(t) < 3]
    match = " AND ".join('"' + t.replace('"', "") + '"' for t in match_terms) if match_terms else None
    return match, subs


def _nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


def _search_tokens_lower(raw: str) -> list[str]:
    return [t.lower() for t in (js_trim(t) for t in word_tokens(_nfc(raw))) if t]


def _casefold_eq(a: str, b: str) -> bool:
    return a.lower() == b.lower() or a.casefold() == b.casefold()


def score_fallback_keyword_result(
    query_tokens: Sequence[str], path: str, text: str, fts_score: float
) -> float:
    """``scoreFallbackKeywordResult`` (2026.9: NFC, case-insensitive literal matchers)."""
    if not query_tokens:
        return fts_score
    text_tokens = _search_tokens_lower(text)
    text_set = set(text_tokens)
    overlap = sum(1 for q in query_tokens if any(_casefold_eq(q, t) for t in text_set))
    unique_overlap = overlap / len(query_tokens)
    density = overlap / max(len(text_set), 1)
    norm_path = _nfc(path).lower()
    path_boost = 0.0
    for q in query_tokens:
        path_boost += 0.18 if q.lower() in norm_path else 0.0
    length_boost = min(utf16_len(text) / 160, 0.18)
    lexical = unique_overlap * 0.45 + density * 0.2 + path_boost + length_boost
    return min(1.0, fts_score + lexical)


def _normalize_path_id(value: str) -> str:
    v = js_trim(value).replace("\\", "/")
    if v.startswith("./"):
        v = v[2:]
    return _nfc(v).lower()


def exact_path_matcher(query: str) -> Callable[[str], int]:
    """``prepareExactPathMatcher``: 3 full path, 2 basename, 1 stem, else 0."""
    q = _normalize_path_id(query)
    if not q or q == ".":
        return lambda _p: 0
    has_dir = "/" in q

    def match(candidate: str) -> int:
        p = _normalize_path_id(candidate)
        if q == p:
            return 3
        if has_dir:
            return 0
        base = p.split("/")[-1]
        if q == base:
            return 2
        dot = base.rfind(".")
        stem = base[:dot] if dot > 0 else base
        return 1 if q == stem else 0

    return match


@dataclasses.dataclass
class KeywordHit:
    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    score: float
    text_score: float
    path_score: float
    exact: int
    has_body: bool
    snippet: str
    importance: int | None = None
    project_key: str | None = None
    triggers: str | None = None


def _js_cmp_str(a: str, b: str) -> int:
    # localeCompare (ICU root collation) on paths and hex ids: letters compare
    # case-insensitively first, then lower case sorts before upper case; for the
    # punctuation memory paths use ('-', '.', '/') and digits, code-point order agrees.
    ka, kb = (a.lower(), a.swapcase()), (b.lower(), b.swapcase())
    return (ka > kb) - (ka < kb)


def _compare_keyword_hits(a: KeywordHit, b: KeywordHit, prefer_exact_body: bool = True) -> float:
    d: float = b.exact - a.exact
    if d:
        return d
    if prefer_exact_body and a.exact > 0:
        d = int(b.has_body) - int(a.has_body)
        if d:
            return d
    d = b.score - a.score
    if d:
        return d
    d = b.text_score - a.text_score
    if d:
        return d
    if a.exact == 0:
        d = b.path_score - a.path_score
        if d:
            return d
    return _js_cmp_str(a.path, b.path) or (a.start_line - b.start_line) or _js_cmp_str(a.id, b.id)


def _sorted(items: list[KeywordHit], cmp: Callable[[KeywordHit, KeywordHit], float]) -> list[KeywordHit]:
    """JS ``toSorted(cmp)``: a stable sort by a comparator."""

    def three_way(x: KeywordHit, y: KeywordHit) -> int:
        return _sign(cmp(x, y))

    return sorted(items, key=functools.cmp_to_key(three_way))


class Searcher:
    """``MemorySearchOrchestration.search`` over an :class:`Index`."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.conn = index.conn

    # body FTS
    def _search_body(self, query: str, limit: int, ranking_query: str | None = None) -> list[KeywordHit]:
        match, terms = plan_keyword_search(query, self.index.tokenizer)
        if match is None and not terms:
            return []
        try:
            rows = self._body_rows(match, terms, limit)
        except errors.QueryRejected:
            return []  # OpenClaw falls back to a substring scan here; not reproduced
        q_tokens = list(
            dict.fromkeys(_search_tokens_lower(ranking_query if ranking_query is not None else query))
        )
        out = []
        for cid, path, source, start, end, text, rank in rows:
            ts = bm25_rank_to_score(float(rank)) if match is not None else 0.0
            score = score_fallback_keyword_result(q_tokens, str(path), str(text), ts)
            out.append(
                KeywordHit(
                    str(cid),
                    str(path),
                    str(source),
                    int(start),
                    int(end),
                    score,
                    ts,
                    0.0,
                    0,
                    True,
                    truncate_utf16_safe(str(text), SNIPPET_MAX_CHARS),
                )
            )
        return out

    def _body_rows(self, match: str | None, terms: Sequence[str], limit: int) -> list[tuple[Any, ...]]:
        """``searchKeyword``'s SELECT: MATCH ordered by bm25 (or, with no term of 3+
        characters in trigram mode, every row in table order, rank 0), each short term
        a case-insensitive substring filter on the NFC text, then ``LIMIT``."""
        cols = "id, path, source, start_line, end_line, text"
        if match is not None:
            cur = sqlite.each(
                self.conn,
                f"SELECT {cols}, memory_index_chunks_fts.rank AS rank FROM memory_index_chunks_fts "
                "WHERE memory_index_chunks_fts MATCH ? AND memory_index_chunks_fts.rank MATCH 'bm25()' "
                "ORDER BY rank ASC",
                (match,),
            )
        else:
            cur = sqlite.each(self.conn, f"SELECT {cols}, 0 AS rank FROM memory_index_chunks_fts")
        out: list[tuple[Any, ...]] = []
        for row in cur:
            if all(_contains_ci(str(row[5]), t) for t in terms):
                out.append(row)
                if len(out) >= limit:
                    break
        return out

    def _first_chunk(self, path: str) -> IndexedChunk | None:
        best = None
        for c in self.index.chunks:
            if c.path == path and (
                best is None or (c.start_line, c.end_line, c.id) < (best.start_line, best.end_line, best.id)
            ):
                best = c
        return best

    # path FTS (unicode61 plans only)
    def _search_path(self, query: str, limit: int, exact_query: str) -> list[KeywordHit]:
        matcher = exact_path_matcher(exact_query)
        live = list(dict.fromkeys(c.path for c in self.index.chunks))
        exact_paths = sorted(((matcher(p), p) for p in live if matcher(p) > 0), key=lambda t: (-t[0], t[1]))
        exact: dict[str, KeywordHit] = {}
        for spec, p in exact_paths[:EXACT_PATH_CANDIDATE_LIMIT]:
            c = self._first_chunk(p)
            if c is not None:
                exact[c.id] = KeywordHit(
                    c.id,
                    p,
                    "memory",
                    c.start_line,
                    c.end_line,
                    0.0,
                    0.0,
                    0.0,
                    spec,
                    False,
                    truncate_utf16_safe(c.text, SNIPPET_MAX_CHARS),
                )
        plans: list[tuple[str | None, list[str]]] = []
        seen: set[tuple[str | None, tuple[str, ...]]] = set()

        def add(match: str | None, terms: list[str]) -> None:
            key = (match, tuple(terms))
            if key not in seen:
                seen.add(key)
                plans.append((match, terms))

        if self.index.tokenizer == "trigram":
            for form in dict.fromkeys(
                [unicodedata.normalize("NFC", query), unicodedata.normalize("NFD", query)]
            ):
                add(*plan_keyword_search(form, "trigram", combining_marks=True))
        else:
            add(build_fts_query(query), [])
            for form in dict.fromkeys(
                [unicodedata.normalize("NFC", query), unicodedata.normalize("NFD", query)]
            ):
                tokens = [t for t in (js_trim(t) for t in _word_tokens_marks(form)) if t]
                subs = [t for t in tokens if not t.isascii()]
                if subs:
                    ascii_terms = [t for t in tokens if t.isascii()]
                    add(
                        " AND ".join('"' + t.replace('"', "") + '"' for t in ascii_terms)
                        if ascii_terms
                        else None,
                        subs,
                    )
        if not any(m or t for m, t in plans):
            return list(exact.values())
        lexical: dict[str, KeywordHit] = {}
        for match, terms in plans:
            if not match and not terms:
                continue
            rows = self._path_rows(match, terms, matcher, limit)
            for path, rank in rows:
                c = self._first_chunk(path)
                if c is None:
                    continue
                ps = bm25_rank_to_score(rank) if match else 1.0
                hit = KeywordHit(
                    c.id,
                    path,
                    "memory",
                    c.start_line,
                    c.end_line,
                    ps,
                    0.0,
                    ps,
                    matcher(path),
                    False,
                    truncate_utf16_safe(c.text, SNIPPET_MAX_CHARS),
                )
                prev = lexical.get(hit.id)
                if prev is None:
                    lexical[hit.id] = hit
                else:
                    prev.path_score = max(prev.path_score, hit.path_score)
                    prev.score = max(prev.score, hit.score)
                    prev.exact = max(prev.exact, hit.exact)
        by_id = dict(exact)
        non_exact = 0
        for hit in _sorted(list(lexical.values()), _compare_path_hits):
            if hit.exact > 0:
                e = by_id.get(hit.id)
                if e is None:
                    continue
                e.path_score = max(e.path_score, hit.path_score)
                e.score = max(e.score, hit.score)
                e.exact = max(e.exact, hit.exact)
                continue
            if non_exact >= limit:
                continue
            by_id[hit.id] = hit
            non_exact += 1
        return _sorted(list(by_id.values()), _compare_path_hits)[: EXACT_PATH_CANDIDATE_LIMIT + limit]

    def _path_rows(
        self, match: str | None, terms: list[str], matcher: Callable[[str], int], limit: int
    ) -> list[tuple[str, float]]:
        live = {c.path for c in self.index.chunks}
        if match:
            try:
                rows = [
                    (str(p), float(r))
                    for p, r in sqlite.rows(
                        self.conn,
                        "SELECT path, bm25(memory_index_paths_fts) FROM memory_index_paths_fts "
                        "WHERE memory_index_paths_fts MATCH ?",
                        (match,),
                    )
                ]
            except errors.QueryRejected:
                return []
        else:
            rows = [(str(p), 0.0) for (p,) in self.conn.execute("SELECT path FROM memory_index_paths_fts")]
        rows = [(p, r) for p, r in rows if p in live and all(_contains_ci(p, t) for t in terms)]
        rows.sort(key=lambda t: (t[1], t[0]))
        exact = [t for t in rows if matcher(t[0]) > 0][:EXACT_PATH_CANDIDATE_LIMIT]
        non_exact = [t for t in rows if matcher(t[0]) == 0][:limit]
        return exact + non_exact

    def _merge_keyword(self, sets: Sequence[list[KeywordHit]], exact_query: str) -> list[KeywordHit]:
        matcher = exact_path_matcher(exact_query)
        seen: dict[str, KeywordHit] = {}
        for results in sets:
            for r in results:
                e = seen.get(r.id)
                if e is None:
                    r.exact = matcher(r.path)
                    seen[r.id] = r
                    continue
                e_body = e.score if e.has_body else 0.0
                r_body = r.score if r.has_body else 0.0
                r_has, e_has = r.has_body, e.has_body
                e.text_score = max(e.text_score, r.text_score)
                e.path_score = max(e.path_score, r.path_score)
                e.has_body = e.has_body or r.has_body
                body = max(e_body, r_body)
                e.score = body if body > 0 else e.path_score
                if (r_has and not e_has) or (r_has == e_has and utf16_len(r.snippet) > utf16_len(e.snippet)):
                    e.snippet = r.snippet
        merged = list(seen.values())
        for r in merged:
            if not r.has_body:
                r.score = 1.0 if r.exact > 0 else r.path_score
        return _sorted(merged, _compare_keyword_hits)

    def _limit_keyword(self, results: list[KeywordHit], limit: int) -> list[KeywordHit]:
        ranked = _sorted(results, _compare_keyword_hits)
        exact_body = [e for e in ranked if e.exact > 0 and e.has_body][:limit]
        exact_path = [e for e in ranked if e.exact > 0 and not e.has_body]
        bounded = _sorted(exact_body + exact_path, _compare_keyword_hits)
        keys: set[str] = set()
        for e in bounded:
            keys.add(f"{e.source}:{e.path}")
            if len(keys) == EXACT_PATH_CANDIDATE_LIMIT:
                break
        exact = [e for e in bounded if f"{e.source}:{e.path}" in keys]
        non_exact = [e for e in ranked if e.exact == 0][:limit]
        return exact + non_exact

    def _search_keyword(
        self, query: str, limit: int, *, exact_query: str | None = None, ranking_query: str | None = None
    ) -> list[KeywordHit]:
        eq = exact_query if exact_query is not None else query
        body = self._search_body(query, limit, ranking_query)
        path = self._search_path(query, limit, eq)
        return self._limit_keyword(self._merge_keyword([body, path], eq), limit)

    def keyword_candidates(self, query: str, limit: int = CANDIDATE_UNIVERSE) -> list[KeywordHit]:
        """``searchKeywordWithFallback`` plus the recall metadata join."""
        full = self._search_keyword(query, limit)
        result = full
        if len([r for r in full if r.exact == 0]) < limit:
            lowered = js_trim(query).lower()
            terms = [t for t in oc_keywords.extract_keywords(query, self.index.tokenizer) if t != lowered][
                :KEYWORD_FALLBACK_TERM_LIMIT
            ]
            strict = (build_fts_query(query) or "").lower() or None
            kw = (build_fts_query(" ".join(terms)) or "").lower() or None
            if terms and not (full and strict == kw):
                sets = [self._search_keyword(t, limit, exact_query=query, ranking_query=query) for t in terms]
                result = self._limit_keyword(self._merge_keyword([full, *sets], query), limit)
        for r in result:
            meta = self.index.by_id[r.id].meta
            r.importance, r.project_key, r.triggers = meta.importance, meta.project_key, meta.triggers
        return result

    # vector leg
    def vector_candidates(
        self, query_vec: np.ndarray, limit: int = CANDIDATE_UNIVERSE
    ) -> list[tuple[IndexedChunk, float]]:
        if self.index.vectors is None or not np.any(query_vec):
            return []
        q = np.asarray(query_vec, dtype=np.float64)
        mat = self.index.vectors
        sims = (mat @ q) / np.maximum(np.linalg.norm(mat, axis=1) * np.linalg.norm(q), 1e-300)
        order = np.argsort(-sims, kind="stable")[:limit]
        return [(self.index.chunks[i], float(sims[i])) for i in order]

    # the whole search
    def ranked(
        self,
        query: str,
        *,
        now_ms: float,
        query_vec: np.ndarray | None = None,
        active_projects: Sequence[str] | None = None,
        vector_only: bool = False,
    ) -> tuple[str, list[Result]]:
        """Every candidate in OpenClaw's final order, before the minScore/maxResults selection.

        Returns ``(kind, results)`` with kind ``fts`` (no provider), ``hybrid`` or
        ``vector`` (no keyword leg).
        """
        q = js_trim(query)
        if not q:
            return "fts", []
        active = frozenset(active_projects) if active_projects else None
        if vector_only and query_vec is not None:
            return "vector", rank_vector_only(
                self.vector_candidates(query_vec),
                now_ms=now_ms,
                active=active,
                workspace=self.index.workspace,
                session_mtimes=self.index.session_mtimes,
            )
        keyword = self.keyword_candidates(q)
        if query_vec is None or self.index.vectors is None:
            return "fts", rank_keyword_only(
                keyword,
                now_ms=now_ms,
                active=active,
                workspace=self.index.workspace,
                session_mtimes=self.index.session_mtimes,
            )
        vector = self.vector_candidates(query_vec)
        return "hybrid", merge_hybrid(
            q,
            vector,
            keyword,
            now_ms=now_ms,
            active=active,
            workspace=self.index.workspace,
            session_mtimes=self.index.session_mtimes,
        )

    def search(
        self,
        query: str,
        *,
        now_ms: float,
        query_vec: np.ndarray | None = None,
        max_results: int = MAX_RESULTS,
        min_score: float = MIN_SCORE,
        active_projects: Sequence[str] | None = None,
    ) -> list[Result]:
        """``MemoryIndexManager.search``: the results OpenClaw returns."""
        kind, ranked = self.ranked(query, now_ms=now_ms, query_vec=query_vec, active_projects=active_projects)
        return select(kind, ranked, max_results=max_results, min_score=min_score)


def select(kind: str, ranked: list[Result], *, max_results: int, min_score: float) -> list[Result]:
    """The selection after ranking; the pool is ``max(200, maxResults)``, the list ``maxResults``."""
    pool = max(CANDIDATE_UNIVERSE, max_results)
    if kind == "fts":
        return select_keyword_only(ranked, max_results=pool, min_score=min_score)[:max_results]
    if kind == "vector":
        return [r for r in ranked if r.score >= min_score][:max_results]
    return select_hybrid(ranked, max_results=pool, min_score=min_score)[:max_results]


def _word_tokens_marks(text: str) -> list[str]:
    """``/[\\p{L}\\p{M}\\p{N}_]+/gu``."""
    out: list[str] = []
    buf: list[str] = []
    for ch in text:
        if ch == "_" or unicodedata.category(ch)[0] in "LMN":
            buf.append(ch)
        elif buf:
            out.append("".join(buf))
            buf = []
    if buf:
        out.append("".join(buf))
    return out


def _contains_ci(value: str, term: str) -> bool:
    return _nfc(term).lower() in _nfc(value).lower()


def _compare_path_hits(a: KeywordHit, b: KeywordHit) -> float:
    d: float = b.exact - a.exact
    if d:
        return d
    if a.exact == 0:
        d = b.path_score - a.path_score
        if d:
            return d
    return _js_cmp_str(a.path, b.path) or (a.start_line - b.start_line) or _js_cmp_str(a.id, b.id)


# -- ranking (hybrid.ts, temporal-decay.ts, importance.ts, project-ranking.ts, mmr.ts) ----------------
_DATED_RE = re.compile(r"(?:^|/)memory/(?:[^/]+/)*(\d{4})-(\d{2})-(\d{2})(?:-[^/]+)?\.md$")


def dated_path_ms(path: str) -> float | None:
    """UTC midnight of a dated memory path at any depth (``-slug`` names too)."""
    p = path.replace("\\", "/")
    if p.startswith("./"):
        p = p[2:]
    m = _DATED_RE.search(p)
    if not m:
        return None
    import datetime as dt

    y, mo, d = (int(g) for g in m.groups())
    if y < 100:
        return None
    try:
        date = dt.date(y, mo, d)
    except ValueError:
        return None
    return float((date - dt.date(1970, 1, 1)).days * DAY_MS)


def is_evergreen(path: str) -> bool:
    p = path.replace("\\", "/")
    if p.startswith("./"):
        p = p[2:]
    if p in ("MEMORY.md", "USER.md"):
        return True
    return p.startswith("memory/") and _DATED_RE.search(p) is None


def decay_multiplier(
    path: str,
    now_ms: float,
    workspace: Path | None = None,
    half_life_days: float = HALF_LIFE_DAYS,
    *,
    source: str = "memory",
    session_mtimes: Mapping[str, float] | None = None,
) -> float:
    """``extractTimestamp`` + the decay: a session transcript by its indexed mtime, a
    dated memory path by its date, an evergreen one not at all, the rest by file mtime."""
    if source == "sessions":
        ms = (session_mtimes or {}).get(path)
        if ms is None or not math.isfinite(ms):
            return 1.0
        return math.exp(-(math.log(2) / half_life_days) * max(0.0, (now_ms - ms) / DAY_MS))
    ts = dated_path_ms(path)
    if ts is None:
        if is_evergreen(path) or workspace is None:
            return 1.0
        try:
            ts = os.stat(workspace / path).st_mtime_ns / 1e6
        except OSError:
            return 1.0
    age = max(0.0, (now_ms - ts) / DAY_MS)
    return math.exp(-(math.log(2) / half_life_days) * age)


@dataclasses.dataclass
class Result:
    """One search result, shaped like OpenClaw's ``MemorySearchResult``."""

    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str
    source: str = "memory"
    vector_score: float = 0.0
    text_score: float = 0.0
    importance: int | None = None
    project_key: str | None = None
    # Explanation fields (not in OpenClaw's output).
    decay: float = 1.0
    importance_mult: float = 1.0
    project_mult: float = 1.0
    exact: int = 0
    content_score: float = 0.0
    lexical_rank: float = 0.0
    ranking_score: float = 0.0
    pre_mmr_rank: int = 0
    keyword_hit: bool = False  # found by the keyword leg (may back-fill under minScore)
    id: str = ""


def exact_path_tie_score(content: float) -> float:
    return (1 + max(0.0, min(1.0, content))) / 2


def rank_keyword_only(
    hits: list[KeywordHit],
    *,
    now_ms: float,
    active: frozenset[str] | None = None,
    workspace: Path | None = None,
    session_mtimes: Mapping[str, float] | None = None,
) -> list[Result]:
    """``finalizeKeywordOnlyResults`` up to its selection (decay is always on in 2026.9)."""
    work: list[tuple[KeywordHit, float, float, float]] = []
    for h in hits:
        base = h.score
        if h.exact > 0:
            base = exact_path_tie_score(h.score if h.has_body else 0.0)
        dm = decay_multiplier(h.path, now_ms, workspace, source=h.source, session_mtimes=session_mtimes)
        im = importance_multiplier(h.importance)
        work.append((h, base * dm * im, dm, im))
    eligible = [
        w for w in work if INVALID_PROJECT_KEY not in [k.strip() for k in (w[0].project_key or "").split(";")]
    ]
    ranked_hits: list[tuple[KeywordHit, float, float, float]] = []
    for h, score, dm, im in eligible:
        pm = project_multiplier(h.project_key, active)
        h2 = dataclasses.replace(h, score=score * pm if active else score)
        ranked_hits.append((h2, dm, im, pm))

    def by_hit(x: tuple[KeywordHit, float, float, float], y: tuple[KeywordHit, float, float, float]) -> int:
        # Decay is on, so an exact path match does not prefer a body match here.
        return _sign(_compare_keyword_hits(x[0], y[0], False))

    ranked_hits.sort(key=functools.cmp_to_key(by_hit))
    results = []
    for h, dm, im, pm in ranked_hits:
        score = project_multiplier(h.project_key, active) if h.exact > 0 else h.score
        results.append(
            Result(
                h.path,
                h.start_line,
                h.end_line,
                score,
                h.snippet,
                h.source,
                0.0,
                h.text_score,
                h.importance,
                h.project_key,
                dm,
                im,
                pm,
                h.exact,
                id=h.id,
            )
        )
    for r in results:
        r.keyword_hit = True
    return results


def select_keyword_only(ranked: list[Result], *, max_results: int, min_score: float) -> list[Result]:
    """``selectScoredResults(ranked, max, minScore, 0)``: strict hits, else every hit >= 0."""
    strict = [r for r in ranked if r.score >= min_score]
    if strict:
        return strict[:max_results]
    return [r for r in ranked if r.score >= 0][:max_results]


def rank_vector_only(
    vector: list[tuple[IndexedChunk, float]],
    *,
    now_ms: float,
    active: frozenset[str] | None = None,
    workspace: Path | None = None,
    session_mtimes: Mapping[str, float] | None = None,
) -> list[Result]:
    """No FTS (or hybrid off): cosine x decay x importance (x project), sorted; no MMR."""
    out = []
    for c, sim in vector:
        if INVALID_PROJECT_KEY in [k.strip() for k in (c.meta.project_key or "").split(";")]:
            continue
        dm = decay_multiplier(c.path, now_ms, workspace, source=c.source, session_mtimes=session_mtimes)
        im = importance_multiplier(c.meta.importance)
        pm = project_multiplier(c.meta.project_key, active) if active else 1.0
        out.append(
            Result(
                c.path,
                c.start_line,
                c.end_line,
                sim * dm * im * pm,
                truncate_utf16_safe(c.text, SNIPPET_MAX_CHARS),
                c.source,
                sim,
                0.0,
                c.meta.importance,
                c.meta.project_key,
                dm,
                im,
                pm,
                0,
                sim,
                0.0,
                id=c.id,
            )
        )
    out.sort(
        key=functools.cmp_to_key(
            lambda a, b: (
                _sign(b.score - a.score)
                or _js_cmp_str(a.path, b.path)
                or _sign(a.start_line - b.start_line)
                or _sign(a.end_line - b.end_line)
            )
        )
    )
    return out


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


@dataclasses.dataclass
class _Entry:
    """One chunk in the hybrid merge (``mergeHybridResults``' map value)."""

    id: str
    path: str
    start: int
    end: int
    source: str
    snippet: str
    vs: float = 0.0  # vector score
    ts: float = 0.0  # keyword text score (the bm25 part)
    rs: float = 0.0  # keyword ranking score (boosted)
    ps: float = 0.0  # path score
    exact: int = 0
    body: bool = False
    has_vec: bool = False
    has_kw: bool = False
    importance: int | None = None
    project: str | None = None


def merge_hybrid(
    query: str,
    vector: list[tuple[IndexedChunk, float]],
    keyword: list[KeywordHit],
    *,
    now_ms: float,
    active: frozenset[str] | None = None,
    workspace: Path | None = None,
    mmr: bool = True,
    session_mtimes: Mapping[str, float] | None = None,
) -> list[Result]:
    """``mergeHybridResults`` with decay, importance, projects, exact-path tiers and MMR."""
    matcher = exact_path_matcher(query)
    entries: dict[str, _Entry] = {}
    for c, sim in vector:
        entries[c.id] = _Entry(
            c.id,
            c.path,
            c.start_line,
            c.end_line,
            c.source,
            truncate_utf16_safe(c.text, SNIPPET_MAX_CHARS),
            vs=sim,
            exact=matcher(c.path),
            has_vec=True,
            importance=c.meta.importance,
            project=c.meta.project_key,
        )
    for k in keyword:
        e = entries.get(k.id)
        if e is not None:
            e.ts, e.body, e.rs, e.ps = k.text_score, k.has_body, k.score, k.path_score
            e.exact = max(e.exact, k.exact)
            e.has_kw = True
            if e.importance is None:
                e.importance = k.importance
            if e.project is None:
                e.project = k.project_key
            if k.snippet:
                e.snippet = k.snippet
        else:
            entries[k.id] = _Entry(
                k.id,
                k.path,
                k.start_line,
                k.end_line,
                k.source,
                k.snippet,
                ts=k.text_score,
                rs=k.score,
                ps=k.path_score,
                exact=k.exact,
                body=k.has_body,
                has_kw=True,
                importance=k.importance,
                project=k.project_key,
            )
    results: list[Result] = []
    for e in entries.values():
        kw_score = e.rs if e.ts > 0 else (0.0 if e.exact > 0 else e.ps)
        content = VECTOR_WEIGHT * e.vs + TEXT_WEIGHT * kw_score
        lexical = e.rs if (e.body and e.ts == 0) else 0.0
        # An exact path hit ranks by the tie score (decay is always on in 2026.9).
        ranking = exact_path_tie_score(content) if e.exact > 0 else (lexical if content == 0 else content)
        dm = decay_multiplier(e.path, now_ms, workspace, source=e.source, session_mtimes=session_mtimes)
        im = importance_multiplier(e.importance)
        results.append(
            Result(
                e.path,
                e.start,
                e.end,
                ranking * dm * im,
                e.snippet,
                e.source,
                e.vs,
                e.ts,
                e.importance,
                e.project,
                dm,
                im,
                1.0,
                e.exact,
                content,
                lexical,
                keyword_hit=e.has_kw,
                id=e.id,
            )
        )
    results = [
        r for r in results if INVALID_PROJECT_KEY not in [k.strip() for k in (r.project_key or "").split(";")]
    ]
    for r in results:
        pm = project_multiplier(r.project_key, active)
        if active:
            r.score *= pm
            r.project_mult = pm
        r.ranking_score = r.score
        r.score = (
            project_multiplier(r.project_key, active)
            if r.exact > 0
            else (0.0 if r.content_score == 0 else r.score)
        )

    def cmp_ranking(a: Result, b: Result) -> int:
        return (
            _sign(b.ranking_score - a.ranking_score)
            or _sign(b.lexical_rank - a.lexical_rank)
            or _js_cmp_str(a.path, b.path)
            or _sign(a.start_line - b.start_line)
            or _sign(a.end_line - b.end_line)
        )

    def by_score(a: Result, b: Result) -> int:
        return _sign(b.score - a.score) or cmp_ranking(a, b)

    non_exact = sorted([r for r in results if r.exact == 0], key=functools.cmp_to_key(by_score))
    for pos, r in enumerate(non_exact, 1):
        r.pre_mmr_rank = pos
    tiers: list[Result] = []
    for spec in (3, 2, 1):
        tier = sorted([r for r in results if r.exact == spec], key=functools.cmp_to_key(cmp_ranking))
        if mmr and tier:
            for r in tier:
                r.score = r.ranking_score
            tier = mmr_rerank(tier)
            for r in tier:
                r.score = project_multiplier(r.project_key, active)
        tiers.extend(tier)
    return tiers + (mmr_rerank(non_exact) if mmr else non_exact)


def select_hybrid(merged: list[Result], *, max_results: int, min_score: float) -> list[Result]:
    """``selectHybridSearchResults``: strict hits, back-filled with keyword-only ones."""
    strict = [r for r in merged if r.score >= min_score]
    selected = strict[:max_results]
    keys = {f"{r.source}:{r.path}:{r.start_line}:{r.end_line}" for r in merged if r.keyword_hit}
    if not keys or len(selected) == max_results:
        return selected

    def key(r: Result) -> str:
        return f"{r.source}:{r.path}:{r.start_line}:{r.end_line}"

    if not strict:
        return [r for r in merged if r.score >= 0 and key(r) in keys][:max_results]
    seen = {key(r) for r in selected}
    for r in merged:
        if len(selected) == max_results:
            break
        k = key(r)
        if r.score < min_score and r.vector_score == 0 and k in keys and k not in seen:
            seen.add(k)
            selected.append(r)
    return selected


_CJK_RE = re.compile("[\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u1100-\u11ff]")
_ASCII_RE = re.compile(r"[a-z0-9_]+")


def mmr_tokens(text: str) -> frozenset[str]:
    """2026.9 ``tokenize``: ASCII words plus CJK unigrams and adjacent bigrams."""
    lower = js_trim(text).lower()
    tokens = set(_ASCII_RE.findall(lower))
    prev: str | None = None
    for ch in lower:
        if _CJK_RE.match(ch):
            if prev is not None:
                tokens.add(prev + ch)
            tokens.add(ch)
            prev = ch
        else:
            prev = None
    return frozenset(tokens)


def mmr_rerank(items: list[Result], lambda_: float = MMR_LAMBDA) -> list[Result]:
    """``mmrRerank`` on snippets; empty token sets compare by their text."""
    if len(items) <= 1:
        return list(items)
    lam = max(0.0, min(1.0, lambda_))
    if lam == 1:
        return sorted(items, key=lambda r: -r.score)
    toks = [mmr_tokens(r.snippet) for r in items]
    empty_text = [js_trim(r.snippet).lower() if not t else None for r, t in zip(items, toks, strict=True)]
    scores = [r.score for r in items]
    hi, lo = max(scores), min(scores)
    rng = hi - lo
    rel = [1.0 if rng == 0 else (s - lo) / rng for s in scores]
    max_sim = [0.0] * len(items)
    remaining = list(range(len(items)))
    out: list[Result] = []
    while remaining:
        best = None
        best_mmr = -math.inf
        for i in remaining:
            m = lam * rel[i] - (1 - lam) * max_sim[i]
            if m > best_mmr or (
                m == best_mmr and scores[i] > (scores[best] if best is not None else -math.inf)
            ):
                best_mmr, best = m, i
        if best is None:
            break
        out.append(items[best])
        remaining.remove(best)
        for i in remaining:
            if not toks[i] and not toks[best]:
                sim = float(empty_text[i] == empty_text[best])
            elif not toks[i] or not toks[best]:
                sim = 0.0
            else:
                inter = len(toks[i] & toks[best])
                sim = inter / (len(toks[i]) + len(toks[best]) - inter)
            if sim > max_sim[i]:
                max_sim[i] = sim
    return out
