"""One side's changes to a note apart from the other's, where both wrote in the same
period (``changes.without_own_changes``): the base each side's diff is taken from."""

from __future__ import annotations

from memdesk.core.history import changes, diff

BASE = "# Memory\n\n- Owner of Ferry: Ana\n- Tea, not coffee\n"
USER_1 = BASE + "USER edit one\n"
AGENT_1 = USER_1.replace("Ana", "Bo") + "AGENT appended line\n"
USER_2 = AGENT_1 + "user edit two\n"
AGENT_2 = USER_2 + "agent line two\n"
SPAN = [(USER_1, "user"), (AGENT_1, "agent"), (USER_2, "user"), (AGENT_2, "agent")]


def _side(side: str) -> tuple[str, str]:
    """(the base of ``side``'s diff, its last text) over SPAN up to its last version."""
    last = max(i for i, (_t, s) in enumerate(SPAN) if s == side)
    steps = [(text, s == side) for text, s in SPAN[: last + 1]]
    return changes.without_own_changes(BASE, steps), SPAN[last][0]


def _changed(old: str, new: str) -> tuple[set[str], set[str]]:
    found = diff.hunks(old, new)
    return {x for h in found for x in h.old_lines}, {x for h in found for x in h.new_lines}


def test_each_side_shows_only_its_own_lines_when_both_wrote_in_between() -> None:
    removed, added = _changed(*_side("agent"))
    assert added == {"- Owner of Ferry: Bo\n", "AGENT appended line\n", "agent line two\n"}
    assert removed == {"- Owner of Ferry: Ana\n"}
    removed, added = _changed(*_side("user"))
    assert added == {"USER edit one\n", "user edit two\n"} and removed == set()


def test_a_change_taken_back_by_the_other_side_and_made_again_is_one_change() -> None:
    after = BASE.replace("Ana", "Bo") + "- Promoted: uses SQLite\n"
    steps = [(after, True), (BASE, False), (after, True)]
    old = changes.without_own_changes(BASE, steps)
    assert old == BASE  # the user's revert brought Ana's line back, not a second one
    removed, added = _changed(old, after)
    assert removed == {"- Owner of Ferry: Ana\n"}
    assert added == {"- Owner of Ferry: Bo\n", "- Promoted: uses SQLite\n"}


def test_a_line_the_other_side_deleted_and_this_side_wrote_back_is_this_sides() -> None:
    steps = [(BASE.replace("- Tea, not coffee\n", ""), False), (BASE + "more\n", True)]
    old = changes.without_own_changes(BASE, steps)
    _removed, added = _changed(old, BASE + "more\n")
    assert added == {"- Tea, not coffee\n", "more\n"}


def test_only_this_sides_versions_give_the_plain_diff() -> None:
    assert changes.without_own_changes(BASE, [(USER_1, True), (AGENT_1, True)]) == BASE
    assert changes.without_own_changes(BASE, []) == BASE
    # Line endings and a last line without one are kept byte for byte.
    crlf = "a\r\nb"
    assert changes.without_own_changes(crlf, [("a\r\nb\r\nc", False), ("x\r\nb\r\nc", True)]) == "a\r\nb\r\nc"


def test_each_hunk_is_named_after_the_version_that_made_it() -> None:
    # The agent's two versions in SPAN are steps 1 and 3: its rewrite and first append
    # come from step 1, the last append from step 3, whatever the user wrote between.
    steps = [(text, side == "agent") for text, side in SPAN]
    found = changes.own_changes(BASE, steps)
    assert found.old_text == changes.without_own_changes(BASE, steps)
    assert len(found.added_at) == len(diff.lines(AGENT_2))  # one entry per line of the last text
    made = {tuple(h.new_lines): found.step_of(h) for h in diff.hunks(found.old_text, AGENT_2)}
    assert made == {
        ("- Owner of Ferry: Bo\n",): 1,
        ("AGENT appended line\n",): 1,
        ("agent line two\n",): 3,
    }
    # A line the other side took out and this one wrote again is this side's, from then.
    back = changes.own_changes(BASE, [(BASE.replace("- Tea, not coffee\n", ""), False), (BASE, True)])
    (hunk,) = diff.hunks(back.old_text, BASE)
    assert hunk.new_lines == ["- Tea, not coffee\n"] and back.step_of(hunk) == 1
