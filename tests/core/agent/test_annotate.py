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


@pytest.mark.parametrize(
    ("rel", "line", "ignored"),
    [
        ("MEMORY.md", "- tea <!-- importance: 8 -->", None),
        ("USER.md", "- tea <!-- trigger: tea, 茶 -->", None),
        ("memory/2026-11-20.md", "- tea <!-- importance: 8 -->", "only in MEMORY.md and USER.md"),
        ("MEMORY.md", "- tea <!-- importance: 8 --> later", "very end of a line"),
        ("MEMORY.md", "- tea <!-- importance: high -->", "whole number from 1 to 10"),
        ("MEMORY.md", "- tea <!-- importance: 11 -->", "whole number from 1 to 10"),
        ("memory/topics/atlas.md", "- ship it <!-- project: atlas; web -->", None),
        ("memory/topics/atlas.md", "- ship it <!-- project: -->", "hides these lines from every search"),
        ("memory/topics/atlas.md", "- ship it <!-- project: a<b -->", "hides these lines from every search"),
        ("USER.md", "- me <!-- project: atlas -->", "no project comments in USER.md"),
    ],
)
def test_ignored_annotation_says_why_as_2026_9_reads_it(rel: str, line: str, ignored: str | None) -> None:
    """What the editor strikes through, checked against 2026.9's own reading of the line."""
    from memdesk.core.openclaw import v2026_9

    ((_start, _end, kind, value),) = annotate.annotation_spans(line)
    why = annotate.ignored_annotation(rel, line, kind, value)
    assert (why is None) == (ignored is None) and (ignored is None or ignored in why)
    meta = v2026_9.extract_recall_metadata(
        [line], curated_root=rel in annotate.CURATED_ROOTS, project_scope_eligible=rel != "USER.md"
    )
    honoured = {
        "importance": meta.importance is not None,
        "trigger": meta.triggers is not None,
        "project": meta.project_key not in (None, v2026_9.INVALID_PROJECT_KEY),
    }[kind]
    assert honoured == (why is None)
