"""Hunks between two versions, and reverting or applying one with every other byte kept."""

from __future__ import annotations

import pytest

from memdesk.core.history import diff

OLD = "# Memory\r\nOwner: Ana\r\nStack: Postgres\r\nPlan: ship in May\r\nlast line, no newline"
NEW = "# Memory\r\nOwner: Bruno\r\nStack: Postgres\r\nPlan: ship in May\r\nAdded by dreaming\r\nlast line, changed"


def test_hunks_keep_line_endings() -> None:
    found = diff.hunks(OLD, NEW)
    assert [(h.old_start, h.old_lines, h.new_start, h.new_lines) for h in found] == [
        (1, ["Owner: Ana\r\n"], 1, ["Owner: Bruno\r\n"]),
        (4, ["last line, no newline"], 4, ["Added by dreaming\r\n", "last line, changed"]),
    ]


@pytest.mark.parametrize("which", [0, 1])
def test_revert_one_hunk_keeps_the_other(which: int) -> None:
    found = diff.hunks(OLD, NEW)
    reverted = diff.revert_hunk(NEW, found[which])
    # The reverted text differs from OLD only by the other hunk.
    (left,) = diff.hunks(OLD, reverted)
    assert left == found[1 - which]
    assert diff.revert_hunk(reverted, left) == OLD


def test_apply_every_hunk_in_turn_gives_the_new_text() -> None:
    text = OLD
    for hunk in reversed(diff.hunks(OLD, NEW)):  # bottom first: line numbers above stay valid
        text = diff.apply_hunk(text, hunk)
    assert text == NEW


def test_a_final_newline_is_a_change_of_its_own() -> None:
    (hunk,) = diff.hunks("a\nb", "a\nb\n")
    assert diff.revert_hunk("a\nb\n", hunk) == "a\nb"
    assert diff.apply_hunk("a\nb", hunk) == "a\nb\n"


def test_a_hunk_still_reverts_after_lines_were_added_above_it() -> None:
    old, new = "a\nb\nc\n", "a\nB\nc\n"
    (hunk,) = diff.hunks(old, new)
    assert diff.revert_hunk("new top\n" + new, hunk) == "new top\n" + old


def test_a_hunk_whose_lines_are_gone_is_refused() -> None:
    (hunk,) = diff.hunks("a\nb\n", "a\nB\n")
    with pytest.raises(diff.HunkMismatch):
        diff.revert_hunk("a\nsomething else\n", hunk)


def test_form_feeds_and_line_separators_stay_inside_their_line() -> None:
    old, new = "a\x0cb\u2028c\nd\n", "a\x0cb\u2028c\nD\n"
    (hunk,) = diff.hunks(old, new)
    assert hunk.old_start == 1
    assert diff.revert_hunk(new, hunk) == old


def test_stats_count_lines_added_and_removed() -> None:
    assert diff.stats(OLD, NEW) == (3, 2)
