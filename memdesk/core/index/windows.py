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

Windows are a pure function of the chunk text, so nothing about them is stored but
their vectors, in the embedding cache under the hash of the window text (a window
shared by two overlapping chunks is embedded once).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping

import numpy as np

from memdesk.core.embed.embedder import EmbedderIdentity
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
# Recorded in the index meta. A change of how windows are cut needs no rebuild: the
# next sync embeds the windows not in the embedding cache yet (``sync.py``).
VERSION = f"lines-{WINDOW_CHARS}-{MIN_LINES}+pairs"


def _content_lines(text: str) -> list[str]:
    """The chunk's non-blank, non-heading lines, or none when the chunk is prose."""
    if text.count("\n") < MIN_LINES - 1:
        return []  # fewer lines than a list has, before any splitting (most prose chunks)
    lines = [ln for ln in text.split("\n") if ln.strip() and not ln.lstrip().startswith("#")]
    return lines if len(lines) >= MIN_LINES else []


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


def window_hashes(text: str, *, pairs: bool = True) -> tuple[str, ...]:
    """The embedding-cache keys of ``text``'s windows (OpenClaw's text hash, as chunks);
    ``pairs=False``: of its packed windows only."""
    return tuple(hash_text(w) for w in (text_windows(text) if pairs else packed_windows(text)))


def best_window_cosines(
    store: Store,
    identity: EmbedderIdentity,
    qvec: np.ndarray,
    texts: Mapping[int, str],
    *,
    pairs: bool = True,
) -> dict[int, float]:
    """rid -> the best cosine of the chunk's windows to ``qvec`` (chunks with windows
    whose vectors are all in the cache; one look-up of every window hash).
    ``pairs=False`` leaves the line-pair windows out (an evaluation switch)."""
    wanted = {rid: window_hashes(text, pairs=pairs) for rid, text in texts.items()}
    wanted = {rid: hs for rid, hs in wanted.items() if hs}
    if not wanted:
        return {}
    found = store.cached_embeddings(
        identity.provider, identity.model, identity.provider_key, [h for hs in wanted.values() for h in hs]
    )
    out: dict[int, float] = {}
    for rid, hs in wanted.items():
        vecs = [found[h] for h in hs if h in found]
        if len(vecs) == len(hs):  # a chunk half-embedded keeps its chunk cosine alone
            out[rid] = float(np.max(np.stack(vecs) @ qvec))
    return out


def scored_cosine(chunk: float, best_window: float | None) -> float:
    """A chunk's cosine for ranking: its own, or ``WINDOW_SHARE`` of the way to its best
    window's when that is higher."""
    if best_window is None or best_window <= chunk:
        return chunk
    return chunk + WINDOW_SHARE * (best_window - chunk)
