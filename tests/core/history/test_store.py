"""The version store: capture, dedup, timeline, content, previous, changes, at, badge."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memdesk.core import paths
from memdesk.core.history import History, open_history

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    return root


@pytest.fixture
def history(workspace: Path) -> Iterator[History]:
    store = open_history(workspace)
    yield store
    store.close()


def test_the_store_lives_in_the_data_dir_never_in_the_workspace(workspace: Path, history: History) -> None:
    history.capture("MEMORY.md", b"# Memory\n", source="disk")
    assert history.path.is_file()
    assert paths.data_dir() in history.path.parents
    assert not any(p for p in workspace.rglob("*") if p.is_file())


def test_capture_keeps_time_size_source_and_exact_bytes(history: History) -> None:
    data = "café\r\nno final newline".encode()
    version = history.capture("memory/a.md", data, source="memdesk", at=T0)
    assert version is not None
    assert (version.note, version.at, version.source, version.size) == (
        "memory/a.md",
        T0,
        "memdesk",
        len(data),
    )
    assert version.digest is not None and len(version.digest) == 64
    assert history.content(version) == data


def test_the_same_content_again_is_not_a_new_version(history: History) -> None:
    """A memdesk save followed by the sync that sees the file it wrote: one version."""
    assert history.capture("MEMORY.md", b"v1\n", source="memdesk", at=T0) is not None
    assert history.capture("MEMORY.md", b"v1\n", source="disk", at=T0 + timedelta(seconds=1)) is None
    assert [v.source for v in history.timeline("MEMORY.md", git=False)] == ["memdesk"]
    # Back to earlier content after a change is a version again (its blob is shared).
    history.capture("MEMORY.md", b"v2\n", source="disk", at=T0 + timedelta(minutes=1))
    again = history.capture("MEMORY.md", b"v1\n", source="disk", at=T0 + timedelta(minutes=2))
    assert again is not None and history.content(again) == b"v1\n"
    assert len(history.timeline("MEMORY.md", git=False)) == 3


def test_timeline_newest_first_and_previous_walks_back(history: History) -> None:
    for i in range(5):
        history.capture("MEMORY.md", f"v{i}\n".encode(), source="disk", at=T0 + timedelta(hours=i))
    timeline = history.timeline("MEMORY.md", git=False)
    assert [history.content(v) for v in timeline] == [f"v{i}\n".encode() for i in reversed(range(5))]
    before = history.previous(timeline[0])
    assert before == timeline[1]
    assert history.previous(timeline[-1]) is None


def test_many_versions_of_a_large_note_read_back_exactly(history: History) -> None:
    """Deltas chain versions together: every one must still decompress to its bytes."""
    base = "".join(f"line {n}: some remembered fact about the project\n" for n in range(2000))
    texts = []
    for i in range(150):
        text = base.replace(f"line {i * 7}:", f"line {i * 7} (edited {i}):") + f"appended {i}\n"
        texts.append(text.encode())
        base = text
        history.capture("MEMORY.md", texts[-1], source="disk", at=T0 + timedelta(minutes=i))
    history._blobs.cache.clear()  # read from the file, not from memory
    timeline = history.timeline("MEMORY.md", git=False)
    assert [history.content(v) for v in reversed(timeline)] == texts


def test_changes_in_a_period_oldest_first(history: History) -> None:
    for i in range(6):
        history.capture(f"memory/{i % 2}.md", f"{i}\n".encode(), source="disk", at=T0 + timedelta(days=i))
    found = history.changes(T0 + timedelta(days=1), T0 + timedelta(days=4))
    assert [(v.note, v.at) for v in found] == [
        ("memory/1.md", T0 + timedelta(days=1)),
        ("memory/0.md", T0 + timedelta(days=2)),
        ("memory/1.md", T0 + timedelta(days=3)),
    ]


def test_at_gives_each_notes_version_of_that_moment(history: History) -> None:
    history.capture("MEMORY.md", b"march\n", source="disk", at=T0)
    history.capture("memory/gone.md", b"short-lived\n", source="disk", at=T0)
    history.capture("MEMORY.md", b"april\n", source="disk", at=T0 + timedelta(days=31))
    history.capture("memory/gone.md", None, source="deleted", at=T0 + timedelta(days=10))
    history.capture("memory/new.md", b"later\n", source="mcp", at=T0 + timedelta(days=40))

    def contents(when: datetime) -> dict[str, bytes | None]:
        return {note: history.content(v) for note, v in history.at(when).items()}

    assert contents(T0 - timedelta(seconds=1)) == {}
    assert contents(T0 + timedelta(days=5)) == {"MEMORY.md": b"march\n", "memory/gone.md": b"short-lived\n"}
    assert contents(T0 + timedelta(days=35)) == {"MEMORY.md": b"april\n"}
    assert contents(T0 + timedelta(days=50)) == {"MEMORY.md": b"april\n", "memory/new.md": b"later\n"}


def test_content_not_kept_has_a_reason_and_dedups_on_its_digest(history: History) -> None:
    binary = bytes(range(256)) * 4
    version = history.capture("memory/pic.md", binary, source="disk", reason="binary", at=T0)
    assert version is not None
    assert (version.digest, version.reason, version.size) == (None, "binary", 1024)
    assert history.content(version) is None
    assert history.capture("memory/pic.md", binary, source="disk", reason="binary") is None
    assert history.capture("memory/pic.md", binary[::-1], source="disk", reason="binary") is not None
    huge = history.capture("memory/big.md", None, source="disk", reason="too large: 12 MB", size=12_000_000)
    assert huge is not None and huge.size == 12_000_000 and huge.digest is None


def test_a_deleted_note_is_a_version_and_can_come_back(history: History) -> None:
    history.capture("memory/a.md", b"a\n", source="disk", at=T0)
    gone = history.capture("memory/a.md", None, source="deleted", at=T0 + timedelta(hours=1))
    assert gone is not None and gone.source == "deleted" and gone.reason == "deleted"
    assert history.capture("memory/a.md", None, source="deleted") is None
    back = history.capture("memory/a.md", b"a\n", source="memdesk", at=T0 + timedelta(hours=2))
    assert back is not None


def test_unseen_agent_changes_until_the_user_looks(history: History) -> None:
    history.take_baseline([("MEMORY.md", b"start\n", None, 6), ("memory/x.md", b"x\n", None, 2)])
    assert history.unseen_agent_changes() == set()
    history.capture("MEMORY.md", b"rewritten by dreaming\n", source="disk")
    history.capture("memory/x.md", b"my own edit\n", source="memdesk")
    assert history.unseen_agent_changes() == {"MEMORY.md"}
    history.mark_seen("MEMORY.md")
    assert history.unseen_agent_changes() == set()
    history.capture("memory/x.md", b"appended\n", source="mcp")
    assert history.unseen_agent_changes() == {"memory/x.md"}


def test_baseline_is_taken_once_and_left_out_of_changes(history: History) -> None:
    assert history.needs_baseline()
    assert history.take_baseline([("MEMORY.md", b"m\n", None, 2), ("memory/b.bin", None, "binary", 9)]) == 2
    assert not history.needs_baseline()
    assert [v.source for v in history.timeline("MEMORY.md", git=False)] == ["baseline"]
    assert history.changes(T0) == []


def test_an_unknown_source_is_refused(history: History) -> None:
    with pytest.raises(ValueError):
        history.capture("MEMORY.md", b"x", source="agent")


def test_a_second_opening_sees_the_first_ones_versions(workspace: Path, history: History) -> None:
    history.capture("MEMORY.md", b"kept\n", source="memdesk", at=T0)
    with open_history(workspace) as other:
        (version,) = other.timeline("MEMORY.md", git=False)
        assert other.content(version) == b"kept\n"


def test_each_version_carries_its_line_counts_against_the_one_before(history: History) -> None:
    first = history.capture("MEMORY.md", b"# M\n\n- a\n- b\n", source="disk", at=T0)
    second = history.capture(
        "MEMORY.md", b"# M\n\n- a\n- B\n- c\n", source="disk", at=T0 + timedelta(hours=1)
    )
    gone = history.capture("MEMORY.md", None, source="deleted", at=T0 + timedelta(hours=2))
    binary = history.capture("memory/x.md", b"\x00\x01", source="disk", reason="binary")
    assert first is not None and second is not None and gone is not None and binary is not None
    assert (first.added, first.removed) == (3, 0)
    assert (second.added, second.removed) == (2, 1)
    assert (gone.added, gone.removed) == (0, 4)
    assert (binary.added, binary.removed) == (None, None)
    assert history.timeline("MEMORY.md", git=False)[1] == second
