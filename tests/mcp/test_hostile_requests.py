"""Hostile arguments to the MCP tools: each is refused with one line naming the note and
the problem (a ``MemdeskError``, the server's tool error), and nothing is written that
memdesk could not read back."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.core import errors
from memdesk.mcp.tools import MemoryTools


@pytest.fixture
def tools(example_workspace: Path, memdesk_home: Path) -> MemoryTools:
    tools = MemoryTools(example_workspace, model="none", allow_write=True, sync_on_start=False)
    yield tools  # type: ignore[misc]
    tools.close()


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("memory/\x00.md", "NUL"),
        ("MEMORY.md\x00.txt", "NUL"),
        ("a" * 5000, "too long"),
        ("memory/" + "b" * 300 + ".md", "too long"),
    ],
)
def test_get_of_a_path_no_file_can_have_is_one_line_naming_it(
    tools: MemoryTools, path: str, problem: str
) -> None:
    with pytest.raises(errors.MemdeskError) as refused:
        tools.memory_get(path)
    line = str(refused.value)
    assert "\n" not in line and problem in line and path.replace("\x00", "\\x00")[:40] in line


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("memory/\x00.md", "NUL"),
        ("memory/a\nb.md", "control character"),
        ("memory/tab\there.md", "control character"),
        ("memory/" + "c" * 300 + ".md", "too long"),
    ],
)
def test_append_to_a_path_no_note_should_have_is_refused_and_creates_nothing(
    tools: MemoryTools, example_workspace: Path, path: str, problem: str
) -> None:
    before = sorted(p.name for p in (example_workspace / "memory").iterdir())
    with pytest.raises(errors.MemdeskError) as refused:
        tools.memory_append("- a line", path)
    assert "\n" not in str(refused.value) and problem in str(refused.value)
    assert sorted(p.name for p in (example_workspace / "memory").iterdir()) == before


def test_append_of_text_with_nul_bytes_leaves_the_note_readable(
    tools: MemoryTools, example_workspace: Path
) -> None:
    """A NUL in the text made the whole note look binary: memdesk stopped indexing it
    and memory_get refused it. Refused instead; the note keeps its bytes."""
    note = example_workspace / "memory" / "2026-05-01.md"
    before = note.read_bytes()
    with pytest.raises(errors.MemdeskError, match="NUL"):
        tools.memory_append("a\x00b", "memory/2026-05-01.md")
    assert note.read_bytes() == before
    assert tools.memory_get("memory/2026-05-01.md")["text"] == before.decode("utf-8")


def test_search_as_of_the_first_day_or_no_day(tools: MemoryTools) -> None:
    """Year 1 has no local time (``astimezone`` raised ValueError out of the tool):
    memory as it was then is empty. An empty day is one line, not an AssertionError."""
    assert tools.memory_search_as_of("Atlas", "0001-01-01")["results"] == []
    with pytest.raises(errors.MemdeskError) as refused:
        tools.memory_search_as_of("Atlas", "")
    assert "\n" not in str(refused.value) and "day" in str(refused.value)
