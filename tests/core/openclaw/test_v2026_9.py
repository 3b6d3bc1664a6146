"""Unit tests of the OpenClaw 2026.9 port's rules (the fixture test checks the whole pipeline)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from memdesk.core.openclaw import v2026_9 as v

NOW = 1_796_083_200_000  # 2026-12-01T00:00:00Z


def test_weighted_size_counts_cjk_buckets_on_top_of_utf16_length() -> None:
    assert v.estimate_string_chars("abc") == 3
    assert v.estimate_string_chars("鉴权") == 2 + 2 * 3  # common CJK weighs 4
    assert v.estimate_string_chars("·") == 4  # U+00B7 is in the common bucket too
    assert v.estimate_string_chars("\U00020000") == 2 + 14  # supplementary ideograph weighs 16
    assert v.estimate_string_chars("é") == 1  # accented Latin is not weighted


def test_curated_root_is_chunked_per_entry_with_entry_spans() -> None:
    text = "# Title\nintro\n- one\n  more\n- two\n## Section\nbody"
    chunks = v.chunk_markdown(text, per_entry=True)
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 2), (3, 4), (5, 5), (6, 7)]
    assert [(c.entry_start, c.entry_end) for c in chunks] == [(None, None), (3, 4), (5, 5), (None, None)]
    assert [(c.start_line, c.end_line) for c in v.chunk_markdown(text)] == [(1, 7)]


def test_overlap_carries_the_tail_of_a_long_line() -> None:
    line = "x" * 1500
    chunks = v.chunk_markdown(f"{line}\n{line}", tokens=400, overlap=80)
    assert len(chunks) == 2
    # The second chunk starts with the last (overlap) characters of line 1, not the whole line.
    assert chunks[1].start_line == 1 and chunks[1].text.startswith("x") and len(chunks[1].text) < 1500 + 400


def test_annotation_carriers_are_stripped_only_when_closed_on_their_line() -> None:
    assert v.strip_annotation_carriers("- fact <!-- importance: 9 -->\nnext") == "- fact\nnext"
    assert v.strip_annotation_carriers("a <!-- project: x\n--> b") == "a <!-- project: x\n--> b"
    assert v.strip_annotation_carriers("<!-- other: 1 --> kept") == "<!-- other: 1 --> kept"


def test_importance_is_read_from_curated_roots_on_lines_ending_with_the_carrier() -> None:
    lines = ["- fact <!-- importance: 9 -->", "- <!-- importance: 3 --> not at end"]
    assert v.extract_recall_metadata(lines, curated_root=True, project_scope_eligible=True).importance == 9
    assert (
        v.extract_recall_metadata(lines, curated_root=False, project_scope_eligible=True).importance is None
    )
    bad = ["- x <!-- importance: 11 -->", "- y <!-- importance: high -->"]
    assert v.extract_recall_metadata(bad, curated_root=True, project_scope_eligible=True).importance is None


def test_project_keys_and_malformed_annotations() -> None:
    meta = v.extract_recall_metadata(
        ["<!-- project: Atlas/Core; harbor -->"], curated_root=False, project_scope_eligible=True
    )
    assert meta.project_key == "atlas/Core; harbor"
    broken = v.extract_recall_metadata(
        ["<!-- project: a;; -->"], curated_root=False, project_scope_eligible=True
    )
    assert broken.project_key == v.INVALID_PROJECT_KEY
    assert (
        v.extract_recall_metadata(
            ["<!-- project: a -->"], curated_root=True, project_scope_eligible=False
        ).project_key
        is None
    )


def test_multipliers() -> None:
    assert v.importance_multiplier(None) == 1
    assert v.importance_multiplier(1) == pytest.approx(0.8)
    assert v.importance_multiplier(10) == pytest.approx(1.25)
    assert v.importance_multiplier(99) == pytest.approx(1.25)
    active = frozenset({"atlas"})
    assert v.project_multiplier("atlas", active) == 1.15
    assert v.project_multiplier("atlas; ferry", active) == 0.9
    assert v.project_multiplier("atlas", None) == 1
    assert v.project_multiplier(None, active) == 1


@pytest.mark.parametrize(
    ("path", "dated"),
    [
        ("memory/2026-11-01.md", True),
        ("memory/2026-11/2026-11-01.md", True),
        ("memory/daily/2026-11-01-standup.md", True),
        ("notes/memory/2026-11-01.md", True),
        ("memory/2026-02-30.md", False),
        ("memory/topics/atlas.md", False),
        ("MEMORY.md", False),
    ],
)
def test_dated_paths_decay_at_any_depth(path: str, dated: bool) -> None:
    mult = v.decay_multiplier(path, NOW)
    if dated:
        assert mult < 1
    else:
        assert mult == 1
    if path == "memory/2026-11-01.md":
        assert mult == pytest.approx(math.exp(-math.log(2) / 30 * 30))


def test_mmr_compares_empty_token_snippets_by_text() -> None:
    a = v.Result("a.md", 1, 1, 0.9, "Привет")
    b = v.Result("b.md", 1, 1, 0.8, "Привет")
    c = v.Result("c.md", 1, 1, 0.79, "hello world")
    order = [r.path for r in v.mmr_rerank([a, b, c])]
    assert order == ["a.md", "c.md", "b.md"]  # the identical Cyrillic snippet is the duplicate


def test_exact_path_tiers() -> None:
    match = v.exact_path_matcher("deploy-window.md")
    assert match("memory/topics/deploy-window.md") == 2
    assert v.exact_path_matcher("deploy-window")("memory/topics/deploy-window.md") == 1
    assert v.exact_path_matcher("memory/topics/deploy-window.md")("memory/topics/deploy-window.md") == 3
    assert v.exact_path_matcher("topics/deploy-window")("memory/topics/deploy-window.md") == 0


def test_index_lists_user_md_and_hides_malformed_project_entries(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text("# M\n- alpha fact <!-- importance: 10 -->\n", encoding="utf-8")
    (tmp_path / "USER.md").write_text("- alpha user\n", encoding="utf-8")
    (tmp_path / "memory" / "note.md").write_text("alpha hidden <!-- project: ;; -->\n", encoding="utf-8")
    index = v.Index(tmp_path)
    assert [c.path for c in index.chunks] == ["MEMORY.md", "MEMORY.md", "USER.md", "memory/note.md"]
    results = v.Searcher(index).search("alpha", now_ms=NOW, min_score=0)
    paths = [r.path for r in results]
    assert "memory/note.md" not in paths
    top = results[0]
    assert top.path == "MEMORY.md" and top.importance == 10 and top.importance_mult == pytest.approx(1.25)
