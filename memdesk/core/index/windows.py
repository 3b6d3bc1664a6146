"""Passage windows: the short runs of lines inside a chunk that get a vector of their own.

A chunk of a line-per-item note (a dialog turn, a bullet, a log entry per line)
holds ten or more separate statements, and one embedding of all of them matches a
question about any single one only weakly. The memdesk profile therefore also
embeds two kinds of passage windows of each such chunk: its lines packed into
windows of at most ``WINDOW_CHARS`` characters, and every line together with the
line before it (in a dialog, a turn and the turn it answers: a question's subject
is often named only in the line it replies to). A chunk whose best window beats
the whole chunk scores most of the way to that window ("max-passage" scoring,
``scored_cosine``; measured in docs/quality.md). Prose, where a chunk is one or
two long paragraphs (SciFact abstracts, XQuAD passages), gets no windows: its
chunk vector already is a passage vector.

Each window is embedded as a text of its own (``embed_windows``: the indexer embeds
every chunk first, so the workspace is searchable by meaning early, then the windows,
which only sharpen the scores of line-per-item chunks). Pooling
the windows from the chunk's own forward pass instead ("late chunking",
``LATE_CHUNKING``, ``GgufEmbedder.embed_documents_windowed``) costs no extra pass but
was measured 0.018 nDCG@10 worse on LoCoMo dev: a short line's token vectors, read in
the context of a whole chunk, carry that chunk's subject (docs/quality.md, "Late
chunking"). Windows are a pure function of the chunk text; their vectors are stored
per chunk text as int8 (``Store.window_vectors``, keyed by the chunk's hash, in
``line_windows``' order): one row per chunk instead of one per window.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from memdesk.core.embed.embedder import Embedder, EmbedderIdentity, WindowEmbedder
from memdesk.core.index.store import Store
from memdesk.core.openclaw.text import hash_text

# About 100 tokens: one to three dialog turns or bullets, short enough that the
# window's vector is about one thing, long enough to carry who said it and to what.
# Single lines were measured worse than packed windows (a one-line reply such as
# "Wow, cool!" is close to too many questions).
WINDOW_CHARS = 400
# Fewer content lines than this is prose (a title and a paragraph), not a list.
MIN_LINES = 3
# How far a chunk's cosine moves from its own towards its best window's when that
# window beats it. A two-line window is a short text that can match a question while
# the rest of its chunk is about something else; keeping a tenth of the whole chunk's
# cosine lets the chunk's context break near-ties between such windows. Measured on
# LoCoMo dev with line-pair windows: 0.9 better than 1.0 (plain max) by 0.0018 nDCG@10,
# and the example golden set gains too; with packed windows alone it made no
# difference (docs/quality.md, session 6 note).
WINDOW_SHARE = 0.9
# Whether windows are pooled from their chunk's forward pass (one pass per chunk)
# rather than embedded as texts (one per window). Measured on LoCoMo dev with e5-small:
# hybrid nDCG@10 0.8021 late against 0.8203 embedded (vector leg 0.6467 against 0.7654;
# chunk vectors alone 0.6297): off until a model pools short passages well in context.
LATE_CHUNKING = False
# Recorded in the index meta. A change of how windows are cut needs no rebuild: the
# next sync embeds the windows of the chunks that have none stored (``sync.py``).
VERSION = f"lines-{WINDOW_CHARS}-{MIN_LINES}+pairs/{'late' if LATE_CHUNKING else 'texts'}-per-chunk"


def _content_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of the chunk's non-blank, non-heading lines, or none when the chunk
    is prose."""
    if text.count("\n") < MIN_LINES - 1:
        return []  # fewer lines than a list has, before any splitting (most prose chunks)
    spans: list[tuple[int, int]] = []
    start = 0
    for line in text.split("\n"):
        if line.strip() and not line.lstrip().startswith("#"):
            spans.append((start, start + len(line)))
        start += len(line) + 1
    return spans if len(spans) >= MIN_LINES else []


def _content_lines(text: str) -> list[str]:
    """The chunk's non-blank, non-heading lines, or none when the chunk is prose."""
    return [text[a:b] for a, b in _content_spans(text)]


@functools.lru_cache(maxsize=16384)
def text_windows(text: str) -> tuple[str, ...]:
    """Every passage window of the chunk: ``packed_windows`` then ``pair_windows``."""
    packed = packed_windows(text)
    return packed + pair_windows(text) if packed else ()


def pair_windows(text: str) -> tuple[str, ...]:
    """Each content line with the line before it (empty when the chunk gets no
    ``packed_windows``: prose, or a chunk whose lines make a single window).

    Two overlapping chunks share the pairs of their common lines, so those are
    embedded once (the cache is keyed by text).
    """
    if not packed_windows(text):
        return ()
    lines = _content_lines(text)
    return tuple(f"{before}\n{line}" for before, line in itertools.pairwise(lines))


