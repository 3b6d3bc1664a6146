"""memdesk's lexical layer: CJK segmentation for the index, query terms, MMR tokens."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memdesk.core.base import lexical


def test_cjk_runs_are_indexed_as_unigrams_and_bigrams() -> None:
    assert lexical.segment_for_index("鉴权方案").split() == ["鉴", "权", "方", "案", "鉴权", "权方", "方案"]
    assert lexical.segment_for_index("OAuth 登录").split() == ["OAuth", "登", "录", "登录"]
    assert lexical.segment_for_index("plain text") == "plain text"
    # NFKC: full-width ASCII is ASCII.
    assert lexical.segment_for_index("ＳＱＬｉｔｅ") == "SQLite"


def test_query_terms_drop_stop_words_unless_nothing_else_is_left() -> None:
    assert lexical.query_terms("What is the vector store?") == ["vector", "store"]
    assert lexical.query_terms("the") == ["the"]
    assert lexical.query_terms("鉴权方案 鉴权") == ["鉴权", "权方", "方案"]  # de-duplicated, in order
    assert lexical.query_terms("Ｓｑｌｉｔｅ") == ["sqlite"]


@given(st.text(max_size=60))
def test_query_terms_are_always_safe_to_quote_into_fts5(query: str) -> None:
    for term in lexical.query_terms(query):
        assert term and '"' not in term and not any(ch.isspace() for ch in term)
    expr = lexical.fts_match_expression(lexical.query_terms(query))
    assert expr is None or expr.startswith('"')


def test_match_expression() -> None:
    assert lexical.fts_match_expression(["a", "b"]) == '"a" OR "b"'
    assert lexical.fts_match_expression(["a", "b"], joiner=" AND ") == '"a" AND "b"'
    assert lexical.fts_match_expression([]) is None
    assert lexical.fts_match_expression([str(i) for i in range(100)], limit=3) == '"0" OR "1" OR "2"'


def test_mmr_tokens_cover_every_script() -> None:
    assert lexical.mmr_tokens("Vector store, вектор") == frozenset({"vector", "store", "вектор"})
    assert {"鉴", "鉴权", "权"} <= lexical.mmr_tokens("鉴权")
