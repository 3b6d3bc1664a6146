"""The vectorised MMR picks exactly what OpenClaw's reference loop picks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
