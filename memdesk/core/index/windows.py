"""Passage windows: the short runs of lines inside a chunk that get a vector of their own.

A chunk of a line-per-item note (a dialog turn, a bullet, a log entry per line)
holds ten or more separate statements, and one embedding of all of them matches a
question about any single one only weakly. The memdesk profile therefore also
embeds each chunk's lines packed into windows of at most ``WINDOW_CHARS``
characters and scores a chunk by its best window when that beats the whole chunk
("max-passage" scoring; measured in docs/quality.md). Prose, where a chunk is one
or two long paragraphs (SciFact abstracts, XQuAD passages), gets no windows: its
chunk vector already is a passage vector.

Windows are a pure function of the chunk text, so nothing about them is stored but
their vectors, in the embedding cache under the hash of the window text (a window
shared by two overlapping chunks is embedded once).
"""

from __future__ import annotations

import functools
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
# Recorded in the index meta: changing how windows are cut rebuilds indexes once.
VERSION = f"lines-{WINDOW_CHARS}-{MIN_LINES}"


@functools.lru_cache(maxsize=16384)
def text_windows(text: str) -> tuple[str, ...]:
    """The chunk's non-heading lines packed greedily into windows of ≤ ``WINDOW_CHARS``.

    Empty when the chunk is prose (under ``MIN_LINES`` content lines) or would make
    a single window (the chunk vector covers it). A line longer than the limit is a
    window by itself; lines are never split.
    """
    if text.count("\n") < MIN_LINES - 1:
        return ()  # fewer lines than a list has, before any splitting (most prose chunks)
    lines = [ln for ln in text.split("\n") if ln.strip() and not ln.lstrip().startswith("#")]
    if len(lines) < MIN_LINES:
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


def window_hashes(text: str) -> tuple[str, ...]:
    """The embedding-cache keys of ``text``'s windows (OpenClaw's text hash, as chunks)."""
    return tuple(hash_text(w) for w in text_windows(text))


def best_window_cosines(
    store: Store, identity: EmbedderIdentity, qvec: np.ndarray, texts: Mapping[int, str]
) -> dict[int, float]:
    """rid -> the best cosine of the chunk's windows to ``qvec`` (chunks with windows
    whose vectors are all in the cache; one look-up of every window hash)."""
    wanted = {rid: window_hashes(text) for rid, text in texts.items()}
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
