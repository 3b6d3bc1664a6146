"""GoldenSet: the tuning lab's labels: load, tick/untick, atomic save, unreadable files, anchors."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.core import errors
from memdesk.core.eval import golden as eval_golden
from memdesk.core.eval.golden import GoldenSet, Relevant


def test_ticks_are_saved_and_reloaded(tmp_path: Path) -> None:
    path = tmp_path / eval_golden.GOLDEN_REL
    gs = GoldenSet(path)
    gs.load()
    assert len(gs) == 0 and gs.writable and not path.exists()
    a, b = Relevant("memory/a.md", 1, 5), Relevant("memory/b.md")
    assert gs.set_relevant("  auth plan ", a, True)
    assert not gs.set_relevant("auth plan", a, True)  # already ticked: nothing to change
    assert gs.set_relevant("auth plan", b, True)
    assert gs.set_relevant("deploy", b, True)
    assert not gs.set_relevant("   ", b, True)  # a blank query is no query
    again = GoldenSet(path)
    again.load()
    assert again.relevant_for("auth plan") == (a, b) and again.item_count == 3
    assert [q.query for q in again.queries] == ["auth plan", "deploy"]
    assert again.set_relevant("auth plan", a, False) and again.set_relevant("auth plan", b, False)
    assert [q.query for q in eval_golden.load_golden(path)] == ["deploy"]
    # The save is atomic: no temporary file is left beside the set.
    assert sorted(p.name for p in path.parent.iterdir()) == ["golden.jsonl"]


def test_an_unreadable_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    path.write_text('{"query": "x", "relevant": ["memory/a.md"]}\nnot json\n', encoding="utf-8")
    gs = GoldenSet(path)
    with pytest.raises(errors.EvalError, match=r"golden.jsonl:2: expected .*JSONDecodeError"):
        gs.load()
    assert not gs.writable
    with pytest.raises(errors.EvalError, match="could not be read"):
        gs.set_relevant("x", Relevant("memory/b.md"), True)
    assert path.read_text(encoding="utf-8").endswith("not json\n")


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "huge"])
def test_a_fifo_device_or_huge_set_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    """A golden set that is a FIFO (no writer), a link to /dev/zero or bigger than any
    set of labels: one error naming the file, at once (the lab and ``memdesk eval``
    hung on the first two, and read the whole of the third), and it stays unwritable."""
    import os
    import time

    path = tmp_path / "golden.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")
    else:
        with path.open("wb") as handle:
            handle.truncate(eval_golden.MAX_GOLDEN_BYTES + 1)
    gs = GoldenSet(path)
    t0 = time.monotonic()
    with pytest.raises(
        errors.EvalError, match=r"golden\.jsonl: cannot read golden file \((not a regular|[\d,]+ bytes)"
    ):
        gs.load()
    assert time.monotonic() - t0 < 5
    assert not gs.writable


def test_a_line_nested_thousands_deep_is_one_error_naming_its_line(tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    path.write_bytes(b'{"query": "x", "relevant": ["MEMORY.md"]}\n' + b"[" * 100_000 + b"]" * 100_000 + b"\n")
    with pytest.raises(errors.EvalError, match=r"golden\.jsonl:2: expected"):
        GoldenSet(path).load()


def test_a_failed_save_leaves_the_set_unchanged(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    gs = GoldenSet(blocker / "golden.jsonl")  # its folder is a file: writing fails
    gs.load()
    with pytest.raises(OSError):
        gs.set_relevant("q", Relevant("memory/a.md"), True)
    assert len(gs) == 0


def test_a_ticked_range_follows_its_lines(tmp_path: Path) -> None:
    note = tmp_path / "memory" / "a.md"
    note.parent.mkdir()
    note.write_text("# A\n\nthe auth token rotates daily\n", encoding="utf-8")
    gs = GoldenSet(tmp_path / eval_golden.GOLDEN_REL, root=tmp_path)
    gs.load()
    label = Relevant("memory/a.md", 3, 3)
    assert gs.set_relevant("auth", label, True) and gs.anchor_for(label)
    note.write_text("# A\n\nintro\nmore intro\n\nthe auth token rotates daily\n", encoding="utf-8")
    assert gs.reanchor()
    assert gs.relevant_for("auth") == (Relevant("memory/a.md", 6, 6),) and gs.lost == ()
    reloaded = GoldenSet(tmp_path / eval_golden.GOLDEN_REL, root=tmp_path)
    reloaded.load()
    assert reloaded.relevant_for("auth") == (Relevant("memory/a.md", 6, 6),)
    note.write_text("# A\n\nsomething else entirely\n", encoding="utf-8")
    assert not reloaded.reanchor()
    assert reloaded.lost == (("auth", Relevant("memory/a.md", 6, 6)),)


def test_queries_are_keyed_without_surrounding_blanks() -> None:
    assert eval_golden.query_key("  q  ") == "q"