@functools.lru_cache(maxsize=16384)
def line_windows(text: str) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Every passage window of the chunk as the (start, end) ranges of its lines in
    ``text``: the packed windows, then the line pairs (``text_windows``' order, whose
    texts are these ranges joined by newlines)."""
    spans = _content_spans(text)
    if not spans:
        return ()
    packed: list[tuple[tuple[int, int], ...]] = []
    current: list[tuple[int, int]] = []
    size = 0
    for a, b in spans:
        if current and size + (b - a) > WINDOW_CHARS:
            packed.append(tuple(current))
            current, size = [], 0
        current.append((a, b))
        size += b - a + 1
    if current:
        packed.append(tuple(current))
    if len(packed) < 2:
        return ()
    return (*packed, *(tuple(pair) for pair in itertools.pairwise(spans)))


def has_windows(text: str) -> bool:
    """Whether the chunk gets passage windows, without keeping ``text`` in ``line_windows``'
    cache: that cache is the search's (its hits' windows); an index asks of every chunk
    (16,384 texts, ~17 MB at 20,000 notes, kept for the process's life)."""
    return bool(getattr(line_windows, "__wrapped__", line_windows)(text))


def packed_count(text: str) -> int:
    """How many of ``line_windows(text)`` are packed windows (the rest are line pairs)."""
    return len(packed_windows(text))


@functools.lru_cache(maxsize=16384)
def packed_windows(text: str) -> tuple[str, ...]:
    """The chunk's non-heading lines packed greedily into windows of ≤ ``WINDOW_CHARS``.

    Empty when the chunk is prose (under ``MIN_LINES`` content lines) or would make
    a single window (the chunk vector covers it). A line longer than the limit is a
    window by itself; lines are never split.
    """
    lines = _content_lines(text)
    if not lines:
        return ()
    out: list[str] = []
    current: list[str] = []
    size = 0
    for line in lines:
        if current and size + len(line) > WINDOW_CHARS:
            out.append("\n".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    if current:
        out.append("\n".join(current))
    return tuple(out) if len(out) >= 2 else ()


def pools_late(embedder: Embedder, late: bool | None = None) -> bool:
    """Whether ``embed_with_windows`` pools the windows from their chunk's own forward
    pass (``late``, default ``LATE_CHUNKING``, and an embedder that can)."""
    return (LATE_CHUNKING if late is None else late) and isinstance(embedder, WindowEmbedder)


def embed_with_windows(
    embedder: Embedder, texts: Sequence[str], *, late: bool | None = None
) -> tuple[np.ndarray, list[np.ndarray]]:
    """(chunk vectors, per chunk its ``line_windows``' vectors). ``late`` (default
    ``LATE_CHUNKING``) with an embedder that can (``WindowEmbedder``): one forward pass
    per chunk, the windows pooled from it; else the windows embedded as texts of their
    own in the same call, a window shared by two of the chunks once."""
    spans = [line_windows(t) for t in texts]
    if pools_late(embedder, late) and isinstance(embedder, WindowEmbedder):
        return embedder.embed_documents_windowed(texts, spans)
    joined = [["\n".join(t[a:b] for a, b in w) for w in ws] for t, ws in zip(texts, spans, strict=True)]
    unique = list(dict.fromkeys(w for ws in joined for w in ws))
    flat = np.asarray(embedder.embed_documents([*texts, *unique]), dtype=np.float32)
    row = {w: len(texts) + i for i, w in enumerate(unique)}
    return flat[: len(texts)], [flat[[row[w] for w in ws]] if ws else flat[:0] for ws in joined]


def embed_windows(
    embedder: Embedder,
    texts: Sequence[str],
    *,
    late: bool | None = None,
    batch: int | None = None,
    lock: contextlib.AbstractContextManager[object] | None = None,
) -> list[np.ndarray]:
    """Per chunk its ``line_windows``' vectors, as ``embed_with_windows``' second output,
    without embedding the chunk texts themselves (their vectors are stored already: the
    indexer's second phase). A window shared by two of the chunks is embedded once. The
    distinct windows go through the model ``batch`` at a time (default: all at once),
    each call inside ``lock`` when given, so a search's query embedding waits for one
    batch, not for every window of ``texts``. Late chunking needs the chunk's own pass:
    then the chunk vectors are made and dropped."""
    spans = [line_windows(t) for t in texts]
    if pools_late(embedder, late) and isinstance(embedder, WindowEmbedder):
        with lock if lock is not None else contextlib.nullcontext():
            return embedder.embed_documents_windowed(texts, spans)[1]
    joined = [["\n".join(t[a:b] for a, b in w) for w in ws] for t, ws in zip(texts, spans, strict=True)]
    unique = list(dict.fromkeys(w for ws in joined for w in ws))
    step = batch or max(1, len(unique))
    parts: list[np.ndarray] = []
    for start in range(0, len(unique), step):
        with lock if lock is not None else contextlib.nullcontext():
            parts.append(np.asarray(embedder.embed_documents(unique[start : start + step]), dtype=np.float32))
    flat = np.concatenate(parts) if parts else np.zeros((0, embedder.identity.dims), dtype=np.float32)
    row = {w: i for i, w in enumerate(unique)}
    return [flat[[row[w] for w in ws]] if ws else flat[:0] for ws in joined]


def best_window_cosines(
    store: Store,
    identity: EmbedderIdentity,
    qvec: np.ndarray,
    texts: Mapping[int, str],
    *,
    pairs: bool = True,
) -> dict[int, float]:
    """rid -> the best cosine of the chunk's windows to ``qvec`` (chunks with windows
    whose vectors are stored; one look-up by chunk hash). ``pairs=False`` leaves the
    line-pair windows out (an evaluation switch)."""
    wanted = {rid: hash_text(text) for rid, text in texts.items() if line_windows(text)}
    if not wanted:
        return {}
    found = store.window_vectors(identity.provider_key, list(wanted.values()))
    out: dict[int, float] = {}
    for rid, h in wanted.items():
        matrix = found.get(h)
        text = texts[rid]
        if matrix is None or matrix.shape != (len(line_windows(text)), qvec.shape[0]):
            continue  # not pooled yet (or cut otherwise): the chunk cosine alone
        if not pairs:
            matrix = matrix[: packed_count(text)]
        out[rid] = float(np.max(matrix @ qvec))
    return out


def scored_cosine(chunk: float, best_window: float | None) -> float:
    """A chunk's cosine for ranking: its own, or ``WINDOW_SHARE`` of the way to its best
    window's when that is higher."""
    if best_window is None or best_window <= chunk:
        return chunk
    return chunk + WINDOW_SHARE * (best_window - chunk)
