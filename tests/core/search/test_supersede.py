"""The newest statement of a fact wins a current-state question; an open question does not.

Ranking math on hand-built pools (the candidates carry the scores a fetch would have
given, no index or embedder), then the bundled example workspace with the real model.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memdesk.core import engine
from memdesk.core.search import explain, explain_text, ranking, supersede
from memdesk.core.search.hits import Candidate, CandidatePool, Hit
from memdesk.core.search.settings import SearchSettings

NOW = dt.date(2026, 12, 1)
SETTINGS = SearchSettings.defaults("memdesk").replace(mmr=False)


def note(path: str, date: str | None, text: str, vector: float, keyword: float = 0.5) -> Candidate:
    return Candidate(
        chunk_id=path,
        path=path,
        source="memory",
        start_line=1,
        end_line=text.count("\n") + 1,
        text=text,
        snippet=text,
        vector_score=vector,
        text_score=keyword,
        date=dt.date.fromisoformat(date) if date else None,
    )


def pool(query: str, *cands: Candidate) -> CandidatePool:
    return CandidatePool(
        query=query, mode="hybrid", profile="memdesk", candidates=cands, timings_ms={"pool_size": 40.0}
    )


def order(hits: list[Hit]) -> list[str]:
    return [h.path for h in hits]


OCTOBER = "# 2026-10-02\n\n## Weekly sync\n- Ferry owner: Priya (interim).\n- Deploy day stays Wednesday."
NOVEMBER = "# 2026-11-10\n\n## Weekly sync\n- Harbor dashboards moved to Grafana.\n- **Ferry owner: Sam** (Lin Wei assigned)."


def ferry_pool(query: str) -> CandidatePool:
    # The October note matches the words better: without the rule it ranks first even with
    # recency (0.75 x 0.05 more merged score than the November note's extra recency).
    return pool(
        query,
        note("memory/2026-10-02.md", "2026-10-02", OCTOBER, 0.86),
        note("memory/2026-11-10.md", "2026-11-10", NOVEMBER, 0.80),
    )


def test_the_later_statement_wins_a_current_state_question() -> None:
    hits = ranking.rank(ferry_pool("who owns Ferry now"), SETTINGS, now=NOW)
    assert order(hits) == ["memory/2026-11-10.md", "memory/2026-10-02.md"]
    new, old = hits
    assert new.supersedes == ("memory/2026-10-02.md", 4, "Ferry owner: Priya (interim).")
    assert old.superseded_by == ("memory/2026-11-10.md", 5, "Ferry owner: Sam (Lin Wei assigned).")
    assert 0 < new.supersede_bonus <= SETTINGS.recency_weight
    assert new.score == new.merged_score * new.decay + new.recency + new.date_boost + new.supersede_bonus
    # Without the rule (recency alone) the October note would still rank first.
    plain = ranking.rank(ferry_pool("who owns Ferry now"), SETTINGS.replace(recency=False), now=NOW)
    assert order(plain)[0] == "memory/2026-10-02.md"


def test_a_question_about_the_past_keeps_the_older_statement_first() -> None:
    for query in ("who owned Ferry in October", "who owns Ferry"):
        hits = ranking.rank(ferry_pool(query), SETTINGS, now=NOW)
        assert order(hits)[0] == "memory/2026-10-02.md", query
        assert all(h.supersedes is None and h.superseded_by is None and h.supersede_bonus == 0 for h in hits)


def test_an_open_question_or_a_plan_does_not_take_the_current_state_bonus() -> None:
    answer = note("memory/2026-11-10.md", "2026-11-10", NOVEMBER, 0.80)
    for undecided in (
        "## Open questions\n\n- Do we keep a hosted tier?\n- Who owns Ferry long-term?",
        "## TODO\n\n- [ ] Lin Wei: name the Ferry owner",
        "## Plans\n\n- We will decide who owns Ferry next week.",
        "## 待定\n\n- Ferry 的负责人下周再定。",
    ):
        # Undated (as MEMORY.md): it would count as current and take the whole bonus.
        hits = ranking.rank(
            pool("who owns Ferry now", note("MEMORY.md", None, undecided, 0.82), answer), SETTINGS, now=NOW
        )
        assert order(hits) == ["memory/2026-11-10.md", "MEMORY.md"], undecided
        assert hits[1].recency == 0 and hits[1].recency_withheld
        assert hits[0].recency > 0 and not hits[0].recency_withheld


def test_chinese_statements_supersede_too() -> None:
    old = note(
        "memory/2026-07-15.md", "2026-07-15", "## 周会纪要\n1. **部署日改为周二**（从 7/14 开始）。", 0.86
    )
    new = note(
        "memory/2026-10-08.md",
        "2026-10-08",
        "## 周会\n- 讨论了 Q4 排期。\n- 部署日改为周三，柏林上午发布。",
        0.80,
    )
    hits = ranking.rank(pool("现在的部署日是哪天", old, new), SETTINGS, now=NOW)
    assert order(hits) == ["memory/2026-10-08.md", "memory/2026-07-15.md"]
    assert hits[0].supersedes == ("memory/2026-07-15.md", 2, "部署日改为周二（从 7/14 开始）。")
    owner_old = note("memory/2026-09-10.md", "2026-09-10", "- Ferry 负责人：周航", 0.86)
    owner_new = note("memory/2026-11-10.md", "2026-11-10", "- Ferry 负责人：陈雨晴", 0.80)
    hits = ranking.rank(pool("Ferry 现在的负责人是谁", owner_old, owner_new), SETTINGS, now=NOW)
    assert order(hits) == ["memory/2026-11-10.md", "memory/2026-09-10.md"]


def test_statements_are_found_by_structure() -> None:
    text = "\n".join(
        (
            "- Ferry owner: Chen Yuqing (Lin Wei assigned).",  # 1 subject: value
            "- Offline mode is now the top pilot blocker.",  # 2 X is now Y
            "- The weekly sync switched from 16:00 to 17:00 Shanghai.",  # 3 switched from A to B
            "- Ferry 由 陈雨晴 接手。",  # 4 由 Y 接手
            "- Who owns Ferry long-term?",  # 5 open question
            "- [ ] assign a Ferry owner",  # 6 to-do
            "Long prose: the outage came from a long import job that held a read transaction open.",  # 7
        )
    )
    statements, open_lines = supersede.scan(text, 1)
    found = {s.line: s.value for s in statements}
    assert found == {1: "chen yuqing", 2: "the top pilot blocker", 3: "17:00 shanghai", 4: "陈雨晴"}
    assert open_lines == {5, 6}
    # A dialog's speaker labels start every line: what they say is no "subject: value".
    dialog = "\n".join(
        f"- {who}: {said}"
        for who, said in [
            ("Caroline", "Thanks!"),
            ("Melanie", "Yes, by the lake."),
            ("Caroline", "Sure."),
            ("Melanie", "Bye!"),
            ("Caroline", "Ok."),
            ("Melanie", "Cool."),
        ]
    )
    assert supersede.scan(dialog, 1)[0] == ()


def test_the_explanation_names_the_superseded_hit() -> None:
    p = ferry_pool("who owns Ferry now")
    hits = ranking.rank(p, SETTINGS, now=NOW)
    new = explain.explain(hits[0], SETTINGS, "hybrid", hits=hits, pool=p, today=NOW)
    old = explain.explain(hits[1], SETTINGS, "hybrid", hits=hits, pool=p, today=NOW)
    new_text = "\n".join(explain_text.lines(new))
    assert "Supersedes +" in new_text
    assert "memory/2026-10-02.md:4 (“Ferry owner: Priya (interim).”)" in new_text
    assert "newer statement" in new_text  # in the final score's formula
    assert "Superseded: memory/2026-11-10.md:5 states the same fact later" in "\n".join(
        explain_text.lines(old)
    )
    said = {"path": "memory/2026-10-02.md", "line": 4, "text": "Ferry owner: Priya (interim)."}
    assert new.to_json()["supersedes"] == said  # memdesk search --explain --json
    assert hits[0].to_json()["supersedes"] == said  # memdesk search --json, MCP
    open_p = pool("who owns Ferry now", note("MEMORY.md", None, "- Who owns Ferry long-term?", 0.9))
    open_hit = ranking.rank(open_p, SETTINGS, now=NOW)[0]
    said = "\n".join(
        explain_text.lines(
            explain.explain(open_hit, SETTINGS, "hybrid", hits=[open_hit], pool=open_p, today=NOW)
        )
    )
    assert (
        "Recency +0: the query asks for the current state, but the lines here that match it only ask or plan"
        in said
    )


def test_who_owns_ferry_now_on_the_example_workspace(example_workspace: Path, e5_path: Path) -> None:
    """The issue's case: the open question in MEMORY.md ranked first and the note that
    answers it (2026-11-10, "Ferry owner: Chen Yuqing") 13th."""
    eng = engine.Engine.open(example_workspace, model=e5_path)
    try:
        eng.sync()
        result = eng.search("who owns the ferry project now", SearchSettings.defaults("memdesk"), now=NOW)
    finally:
        eng.close()
    paths = [h.path for h in result.hits]
    assert "memory/2026-11-10.md" in paths[:3], paths
    top = next(h for h in result.hits if h.path == "memory/2026-11-10.md")
    assert top.supersedes is not None and top.supersedes[0] == "memory/2026-10-20.md"
    question = [h for h in result.hits if h.path == "MEMORY.md" and "Who owns Ferry" in h.text]
    assert all(h.recency == 0 and h.recency_withheld and h.rank > 3 for h in question)
    assert top.supersede_bonus > 0
