"""memdesk's keyword leg: its terms, the idf rule, the text-score normalisation, each
departure from OpenClaw switchable (``MemdeskOptions``)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memdesk.core.base import lexical
from memdesk.core.index.store import Store
from memdesk.core.search import keyword
from memdesk.core.search.keyword import MemdeskOptions


def _put(s: Store, k: int, text: str, *, path: str, line: int) -> None:
    """Chunk ``c{k}``: one line of ``path``, keyword-indexed, no vector."""
    s.insert_chunk(
        chunk_id=f"c{k}",
        path=path,
        source="memory",
        start_line=line,
        end_line=line,
        hash=f"h{k}",
        model="test",
        text=text,
        segmented=lexical.segment_for_index(text),
        embedding=None,
        shared=True,
    )


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "index.sqlite")
    texts = [f"the project note number {k} about sqlite" for k in range(6)] + ["a note on PostgreSQL"]
    with s.transaction():
        for k, text in enumerate(texts):
            _put(s, k, text, path=f"memory/n{k}.md", line=1)
    return s


def test_terms_follow_the_options() -> None:
    assert keyword.query_terms("the vector store", MemdeskOptions()) == ["vector", "store"]
    assert keyword.query_terms("the vector store", MemdeskOptions(stop_words=False)) == [
        "the",
        "vector",
        "store",
    ]
    # Unsegmented: OpenClaw's word tokens, CJK not split into bigrams.
    assert keyword.query_terms("鉴权方案", MemdeskOptions()) == ["鉴权", "权方", "方案"]
    assert keyword.query_terms("鉴权方案", MemdeskOptions(segmented_index=False)) == ["鉴权方案"]
    assert (
        MemdeskOptions().table == "chunks_fts_seg"
        and MemdeskOptions(segmented_index=False).table == "chunks_fts"
    )


def test_a_term_in_half_the_chunks_or_more_is_left_out(store: Store) -> None:
    opts = MemdeskOptions()
    # "sqlite" is in 6 of 7 chunks: FTS5 gives it ~0 idf, so it only costs time.
    assert keyword.searched_terms(store, ["sqlite", "postgresql"], opts) == ["postgresql"]
    assert keyword.searched_terms(store, ["sqlite"], opts) == ["sqlite"]  # nothing else left
    assert keyword.match_expression(["postgresql"], opts) == '"postgresql"'
    assert keyword.match_expression([], opts) is None
    assert keyword.match_expression(["a", "b"], MemdeskOptions(or_terms=False)) == '"a" AND "b"'


def test_complete_scores_match_the_search_scores(store: Store) -> None:
    opts = MemdeskOptions()
    expr = lexical.fts_match_expression(["note", "postgresql"])  # every chunk matches "note"
    assert expr is not None
    found = dict(keyword.search(store, expr, 3, shared_only=False, opts=opts))
    rest = [rid for rid in range(1, 8) if rid not in found]
    completed = keyword.complete(store, expr, rest, opts)
    everything = dict(keyword.search(store, expr, 10, shared_only=False, opts=opts))
    assert len(everything) == 7 and len(rest) == 4
    assert completed == pytest.approx({rid: everything[rid] for rid in rest})


def test_normalise() -> None:
    assert keyword.normalise(3.0, 6.0, MemdeskOptions()) == 0.75  # r / (1 + r)
    assert keyword.normalise(0.0, 6.0, MemdeskOptions()) == 0.0
    assert keyword.normalise(3.0, 6.0, MemdeskOptions(text_norm="max")) == 0.5
    assert keyword.normalise(3.0, 0.0, MemdeskOptions(text_norm="max")) == 0.0


def _zipf_corpus(tmp_path: Path, n: int = 600) -> Store:
    """Chunks of words drawn from a Zipf-shaped vocabulary: a few words in a third of
    the chunks or more, a long tail of rare ones (as in real notes)."""
    rng = random.Random(3)
    vocab = [f"w{k}" for k in range(400)]
    weights = [1 / (k + 1) for k in range(len(vocab))]
    s = Store(tmp_path / "zipf.sqlite")
    with s.transaction():
        for k in range(n):
            text = " ".join(rng.choices(vocab, weights, k=rng.randint(5, 60)))
            _put(s, k, text, path=f"memory/n{k // 3}.md", line=1 + k % 3)
    return s


def test_two_stage_search_returns_the_one_query_rows(tmp_path: Path) -> None:
    store = _zipf_corpus(tmp_path)
    opts = MemdeskOptions()
    rng = random.Random(5)
    used = 0
    for _ in range(150):
        words = [f"w{rng.choice([rng.randrange(0, 12), rng.randrange(12, 400)])}" for _ in range(3)]
        terms = keyword.searched_terms(store, keyword.query_terms(" ".join(words), opts), opts)
        expr, split = keyword.query_plan(store, terms, opts)
        assert expr is not None
        for limit in (5, 20):
            plain = store.keyword_search(opts.table, expr, limit, shared_only=False)
            if split is None:
                continue
            two = store.keyword_two_stage(opts.table, split, limit)
            used += two is not None
            got = keyword.search(store, expr, limit, shared_only=False, opts=opts, split=split)
            # Same rows in the same order, and the very same BM25 values (same sums).
            assert got == plain
            if two is not None:
                assert two == plain
    assert used > 30  # most of the mixed queries really took two stages


def test_the_split_needs_common_and_rare_terms(tmp_path: Path) -> None:
    store = _zipf_corpus(tmp_path)
    opts = MemdeskOptions()
    _, rows, stats = store.term_statistics(["w1", "w2", "w300", "w301"])
    assert rows == 600 and stats["w1"][1] == 1
    # Rare and common: common terms go last in the expression, rarest first.
    expr, split = keyword.query_plan(store, ["w1", "w300"], opts)
    assert split is not None and split.rare == '"w300"' and split.common == '"w1"'
    assert expr == '"w300" OR "w1"'
    # Only common, or only rare: one query, in the query's order.
    assert keyword.query_plan(store, ["w1", "w2"], opts) == ('"w1" OR "w2"', None)
    assert keyword.query_plan(store, ["w300", "w301"], opts) == ('"w300" OR "w301"', None)
    assert keyword.query_plan(store, ["w1", "w300"], MemdeskOptions(or_terms=False))[1] is None


def test_two_stages_are_not_trusted_after_the_index_changed(tmp_path: Path) -> None:
    store = _zipf_corpus(tmp_path)
    opts = MemdeskOptions()
    _, split = keyword.query_plan(store, ["w1", "w300"], opts)
    assert split is not None and store.keyword_two_stage(opts.table, split, 5) is not None
    other = Store(store.path)
    with other.transaction():
        other.delete_chunks_of("memory/n0.md")
    other.close()
    assert store.keyword_two_stage(opts.table, split, 5) is None  # the bound is of the old index


def test_the_fts_row_count_is_fts5s_own(tmp_path: Path) -> None:
    store = _zipf_corpus(tmp_path, n=200)
    assert store.term_statistics(["w1"])[:2] == (200, 200)
    with store.transaction():
        store.delete_chunks_of("memory/n0.md")
    assert store.term_statistics(["w1"])[:2] == (197, 197)
    # A chunk replaced in place (same id) takes its old keyword row with it.
    with store.transaction():
        store.insert_chunk(
            chunk_id="c10",
            path="memory/n3.md",
            source="memory",
            start_line=2,
            end_line=2,
            hash="h10b",
            model="test",
            text="w1 w2",
            segmented="w1 w2",
            embedding=None,
            shared=True,
        )
    assert store.term_statistics(["w1"])[:2] == (197, 197)
