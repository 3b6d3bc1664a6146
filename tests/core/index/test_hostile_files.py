"""Hostile files never stop indexing: odd names, emoji at chunk cuts, FIFOs, deep trees.

Each of these once made a whole workspace un-indexable (one bad note failed every
batch) or hung ``memdesk index``; the rest of the notes must always get indexed,
and every note left out is listed with its reason.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from memdesk.core import engine
from memdesk.core.index import workspace
from memdesk.core.openclaw import chunking
from memdesk.core.openclaw import text as oc_text
from memdesk.core.search.settings import SearchSettings

GOOD = {
    "MEMORY.md": "# Memory\n\nLin Wei prefers green tea.\n",
    "memory/2026-05-01.md": "# 2026-05-01\n\nThe harbor deploy moved to Fridays.\n",
}


def _workspace(root: Path) -> Path:
    for rel, text in GOOD.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _stored_chunks(db_path: Path) -> list[tuple[str, int, int, str, str]]:
    conn = apsw.Connection(str(db_path), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [
            (str(p), int(s), int(e), str(h), str(t))
            for p, s, e, h, t in conn.execute(
                "SELECT path, start_line, end_line, hash, text FROM chunks ORDER BY path, start_line, rid"
            )
        ]
    finally:
        conn.close()


# File names as raw bytes: anything but "/" and NUL, ending in ".md".
_NAMES = (
    st.binary(min_size=1, max_size=40)
    .map(lambda b: b.replace(b"/", b"_").replace(b"\x00", b"_") + b".md")
    .filter(lambda b: b not in (b".md", b"..md") and not b.startswith(b"2026-05-01"))
)


@hyp_settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(_NAMES, min_size=1, max_size=4, unique=True))
def test_file_names_with_arbitrary_bytes_never_block_indexing(
    tmp_path_factory: pytest.TempPathFactory, names: list[bytes]
) -> None:
    """Every note with a UTF-8 name is indexed whatever the others are called; the rest
    are listed as skipped, their names escaped as valid text."""
    root = _workspace(tmp_path_factory.mktemp("ws"))
    for raw in names:
        with open(os.path.join(os.fsencode(root / "memory"), raw), "wb") as handle:
            handle.write(b"quokka sighting\n")
    eng = engine.Engine.open(root, model=None)
    try:
        report = eng.sync()
        status = eng.status()
        hits = eng.search("quokka", SearchSettings.defaults("memdesk").replace(max_results=50)).hits
    finally:
        eng.close()
    valid = [n for n in names if _is_utf8(n)]
    assert report.files == len(GOOD) + len(valid)
    assert status.files == len(GOOD) + len(valid)
    assert len({h.path for h in hits}) == len(valid)
    bad = [s for s in status.skipped if "not valid UTF-8" in s.reason]
    assert len(bad) == len(names) - len(valid)
    for item in status.skipped:
        (item.path + item.reason).encode("utf-8")  # printable, never lone surrogates


_ASTRAL = st.sampled_from(["🎉", "😀", "𝄞", "𠀋", "🇩🇪"])


@hyp_settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cut=st.sampled_from([1600, 3200]),
    shift=st.integers(min_value=-3, max_value=2),
    emoji=_ASTRAL,
    tail=st.text(alphabet="ab 🎉\n", max_size=30),
)
def test_surrogate_pair_at_every_chunk_cut_is_stored_as_valid_text(
    tmp_path_factory: pytest.TempPathFactory, cut: int, shift: int, emoji: str, tail: str
) -> None:
    """An emoji across OpenClaw's chunk cut (every 1,600 UTF-16 units of a long line)
    blocks nothing: boundaries, line ranges and hashes stay OpenClaw's, the stored
    text is valid (a split half becomes U+FFFD, as OpenClaw's encoder stores it)."""
    root = _workspace(tmp_path_factory.mktemp("ws"))
    text = "x" * (cut + shift) + emoji + tail + "\n"
    (root / "memory" / "emoji.md").write_text(text, encoding="utf-8")
    eng = engine.Engine.open(root, model=None)
    try:
        report = eng.sync()
    finally:
        eng.close()
    assert report.failures == () and report.files == len(GOOD) + 1
    expected = chunking.filter_non_empty_chunks(chunking.chunk_markdown(text))
    stored = [c for c in _stored_chunks(eng.db_path) if c[0] == "memory/emoji.md"]
    assert [(s, e, h) for _, s, e, h, _ in stored] == [(c.start_line, c.end_line, c.hash) for c in expected]
    for (*_, body), chunk in zip(stored, expected, strict=True):
        assert oc_text.is_well_formed(body)
        assert body == oc_text.to_well_formed(chunk.text)
        assert oc_text.hash_text(body) == chunk.hash


def test_note_replaced_by_a_fifo_after_discovery_does_not_hang(tmp_path: Path) -> None:
    """A note swapped for a FIFO between listing and reading is skipped, not read forever."""
    root = _workspace(tmp_path / "ws")
    victim = root / "memory" / "2026-05-01.md"
    rescued = threading.Event()

    def swap(progress: engine.SyncProgress) -> None:
        if progress.phase == "scan" and victim.is_file():
            victim.unlink()
            os.mkfifo(victim)

            def rescue() -> None:  # unblocks a blocking reader so a failure cannot hang the suite
                if not done.wait(10):
                    rescued.set()
                    with open(victim, "wb"):
                        pass

            threading.Thread(target=rescue, daemon=True).start()

    done = threading.Event()
    eng = engine.Engine.open(root, model=None)
    try:
        report = eng.sync(progress=swap)
    finally:
        done.set()
        eng.close()
    assert not rescued.is_set(), "sync blocked reading the FIFO"
    assert [(f.path, f.reason) for f in report.failures] == [
        ("memory/2026-05-01.md", "cannot read: not a regular file (a FIFO)")
    ]
    assert report.files == 1  # MEMORY.md; the FIFO is not indexed


def test_fifo_and_symlinks_are_listed_with_reasons(tmp_path: Path) -> None:
    """status names every path discovery passed over, and why."""
    root = _workspace(tmp_path / "ws")
    os.mkfifo(root / "memory" / "pipe.md")
    os.symlink(root / "MEMORY.md", root / "memory" / "link.md")
    (root / "memory" / "utf16.md").write_bytes("# note\n".encode("utf-16"))
    eng = engine.Engine.open(root, model=None)
    try:
        eng.sync()
        status = eng.status()
    finally:
        eng.close()
    reasons = {s.path: s.reason for s in (*status.skipped, *status.failures)}
    assert reasons["memory/pipe.md"] == "not a regular file (a FIFO)"
    assert "symlink" in reasons["memory/link.md"]
    assert "UTF-16" in reasons["memory/utf16.md"]

    linked = _workspace(tmp_path / "linked")
    other = tmp_path / "elsewhere"
    (linked / "memory").rename(other)
    os.symlink(other, linked / "memory")
    eng = engine.Engine.open(linked, model=None)
    try:
        status = eng.status()
    finally:
        eng.close()
    assert [(s.path, "symlink" in s.reason) for s in status.skipped] == [("memory/", True)]


def _remove_deep(folder: Path, name: str) -> None:
    """Delete a chain made by ``_deep`` bottom-up (pytest's recursive rmtree of old temp
    dirs would hit the recursion limit on it)."""
    fds = [os.open(folder, os.O_RDONLY)]
    try:
        while True:
            try:
                fds.append(os.open(name, os.O_RDONLY, dir_fd=fds[-1]))
            except FileNotFoundError:
                break
        for child in (*os.listdir(fds[-1]),):
            os.unlink(child, dir_fd=fds[-1])
        while len(fds) > 1:
            os.close(fds.pop())
            for child in os.listdir(fds[-1]):
                if child != name:
                    os.unlink(child, dir_fd=fds[-1])
            os.rmdir(name, dir_fd=fds[-1])
    finally:
        for fd in fds:
            os.close(fd)


@pytest.fixture
def deep_trees() -> Iterator[list[tuple[Path, str]]]:
    made: list[tuple[Path, str]] = []
    yield made
    for folder, name in made:
        _remove_deep(folder, name)


def _deep(root: Path, levels: int, name: str) -> Path:
    folder = root / "memory"
    # Created relative to an open folder: the full path may be longer than PATH_MAX.
    fd = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
        note = os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(note, b"the deepest quokka\n")
        os.close(note)
    finally:
        os.close(fd)
    return folder


def test_nesting_deeper_than_the_recursion_limit(tmp_path: Path, deep_trees: list[tuple[Path, str]]) -> None:
    """1,100 nested folders: index and status work and find the deepest note."""
    root = _workspace(tmp_path / "ws")
    deep_trees.append((_deep(root, 1100, "d"), "d"))
    eng = engine.Engine.open(root, model=None)
    try:
        report = eng.sync()
        status = eng.status()
        hits = eng.search("deepest quokka", SearchSettings()).hits
    finally:
        eng.close()
    assert report.files == 3 and status.files == 3 and status.dirty_files == ()
    assert hits and hits[0].path.endswith("/d/deep.md")


def test_folder_past_path_max_is_listed_as_unreadable(
    tmp_path: Path, deep_trees: list[tuple[Path, str]]
) -> None:
    """A folder whose path is too long to open is skipped with the system's reason."""
    root = _workspace(tmp_path / "ws")
    deep_trees.append((_deep(root, 40, "n" * 120), "n" * 120))  # ~4,800 bytes: past PATH_MAX
    scan = workspace.scan_memory_files(root)
    assert [workspace.rel_path(root, p) for p in scan.files] == list(GOOD)
    assert len(scan.skipped) == 1 and "File name too long" in scan.skipped[0].reason
