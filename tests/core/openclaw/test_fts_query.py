"""``build_fts_query`` / ``plan_keyword_search`` must always produce valid FTS5 syntax."""

from __future__ import annotations

from collections.abc import Iterator

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.core.openclaw.fts_query import build_fts_query, plan_keyword_search
from memdesk.core.openclaw.keyword_search import chunks_fts_ddl, insert_fts_row, search_keyword

# Bias towards characters FTS5 treats specially, plus CJK/kana/Hangul and astral.
_SPECIAL = [
    *"\"*^:()-+{}[],.;'\\%_ AND OR NOT NEAR",
    "\u00e9",
    "\u6210",
    "\u8bed",
    "\u3057",
    "\ud55c",
    "\U0001f600",
    "\U00020000",
    "\n",
    "\t",
]
query_text = st.text(
    alphabet=st.one_of(st.sampled_from(_SPECIAL), st.characters(exclude_categories=("Cs",))),
    max_size=40,
)


@pytest.fixture(scope="module", params=["unicode61", "trigram"])
def fts(request: pytest.FixtureRequest) -> Iterator[tuple[apsw.Connection, str]]:
    connection = apsw.Connection(":memory:")
    connection.execute(chunks_fts_ddl(request.param))
    insert_fts_row(
        connection, id="a", path="memory/a.md", text='Alpha AND beta 成语接龙 "quoted" 100% done_ok'
    )
    insert_fts_row(connection, id="b", path="MEMORY.md", text="NEAR(x y) OR NOT gamma; café")
    yield connection, request.param
    connection.close()


@settings(max_examples=300, deadline=None)
@given(raw=query_text)
def test_build_fts_query_is_always_accepted_by_fts5(fts: tuple[apsw.Connection, str], raw: str) -> None:
    conn, _ = fts
    query = build_fts_query(raw)
    if query is None:
        return
    assert " OR " not in query.replace('"OR"', "")  # AND-joined, never OR
    # Must not raise apsw.SQLError ("fts5: syntax error ...").
    list(conn.execute("SELECT id, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ?", (query,)))


@settings(max_examples=200, deadline=None)
@given(raw=query_text)
def test_search_keyword_never_raises(fts: tuple[apsw.Connection, str], raw: str) -> None:
    conn, tokenizer = fts
    rows = search_keyword(conn, raw, 10, fts_tokenizer=tokenizer)
    for row in rows:
        assert 0.0 <= row.text_score <= 1.0


def test_build_fts_query_examples() -> None:
    assert build_fts_query("FOO_bar baz-1") == '"FOO_bar" AND "baz" AND "1"'
    assert build_fts_query('say "hi"') == '"say" AND "hi"'
    assert build_fts_query("--- !!!") is None


def test_trigram_plan_and_like_escaping() -> None:
    plan = plan_keyword_search("成语接龙 游戏", "trigram")
    assert plan.match_query == '"成语接龙"'
    assert plan.substring_terms == ("游戏",)
    conn = apsw.Connection(":memory:")
    conn.execute(chunks_fts_ddl("trigram"))
    insert_fts_row(conn, id="x", path="p.md", text="ab 游戏 c")
    insert_fts_row(conn, id="y", path="q.md", text="nothing here")
    rows = search_keyword(conn, "游戏", 10, fts_tokenizer="trigram")
    assert [r.id for r in rows] == ["x"]
    assert rows[0].text_score == 1.0  # LIKE-only plans force textScore 1
