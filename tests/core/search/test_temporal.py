"""Which dates a query names and whether it asks for the current state."""

from __future__ import annotations

import datetime as dt

import pytest

from memdesk.core.search import temporal

TODAY = dt.date(2023, 10, 22)


def d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


@pytest.mark.parametrize(
    ("query", "windows"),
    [
        ("What did Gina find on 1 February, 2023?", [(d("2023-02-01"), d("2023-02-01"))]),
        ("What painting did she show on October 13, 2023?", [(d("2023-10-13"), d("2023-10-13"))]),
        ("the 3rd of May", [(d("2023-05-03"), d("2023-05-03"))]),
        ("deploy log 2023-07-04", [(d("2023-07-04"), d("2023-07-04"))]),
        # No year: the latest such date or month on or before today.
        ("When did Melanie go camping in June?", [(d("2023-06-01"), d("2023-06-30"))]),
        ("November offsite", [(d("2022-11-01"), d("2022-11-30"))]),
        ("What did John attend in March 2023?", [(d("2023-03-01"), d("2023-03-31"))]),
        ("7月14日 周会纪要", [(d("2023-07-14"), d("2023-07-14"))]),
        ("2022年12月的决定", [(d("2022-12-01"), d("2022-12-31"))]),
        ("How many times did she go to the beach in 2023?", [(d("2023-01-01"), d("2023-12-31"))]),
        ("what did we decide last week", [(d("2023-10-09"), d("2023-10-21"))]),
        ("昨天的会议", [(d("2023-10-21"), d("2023-10-21"))]),
    ],
)
def test_dates_named_by_a_query(query: str, windows: list[tuple[dt.date, dt.date]]) -> None:
    assert temporal.date_windows(query, TODAY) == windows


@pytest.mark.parametrize(
    "query",
    ["it may rain tomorrow", "a long march through the hills", "version 2.3.4 notes", "2023-02-31", "13月"],
)
def test_words_that_only_look_like_dates_name_none(query: str) -> None:
    assert temporal.date_windows(query, TODAY) == []


@pytest.mark.parametrize(
    ("query", "current"),
    [
        ("what vector store did we finally choose", True),
        ("what day do we deploy now", True),
        ("林蔚 现在是什么职位", True),
        ("向量检索最终用的是哪个数据库？", True),
        ("Is she still painting?", True),
        ("what is the most recent deploy day", True),
        ("What forum did Tim join recently?", False),  # a past event, not the state today
        ("when did we originally decide on PostgreSQL", False),
        ("Jonas blocked by flaky CI test", False),
        ("the snowstorm knowledge base", False),  # "now" inside a word does not count
        # A duration is answered where it began, not by the newest note.
        ("How long has Caroline had her current group of friends for?", False),
        ("since when do we deploy on Tuesdays now", False),
        ("现在的发布日用了多久了", False),
        # Tied to one past occasion or a named period: "ended up" / "currently" mean then.
        ("What did Anthony and John end up playing during the charity event?", False),
        ("发布会期间最后定了什么", False),
        ("What book was Jon currently reading in August 2023?", False),
        ("what did we finally decide last week", False),
        ("what did we end up choosing for the database", True),
        ("what do we use during the standup now", True),  # a recurring occasion
    ],
)
def test_current_state_questions(query: str, current: bool) -> None:
    assert temporal.asks_current_state(query, TODAY) is current
