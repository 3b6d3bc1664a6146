"""The memory workspace on disk: which files count, reading them safely, saving atomically.

Discovery follows OpenClaw's ``listMemoryFiles``: ``MEMORY.md``, ``memory.md``,
``memory/**/*.md`` and extra paths; symlinks are skipped (which also rules out
symlink loops), tooling folders are ignored, and files reached twice are
de-duplicated by realpath, first occurrence winning.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from memdesk.core import errors

log = logging.getLogger(__name__)

IGNORED_DIRS = frozenset(
    {".git", "node_modules", ".pnpm-store", ".venv", "venv", ".tox", "__pycache__", ".memdesk"}
)
ROOT_FILES = ("MEMORY.md", "memory.md")
# Notes larger than this are skipped with a reason rather than chunked: a memory
# note of 10 MB is almost certainly a pasted log or a binary, and would stall indexing.
MAX_NOTE_BYTES = 10 * 1024 * 1024


def _walk_markdown(directory: Path) -> Iterator[Path]:
    """Regular ``*.md`` files under ``directory``, never following symlinks, sorted."""
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as exc:
        log.warning("cannot list %s: %s", directory, exc)
        return
    for entry in entries:
        try:
            if entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                if entry.name in IGNORED_DIRS:
                    continue
                yield from _walk_markdown(Path(entry.path))
            elif entry.is_file(follow_symlinks=False) and entry.name.endswith(".md"):
                yield Path(entry.path)
        except OSError:
            continue


def list_memory_files(root: Path, extra_paths: Sequence[Path | str] = ()) -> list[Path]:
    """Every memory note of the workspace at ``root``, as absolute paths, de-duplicated."""
    root = Path(root)
    found: list[Path] = []
    for name in ROOT_FILES:
        path = root / name
        if path.is_file() and not path.is_symlink():
            found.append(path)
    memory_dir = root / "memory"
    if memory_dir.is_dir() and not memory_dir.is_symlink():
        found.extend(_walk_markdown(memory_dir))
    seen_extra: set[str] = set()
    for raw in extra_paths:
        text = str(raw).strip()
        if not text:
            continue
        extra = Path(text) if os.path.isabs(text) else root / text
        key = os.path.normpath(extra)
        if key in seen_extra:
            continue
        seen_extra.add(key)
        if extra.is_symlink() or not extra.exists():
            continue
        if extra.is_dir():
            found.extend(_walk_markdown(extra))
        elif extra.is_file() and extra.name.endswith(".md"):
            found.append(extra)
    unique: list[Path] = []
    real_seen: set[str] = set()
    for path in found:
        try:
            real = os.path.realpath(path)
        except OSError:
            continue
        if real not in real_seen:
            real_seen.add(real)
            unique.append(path)
    return unique


def rel_path(root: Path, path: Path) -> str:
    """Workspace-relative, ``/``-separated (``../x.md`` for extra paths outside it)."""
    return os.path.relpath(path, root).replace(os.sep, "/")


def is_shared_scope(rel: str) -> bool:
    """True when a group chat may see the file: everything but the curated root memory."""
    return rel not in ROOT_FILES


def resolve_note(root: Path, rel: str, extra_paths: Sequence[Path | str] = ()) -> Path:
    """Map a user-given path to a memory note, refusing anything else.

    Accepts workspace-relative or absolute paths; the result must be one of the
    files discovery lists (so ``..`` tricks, symlinks and non-``.md`` files fail).
    """
    root = Path(root)
    candidate = Path(rel) if os.path.isabs(rel) else root / rel
    allowed = {os.path.realpath(p): p for p in list_memory_files(root, extra_paths)}
    real = os.path.realpath(candidate)
    if real in allowed and not candidate.is_symlink():
        return allowed[real]
    if candidate.exists():
        raise errors.PathNotAllowed(
            f"{rel}: not a memory file of {root} (MEMORY.md, memory.md, memory/**/*.md or an extra path)"
        )
    raise errors.PathNotAllowed(f"{rel}: no such memory file in {root}")


def decode_note(data: bytes, *, name: str) -> str:
    """Bytes of a note as text, or ``NoteReadError`` saying why it is not a text note."""
    if len(data) > MAX_NOTE_BYTES:
        raise errors.NoteReadError(
            f"{name}: {len(data) / 1_048_576:.1f} MB is over the {MAX_NOTE_BYTES // 1_048_576} MB "
            "limit for a note; skipped"
        )
    if b"\x00" in data[:8192]:
        raise errors.NoteReadError(f"{name}: looks binary (NUL bytes); skipped")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise errors.NoteReadError(
            f"{name}: not valid UTF-8 (byte {exc.start}); skipped — re-save it as UTF-8"
        ) from None
    return text.removeprefix("\ufeff")


def read_note(path: Path) -> str:
    """A note's text (UTF-8, BOM dropped); ``NoteReadError`` for binary or undecodable files."""
    try:
        size = path.stat().st_size
        if size > MAX_NOTE_BYTES:
            raise errors.NoteReadError(
                f"{path}: {size / 1_048_576:.1f} MB is over the {MAX_NOTE_BYTES // 1_048_576} MB "
                "limit for a note; skipped"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise errors.NoteReadError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return decode_note(data, name=str(path))


def content_hash(data: bytes | str) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def write_note_atomic(path: Path, text: str) -> None:
    """Write ``text`` so a crash leaves either the old or the new file, never half of one.

    Temp file in the same folder, fsync, rename over the target, fsync the folder.
    The original's permission bits are kept.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = None
    with contextlib.suppress(FileNotFoundError):
        mode = path.stat().st_mode & 0o777
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass  # some filesystems refuse fsync on directories; the rename is still atomic
