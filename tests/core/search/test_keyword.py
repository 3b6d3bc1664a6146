"""memdesk's keyword leg: its terms, the idf rule, the text-score normalisation, each
departure from OpenClaw switchable (``MemdeskOptions``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.core.index.store import Store
from memdesk.core.search import keyword, lexical
from memdesk.core.search.keyword import MemdeskOptions


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "index.sqlite")
    texts = [f"the project note number {k} about sqlite" for k in range(6)] + ["a note on PostgreSQL"]
    with s.transaction():
        for k, text in enumerate(texts):
            s.insert_chunk(
                chunk_id=f"c{k}",
                path=f"memory/n{k}.md",
                source="memory",
                start_line=1,
                end_line=1,
                hash=f"h{k}",
                model="test",
                text=text,
                segmented=lexical.segment_for_index(text),
                embedding=None,
                shared=True,
            )
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
