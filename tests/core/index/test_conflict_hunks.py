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


def test_only_complete_hunks_with_the_exact_markers_count() -> None:
    lines = [
        "Title",
        "=======",  # a Markdown heading's underline, not a middle marker
        "<<<<<<< yours",
        "half a hunk: its middle marker was edited away",
        ">>>>>>> on disk",
        "<<<<<<< yours",
        "x",
        "=======",
        "y",
        ">>>>>>> on disk",
        "<<<<<<< yours  ",  # not the exact marker
        "=======",
        ">>>>>>> on disk",
    ]
    assert notetext.conflict_hunks(lines) == [ConflictHunk(5, 7, 9)]


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
    assert notetext.conflict_hunks(merged) == [ConflictHunk(1, 3, 5)]  # the exact scan: only git's
    assert notetext.markers_left(merged, base) == [6, 10]
    resolved = [*base[:-1], "mine", "theirs", "end"]
    assert notetext.markers_left(resolved, base) == []
    assert notetext.markers_left(base, base) == []
