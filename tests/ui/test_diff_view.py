"""The diff view's text: each line of the note shown once, even where two changes are
a few lines apart (as ``diff -U3`` shows near hunks), each change still its own hunk."""

from __future__ import annotations

from memdesk.core.history import diff as diff_mod
from memdesk.ui import diff_view


def _rows(view: diff_view.DiffView) -> list[str]:
    return view.toPlainText().split("\n")


def _lines(count: int) -> list[str]:
    return [f"line {n}\n" for n in range(1, count + 1)]


def test_near_hunks_show_each_context_line_once(qtbot) -> None:  # type: ignore[no-untyped-def]
    old = _lines(20)
    new = list(old)
    new[5] = "line 6 changed\n"  # two changes four lines apart: their contexts meet
    new[10] = "line 11 changed\n"
    old_text, new_text = "".join(old), "".join(new)
    hunks = diff_mod.hunks(old_text, new_text)
    assert len(hunks) == 2
    view = diff_view.DiffView()
    qtbot.addWidget(view)
    view.show_diff(old_text, new_text, hunks)
    rows = _rows(view)
    context = [row for row in rows if row.startswith("  ")]
    # Lines 3-5 before the first change, 7-10 between (once), 12-14 after the second.
    assert context == [f"  line {n}" for n in (3, 4, 5, 7, 8, 9, 10, 12, 13, 14)]
    assert sum(row.startswith("@@") for row in rows) == 2  # still two changes to keep or revert
    assert view.go_to_hunk(1) and view.current_hunk == 1


def test_a_change_right_after_another_is_not_shown_as_its_context(qtbot) -> None:  # type: ignore[no-untyped-def]
    old = _lines(10)
    new = list(old)
    new[3] = "line 4 changed\n"
    new[5] = "line 6 changed\n"  # one unchanged line between
    old_text, new_text = "".join(old), "".join(new)
    hunks = diff_mod.hunks(old_text, new_text)
    view = diff_view.DiffView()
    qtbot.addWidget(view)
    view.show_diff(old_text, new_text, hunks)
    rows = _rows(view)
    # The second change's new line appears once, as an added line, never as context.
    assert [row for row in rows if "line 6 changed" in row] == ["+ line 6 changed"]
    assert rows.count("  line 5") == 1
    assert [row for row in rows if row.startswith("  ")] == [
        "  line 1",
        "  line 2",
        "  line 3",
        "  line 5",
        "  line 7",
        "  line 8",
        "  line 9",
    ]


def test_far_hunks_keep_three_lines_each_side(qtbot) -> None:  # type: ignore[no-untyped-def]
    old = _lines(30)
    new = list(old)
    new[2] = "line 3 changed\n"
    new[20] = "line 21 changed\n"
    old_text, new_text = "".join(old), "".join(new)
    view = diff_view.DiffView()
    qtbot.addWidget(view)
    view.show_diff(old_text, new_text, diff_mod.hunks(old_text, new_text))
    context = [row for row in _rows(view) if row.startswith("  ")]
    assert context == [f"  line {n}" for n in (1, 2, 4, 5, 6, 18, 19, 20, 22, 23, 24)]
