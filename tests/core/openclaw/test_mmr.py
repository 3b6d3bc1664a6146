"""MMR: OpenClaw's reranker and the generic ``mmr_select`` building block."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.core.openclaw.mmr import MMRItem, jaccard_similarity, mmr_rerank, mmr_select, tokenize

words = st.sampled_from(["alpha", "beta", "gamma", "delta", "成语", "接龙", "vlan", "router"])
items_st = st.lists(
    st.tuples(st.floats(0, 1, allow_nan=False), st.lists(words, max_size=5).map(" ".join)),
    min_size=0,
    max_size=12,
).map(lambda rows: [MMRItem(str(i), s, c) for i, (s, c) in enumerate(rows)])


@settings(max_examples=200, deadline=None)
@given(items=items_st, lam=st.floats(0, 1, allow_nan=False))
def test_mmr_rerank_returns_a_permutation(items: list[MMRItem], lam: float) -> None:
    ranked = mmr_rerank(items, True, lam)
    assert sorted(i.id for i in ranked) == sorted(i.id for i in items)
    assert len(ranked) == len(items)


@settings(max_examples=200, deadline=None)
@given(items=items_st)
def test_lambda_one_is_stable_sort_and_equals_mmr_select(items: list[MMRItem]) -> None:
    expected = sorted(items, key=lambda i: -i.score)
    assert mmr_rerank(items, True, 1.0) == expected
    # The generic selector reaches the same order without the shortcut.
    tokens = [frozenset(tokenize(i.content)) for i in items]
    steps = mmr_select([i.score for i in items], tokens, 1.0)
    assert [items[s.index] for s in steps] == expected


@settings(max_examples=200, deadline=None)
@given(items=items_st, lam=st.floats(0, 0.99, allow_nan=False))
def test_mmr_select_steps_are_consistent(items: list[MMRItem], lam: float) -> None:
    tokens = [frozenset(tokenize(i.content)) for i in items]
    steps = mmr_select([i.score for i in items], tokens, lam)
    assert sorted(s.index for s in steps) == list(range(len(items)))
    chosen: list[int] = []
    for step in steps:
        sims = [jaccard_similarity(tokens[step.index], tokens[j]) for j in chosen]
        assert step.max_sim == max(sims, default=0.0)
        if step.against is None:
            assert step.max_sim == 0.0
        else:
            assert step.against in chosen
            assert jaccard_similarity(tokens[step.index], tokens[step.against]) == step.max_sim
        chosen.append(step.index)
    assert mmr_rerank(items, True, lam) == [items[s.index] for s in steps]


def test_disabled_and_diversity() -> None:
    items = [
        MMRItem("1", 1.0, "identical content"),
        MMRItem("2", 0.9, "identical content"),
        MMRItem("3", 0.8, "different stuff"),
    ]
    assert [i.id for i in mmr_rerank(items, False, 0.5)] == ["1", "2", "3"]
    assert [i.id for i in mmr_rerank(items, True, 0.5)] == ["1", "3", "2"]


def test_tokenizer_variants() -> None:
    assert tokenize("Café déjà-vu") == {"caf", "d", "j", "vu"}
    assert tokenize("你好 世界") == {"你好", "世界", "你", "好", "世", "界"}
    assert tokenize("你好世界", legacy=True) == set()
