"""Setting importance where OpenClaw reads it: at the end of a curated line."""

from __future__ import annotations

import pytest

from memdesk.core.agent import annotate


def test_set_replace_and_remove_on_a_line() -> None:
    line = "- Lin Wei prefers tea. <!-- project: atlas -->"
    marked = annotate.set_line_importance(line, 7)
    assert marked == "- Lin Wei prefers tea. <!-- project: atlas --> <!-- importance: 7 -->"
    assert annotate.set_line_importance(marked, 3).endswith("<!-- importance: 3 -->")
    assert annotate.set_line_importance(marked, 3).count("importance") == 1
    assert annotate.set_line_importance(marked, None) == line
    assert [kind for _s, _e, kind, _v in annotate.annotation_spans(marked)] == ["project", "importance"]
    with pytest.raises(ValueError, match="1 to 10"):
        annotate.set_line_importance(line, 11)


def test_range_skips_headings_and_blank_lines() -> None:
    text = "# People\n\n- A\n- B <!--importance:2-->\n"
    out = annotate.set_importance(text, 1, 5, 9)
    assert out == "# People\n\n- A <!-- importance: 9 -->\n- B <!-- importance: 9 -->\n"


def test_effect_only_in_curated_roots() -> None:
    assert annotate.importance_effect("MEMORY.md") is None
    assert annotate.importance_effect("./USER.md") is None
    assert "ignores it" in (annotate.importance_effect("memory/2026-11-20.md") or "")
