"""The vectorised MMR picks exactly what OpenClaw's reference loop picks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.core.base import lexical
from memdesk.core.openclaw import mmr as oc_mmr
from memdesk.core.search import mmr_fast

tokens = st.frozensets(st.sampled_from([*list("abcdefghij"), "鉴权", "方案"]), max_size=6)
scores = st.one_of(st.floats(0, 1, allow_nan=False), st.sampled_from([0.0, 0.5, 1.0]))


@settings(max_examples=400, deadline=None)
@given(
    items=st.lists(st.tuples(scores, tokens), min_size=1, max_size=25),
    lam=st.sampled_from([0.0, 0.3, 0.5, 0.7, 0.99]),
)
def test_matches_reference(items: list[tuple[float, frozenset[str]]], lam: float) -> None:
    score_list = [s for s, _ in items]
    sets = [t for _, t in items]
    expected = oc_mmr.mmr_select(score_list, sets, lam)
    got = mmr_fast.mmr_select(score_list, mmr_fast.jaccard_matrix(sets), lam)
    assert [s.index for s in got] == [s.index for s in expected]
    assert [s.against for s in got] == [s.against for s in expected]
    assert [s.max_sim for s in got] == pytest.approx([s.max_sim for s in expected], abs=0)


def test_jaccard_matrix_values() -> None:
    sim = mmr_fast.jaccard_matrix([frozenset("ab"), frozenset("bc"), frozenset(), frozenset()])
    assert sim[0, 1] == pytest.approx(1 / 3) and sim[2, 3] == 1.0 and sim[0, 2] == 0.0
    assert np.allclose(sim, sim.T)


@settings(max_examples=200, deadline=None)
@given(
    items=st.lists(st.tuples(scores, tokens), min_size=1, max_size=90),
    lam=st.sampled_from([0.0, 0.3, 0.7, 0.99]),
)
def test_the_loop_and_the_array_rounds_agree(items: list[tuple[float, frozenset[str]]], lam: float) -> None:
    # Small pools take the plain loop, large ones the array rounds: the same steps either way.
    values = [s for s, _ in items]
    sim = mmr_fast.jaccard_matrix([t for _, t in items])
    assert mmr_fast._mmr_loop(values, sim.tolist(), lam) == mmr_fast._mmr_arrays(values, sim, lam)


texts = st.lists(
    st.sampled_from(["vector", "store", "Store,", "鉴权方案", "方案", "café", "x_1", "", "向量 检索"]),
    max_size=8,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(
    items=st.lists(st.tuples(scores, texts), min_size=1, max_size=40),
    lam=st.sampled_from([0.0, 0.3, 0.7, 0.85, 0.99]),
    picks=st.integers(0, 45),
)
def test_the_lazy_selection_makes_the_reference_picks(
    items: list[tuple[float, str]], lam: float, picks: int
) -> None:
    """The first ``picks`` steps of the lazy rounds are the reference loop's, over the
    same token sets (lazy pairwise Jaccard, computed only where a pick depends on it)."""
    score_list = [s for s, _ in items]
    sets = [lexical.mmr_tokens(t) for _, t in items]
    expected = oc_mmr.mmr_select(score_list, sets, lam)[:picks]
    asked: list[tuple[int, int]] = []
    similarity = mmr_fast.LazyJaccard([t for _, t in items])

    def sim(a: int, b: int) -> float:
        asked.append((a, b))
        return similarity(a, b)

    got = mmr_fast.mmr_select_lazy(score_list, sim, lam, picks)
    assert got == expected
    assert len(set(asked)) == len(asked)  # each pair at most once


def test_lazy_jaccard_values_equal_the_matrix_even_past_the_vocabulary_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    docs = ["Vector store, вектор", "vector 鉴权方案", "鉴权", "", "", "store store x_1"]
    want = mmr_fast.jaccard_matrix([lexical.mmr_tokens(t) for t in docs])
    fast = mmr_fast.LazyJaccard(docs)
    assert [[fast(a, b) for b in range(len(docs))] for a in range(len(docs))] == want.tolist()
    # A full vocabulary gives new texts no ids: they are compared as sets, with the same values.
    monkeypatch.setattr(mmr_fast, "VOCAB_LIMIT", 0)
    fresh = ["new words only", "only new", "vector 鉴权方案"]
    assert mmr_fast.token_ids(fresh[0]) is None
    mixed = mmr_fast.LazyJaccard(fresh + docs)
    want = mmr_fast.jaccard_matrix([lexical.mmr_tokens(t) for t in fresh + docs])
    assert [[mixed(a, b) for b in range(9)] for a in range(9)] == want.tolist()


def test_lazy_jaccard_mixes_stored_ids_and_texts_without_mixing_their_vocabularies() -> None:
    """Stored ids are of the index's vocabulary, not this process's: a pair with one of
    each is compared as sets, a pair of stored ids by its ids; the values stay the matrix's."""
    docs = ["vector store 鉴权方案", "store 方案 café", "vector", "", "鉴权 x_1 store"]
    sets = [lexical.mmr_tokens(t) for t in docs]
    index_vocab = {t: k for k, t in enumerate(sorted(set().union(*sets), reverse=True))}
    blob = [lexical.encode_stored_tokens(index_vocab[t] for t in s) for s in sets]
    stale = np.array([lexical.MMR_TOKENS_FORMAT + 1, 0, 1], dtype="<i4").tobytes()
    stored: list[bytes | None] = [blob[0], None, blob[2], blob[3], stale]
    want = mmr_fast.jaccard_matrix(sets).tolist()
    sim = mmr_fast.LazyJaccard(docs, stored)
    assert [[sim(a, b) for b in range(5)] for a in range(5)] == want
    assert lexical.decode_stored_tokens(stale) is None
