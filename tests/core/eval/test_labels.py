"""Golden labels count as ticked, and stay anchored to their text across edits."""

from __future__ import annotations

from pathlib import Path

from memdesk.core.eval import anchors
from memdesk.core.eval import golden as eval_golden
from memdesk.core.search.hits import Hit


def _hit(path: str, start: int, end: int, rank: int = 1) -> Hit:
    return Hit(
        rank=rank,
        chunk_id=f"{path}:{start}",
        path=path,
        source="memory",
        start_line=start,
        end_line=end,
        snippet="",
        text="",
        vector_score=None,
        text_score=0.5,
        merged_score=0.5,
        decay=1.0,
        score=0.5,
        pre_mmr_rank=rank,
        mmr_rank=None,
        date=None,
    )


def test_overlapping_ticked_chunks_count_separately() -> None:
    """Two ticked chunks of one note that overlap are two relevant items, both found."""
    a, b = _hit("n.md", 1, 20, 1), _hit("n.md", 15, 35, 2)
    labels = [eval_golden.Relevant("n.md", 1, 20), eval_golden.Relevant("n.md", 15, 35)]
    assert eval_golden.assign_labels([a, b], labels) == labels
    # Ranked the other way round, each chunk still takes its own label.
    assert eval_golden.assign_labels([b, a], labels) == labels[::-1]


def test_an_overlap_claims_only_an_unclaimed_label() -> None:
    """A chunk overlapping a label that its own chunk already claimed counts as nothing;
    a whole-file label goes to the best-ranked chunk of the file only."""
    a, b = _hit("n.md", 1, 20, 1), _hit("n.md", 15, 35, 2)
    label = eval_golden.Relevant("n.md", 1, 20)
    assert eval_golden.assign_labels([b, a], [label]) == [None, label]
    whole = eval_golden.Relevant("n.md")
    assert eval_golden.assign_labels([a, b], [whole]) == [whole, None]


def test_a_hit_over_two_labels_counts_as_the_one_still_unclaimed() -> None:
    """Rank 1 overlaps only the first evidence line, rank 2 both: rank 2 finds the second.

    (Counting each hit as the first label it overlaps would lose the second one.)"""
    first, second = eval_golden.Relevant("n.md", 3, 3), eval_golden.Relevant("n.md", 9, 9)
    hits = [_hit("n.md", 1, 5, 1), _hit("n.md", 2, 12, 2)]
    scores = eval_golden.score_hits(hits, [first, second])
    assert scores.recall5 == 1.0
    assert scores.ndcg10 == 1.0
    assert eval_golden.score_hits(hits[1:], [first, second]).recall5 == 0.5


def test_golden_file_keeps_anchors(tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    query = eval_golden.GoldenQuery("q", (eval_golden.Relevant("n.md", 2, 3),), (("n.md#L2-L3", "abc"),))
    eval_golden.save_golden(path, [query])
    assert eval_golden.load_golden(path) == [query]


def test_reanchor_follows_moved_lines_and_reports_lost_ones() -> None:
    lines = ["# t", "alpha", "beta", "gamma"]
    anchor = anchors.anchor_of(lines, 2, 3)
    assert anchors.reanchor(2, 3, anchor, "\n".join(lines)) == anchors.Reanchored(2, 3, False)
    moved = "\n".join(["# t", "new", "lines", "alpha", "beta", "gamma"])
    assert anchors.reanchor(2, 3, anchor, moved) == anchors.Reanchored(4, 5, True)
    twice = "\n".join(["alpha", "beta", "x", "x", "x", "alpha", "beta"])
    assert anchors.reanchor(5, 6, anchor, twice).start == 6  # the nearer copy wins
    lost = anchors.reanchor(2, 3, anchor, "# t\nalpha\nBETA changed\n")
    assert lost.lost and lost.start is None


def test_label_of_a_chunk_that_ends_on_the_final_newline_is_not_lost() -> None:
    """A chunk's range counts the empty line after a note's last newline (the chunker splits
    on "\\n"), one more than the note's ``splitlines()``: that label is where it was, not lost,
    and follows its text when lines are added above."""
    text = "# t\nalpha\nbeta\n"
    anchor = anchors.anchor_of(text.splitlines(), 1, 4)
    assert anchors.reanchor(1, 4, anchor, text) == anchors.Reanchored(1, 4, False)
    assert anchors.reanchor(1, 4, anchor, "new first line\n" + text) == anchors.Reanchored(2, 5, True)
    assert anchors.reanchor(1, 4, anchor, "# t\nalpha\nBETA\n").lost
