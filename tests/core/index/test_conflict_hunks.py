"""Finding and resolving the conflict hunks ``merge3`` writes."""

from __future__ import annotations

import pytest

from memdesk.core.index import notetext
from memdesk.core.index.notetext import ConflictHunk


def test_merge3_hunks_are_found_and_each_side_taken() -> None:
    base = "a\nb\nc\nd\n"
    merged = notetext.merge3(base, "a\nB-mine\nc\nD-mine\n", "a\nB-disk\nc\nD-disk1\nD-disk2\n")
    assert merged.conflicts == 2
    lines = merged.text.split("\n")
    hunks = notetext.conflict_hunks(lines)
    assert hunks == [ConflictHunk(1, 3, 5), ConflictHunk(7, 9, 12)]
    assert notetext.resolve_hunk(lines, hunks[0], "mine") == ["B-mine"]
    assert notetext.resolve_hunk(lines, hunks[1], "theirs") == ["D-disk1", "D-disk2"]
    assert notetext.resolve_hunk(lines, hunks[1], "both") == ["D-mine", "D-disk1", "D-disk2"]
    with pytest.raises(ValueError):
        notetext.resolve_hunk(lines, hunks[0], "neither")


def test_only_complete_hunks_with_their_three_markers_count() -> None:
    lines = [
        "Title",
        "=======",  # a Markdown heading's underline, not a middle marker
        "<<<<<<< yours",
        "half a hunk: its middle marker was edited away",
        ">>>>>>> on disk",
        "<<<<<<< yours",
        "x",
        "=========",  # a longer run of "=" is an underline in a side, not the middle
        "=======",
        "y",
        ">>>>>>> on disk",
        "<<<<<<< yoXurs",  # the marker itself edited: no longer one
        "=======",
        ">>>>>>> on disk",
    ]
    assert notetext.conflict_hunks(lines) == [ConflictHunk(5, 8, 10)]


@pytest.mark.parametrize(
    "start,middle,end,typed",
    [
        ("typed<<<<<<< yours", "=======", ">>>>>>> on disk", "typed"),
        ("<<<<<<< yours typed", "=======", ">>>>>>> on disk", "typed"),
        ("<<<<<<< yours", "======= typed", ">>>>>>> on disk", "typed"),
        ("<<<<<<< yours", "typed =======", ">>>>>>> on disk", "typed "),
        ("<<<<<<< yours", "=======", ">>>>>>> on disk typed", "typed"),
        ("<<<<<<< yours", "=======", "typed >>>>>>> on disk", "typed "),
    ],
)
def test_typing_onto_a_marker_line_keeps_the_hunk_and_every_take_keeps_the_typing(
    start: str, middle: str, end: str, typed: str
) -> None:
    """The cursor sat on a marker line and the user typed: the hunk is still one (the
    bar can take a side), and each take keeps the typed word on its own line where
    the marker was: it is the user's, written after the merge, on neither side."""
    lines = ["intro", start, "mine", middle, "theirs", end, "outro"]
    assert notetext.conflict_hunks(lines) == [ConflictHunk(1, 3, 5)]
    hunk = ConflictHunk(1, 3, 5)
    before = [typed] if "typed" in start else []
    between = [typed] if "typed" in middle else []
    after = [typed] if "typed" in end else []
    assert notetext.resolve_hunk(lines, hunk, "mine") == [*before, "mine", *between, *after]
    assert notetext.resolve_hunk(lines, hunk, "theirs") == [*before, *between, "theirs", *after]
    assert notetext.resolve_hunk(lines, hunk, "both") == [*before, "mine", *between, "theirs", *after]
    # The save's check reads the same marker lines as the bar.
    assert notetext.markers_left(lines, ["intro", "outro"]) == [1, 5]


def test_what_is_typed_onto_a_marker_is_the_text_beside_it() -> None:
    assert notetext.typed_on_marker("<<<<<<< yours", notetext.MINE_MARKER) == ""
    assert notetext.typed_on_marker("<<<<<<< yours   ", notetext.MINE_MARKER) == ""
    assert notetext.typed_on_marker("a <<<<<<< yours b", notetext.MINE_MARKER) == "a b"
    assert notetext.typed_on_marker("a<<<<<<< yours b", notetext.MINE_MARKER) == "a b"
    assert notetext.typed_on_marker("go on <<<<<<< yours", notetext.MINE_MARKER) == "go on "
    assert notetext.typed_on_marker("  - item=======", notetext.MIDDLE_MARKER) == "  - item"
    assert notetext.typed_on_marker(">>>>>>> on disk，好的", notetext.THEIRS_MARKER) == "，好的"


def test_unresolved_hunks_are_the_ones_the_disk_lacks() -> None:
    hunk = ["<<<<<<< yours", "x", "=======", "y", ">>>>>>> on disk"]
    other = ["<<<<<<< yours", "p", "=======", "q", ">>>>>>> on disk"]
    saved = ["intro", *hunk]
    assert notetext.unresolved_hunks(["intro", *hunk], saved) == []
    assert notetext.unresolved_hunks(["intro", *hunk, *other], saved) == [ConflictHunk(6, 8, 10)]


def test_markers_left_finds_markers_typing_landed_around_and_spares_the_base_s_own() -> None:
    """The save's check: a marker with typing before or after it is still a marker
    (the exact-line hunk scan missed it and the markers were written); the marker
    lines the disk version already holds (a note about git) are the user's text."""
    base = ["# git", "<<<<<<< yours", "a", "=======", "b", ">>>>>>> on disk", "end"]
    merged = [*base[:-1], "typed<<<<<<< yours", "mine", "=======", "theirs", ">>>>>>> on disk typed", "end"]
    # git's hunk and memdesk's, typed around: both are hunks the bar can take.
    assert notetext.conflict_hunks(merged) == [ConflictHunk(1, 3, 5), ConflictHunk(6, 8, 10)]
    assert notetext.markers_left(merged, base) == [6, 10]
    resolved = [*base[:-1], "mine", "theirs", "end"]
    assert notetext.markers_left(resolved, base) == []
    assert notetext.markers_left(base, base) == []
