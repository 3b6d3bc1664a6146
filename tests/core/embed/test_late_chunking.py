"""Late chunking on the real models: a passage window's vector pooled from the token
vectors of its whole text's one forward pass (``GgufEmbedder.embed_documents_windowed``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from memdesk.core.embed import token_pooling
from memdesk.core.embed.embedder import WindowEmbedder
from memdesk.core.embed.gguf_embedder import GgufEmbedder

LINES = [
    "- Caroline: I adopted a grey kitten from the shelter last weekend.",
    "- Melanie: The train along the coast was late again this morning.",
    "- Caroline: 我们决定继续使用 SQLite 作为本地数据库。",
    "- Melanie: The football match went into extra time and we lost on penalties.",
    "- Caroline: Repainting the kitchen a pale green took all of Sunday.",
]
TEXT = "# 2023-05-08\n\n## 1:56 pm — Caroline and Melanie\n\n" + "\n".join(LINES)


def _line_spans(text: str) -> list[tuple[int, int]]:
    return [(text.index(line), text.index(line) + len(line)) for line in LINES]


@pytest.fixture(params=["minilm", "e5"])
def embedder(request: pytest.FixtureRequest) -> GgufEmbedder:
    emb: GgufEmbedder = request.getfixturevalue(f"{request.param}_embedder")
    return emb


def test_the_chunk_vector_is_the_mean_llama_cpp_pools(embedder: GgufEmbedder) -> None:
    """The documents context hands out token vectors and takes their mean itself: the
    result is llama.cpp's own mean pooling (the query context's) within float rounding."""
    assert embedder.late_chunking and isinstance(embedder, WindowEmbedder)
    texts = [TEXT, "short", LINES[2]]
    pooled_by_llama = np.stack(
        [embedder._embed([embedder.document_prefix], [t], queries=True)[0] for t in texts]
    )
    # One text per call: sequences packed together move each other by ~1e-4 (flash
    # attention's F16 accumulation), whichever the pooling.
    mine = np.stack([embedder.embed_documents([t])[0] for t in texts])
    assert np.abs(mine - pooled_by_llama).max() < 1e-6
    windowed = np.stack([embedder.embed_documents_windowed([t], [[]])[0][0] for t in texts])
    assert np.abs(windowed - pooled_by_llama).max() < 1e-6


def test_a_window_over_the_whole_text_is_the_chunk_vector(embedder: GgufEmbedder) -> None:
    """Pooled over every body token, a window is the chunk vector but for the few special
    and prefix tokens it leaves out; over half the lines it is another vector."""
    half = _line_spans(TEXT)[:2]
    vectors, windows = embedder.embed_documents_windowed([TEXT], [[[(0, len(TEXT))], half]])
    assert windows[0].shape == (2, embedder.dims)
    assert np.allclose(np.linalg.norm(windows[0], axis=1), 1.0, atol=1e-5)
    full, part = (1.0 - float(w @ vectors[0]) for w in windows[0])
    assert full < 1e-3
    assert full < part / 5  # (e5's vectors are all close: half the lines are 0.997 alike)


def test_each_line_window_is_pooled_from_its_own_tokens(embedder: GgufEmbedder) -> None:
    """Each line embedded on its own is nearest, among the one-line windows pooled from
    the text, to its own line's: the character ranges map onto the right tokens. (Per
    line, not per window: in e5 a Chinese line alone is close to every English window.)"""
    spans = [[s] for s in _line_spans(TEXT)]
    _, windows = embedder.embed_documents_windowed([TEXT], [spans])
    alone = embedder.embed_documents(LINES)
    similarity = windows[0] @ alone.T
    assert list(similarity.argmax(axis=0)) == list(range(len(LINES)))


def test_a_text_over_the_context_pools_across_its_sequences(embedder: GgufEmbedder) -> None:
    """A text of several sequences (over the model's context) still pools each window from
    its tokens, wherever the sequences were cut; each sequence is encoded once."""
    filler = [f"- Note {i}: the weekly report about the budget review went out on time." for i in range(60)]
    text = "\n".join([*filler, LINES[0], *filler])
    assert len(embedder.token_windows(text)) >= 2
    start = text.index(LINES[0])
    calls: list[int] = []
    real = embedder._encode_sequences

    def counting(context: Any, sequences: list[list[int]], *args: Any) -> np.ndarray:
        calls.append(len(sequences))
        return real(context, sequences, *args)

    embedder._encode_sequences = counting  # type: ignore[method-assign]
    try:
        vectors, windows = embedder.embed_documents_windowed(
            [text], [[[(start, start + len(LINES[0]))], [(len(text) - len(filler[-1]), len(text))]]]
        )
    finally:
        del embedder._encode_sequences
    assert sum(calls) == len(embedder.token_windows(text))
    kitten = embedder.embed_documents([LINES[0]])[0]
    own, chunk, last = (
        float(windows[0][0] @ kitten),
        float(vectors[0] @ kitten),
        float(windows[0][1] @ kitten),
    )
    assert own > chunk + 0.02 and own > last + 0.02
    last_alone = embedder.embed_documents([filler[-1]])[0]
    assert float(windows[0][1] @ last_alone) > float(windows[0][0] @ last_alone)


def test_token_offsets_count_each_piece_between_cuts() -> None:
    words = lambda piece: len(piece.split())  # noqa: E731 - a stand-in tokenizer
    text = "a b\nc d e\nf"
    assert token_pooling.token_offsets(text, [4, 9], words) == {0: 0, 4: 2, 9: 5, 11: 6}
    body = np.eye(6, dtype=np.float32)
    out = token_pooling.span_vectors(body, [[(0, 2)], [(2, 5), (5, 6)], [(7, 9)]], np.ones(6) / 6**0.5)
    assert np.allclose(out[0], [2**-0.5, 2**-0.5, 0, 0, 0, 0])
    assert np.allclose(out[1], [0, 0, 0.5, 0.5, 0.5, 0.5])
    assert np.allclose(out[2], np.ones(6) / 6**0.5)  # past the end: the fallback
