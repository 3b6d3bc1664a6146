"""Note operations on a workspace: safe names, create, rename, delete to the trash, the daily note.

The GUI and the ``memdesk new``/``memdesk today`` commands use these; every failure is a
``MemdeskError`` with a one-line reason, nothing is overwritten, and only paths that
discovery lists as memory notes (``MEMORY.md``/``memory.md``, ``memory/**/*.md``) are touched.
Deleting moves the file to the system trash and returns the ``trash.Trashed`` record that
``trash.restore`` undoes (moving that very file back).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from memdesk.core import errors
from memdesk.core.index import trash, workspace

# Characters kept in a note name typed by a person: letters/digits of any script,
# "_", "-", " " and "."; anything else (slashes, colons, control characters) becomes "-".
_UNSAFE = re.compile(r"[^\w\- .]+", re.UNICODE)


def safe_name(name: str) -> str:
    """``name`` as a file name without the ``.md`` suffix ("" when nothing usable is left)."""
    cleaned = _UNSAFE.sub("-", name).strip(" .-")
    return cleaned.removesuffix(".md").strip(" .-")


def note_path(folder: str, name: str) -> str:
    """The workspace-relative path of note ``name`` in ``folder`` (``folder/<safe name>.md``)."""
    stem = safe_name(name)
    if not stem:
        raise errors.MemdeskError(f"{name!r} is not a usable note name")
    folder = folder.strip("/")
    return f"{folder}/{stem}.md" if folder else f"{stem}.md"


def daily_note_path(date: dt.date) -> str:
    """OpenClaw's daily note: ``memory/YYYY-MM-DD.md``."""
    return f"memory/{date.isoformat()}.md"


def _target(root: Path, rel: str) -> Path:
    """``rel`` as a new note's path inside ``root`` that discovery would list as a memory note."""
    parts = PurePosixPath(rel.replace("\\", "/"))
    if parts.is_absolute() or ".." in parts.parts or parts.suffix != ".md":
        raise errors.PathNotAllowed(f"{rel}: a note is a .md path inside the workspace")
    normalized = parts.as_posix()
    if normalized not in workspace.ROOT_FILES and not normalized.startswith("memory/"):
        raise errors.PathNotAllowed(f"{rel}: notes live in MEMORY.md or under memory/")
    return Path(root) / normalized


def _existing(root: Path, rel: str, extra_paths: Sequence[Path | str]) -> Path:
    """An existing note discovery lists (the memory layout or an extra path)."""
    try:
        return workspace.resolve_note(root, rel, extra_paths)
    except errors.PathNotAllowed:
        if not (Path(root) / rel).exists():
            raise errors.MemdeskError(f"{rel}: no such note") from None
        raise


def create_note(root: Path, rel: str, text: str) -> Path:
    """Write a new note (creating its folders); refuses to overwrite one that exists."""
    path = _target(root, rel)
    if path.exists():
        raise errors.MemdeskError(f"{rel} already exists")
    try:
        workspace.write_note_atomic(path, text)
    except OSError as exc:
        raise errors.MemdeskError(f"Cannot create {rel}: {exc.strerror or exc}") from None
    return path


def rename_note(root: Path, old: str, new: str, extra_paths: Sequence[Path | str] = ()) -> Path:
    """Move note ``old`` to ``new`` (creating folders); refuses to overwrite.

    ``new`` is in the memory layout, or beside ``old`` (a note of an extra path renamed
    in its folder).
    """
    src = _existing(root, old, extra_paths)
    new_path, old_path = PurePosixPath(new), PurePosixPath(old)
    in_layout = old in workspace.ROOT_FILES or old.startswith("memory/")
    if not in_layout and new_path.parent == old_path.parent and new_path.suffix == ".md":
        dst = src.parent / new_path.name
    else:
        dst = _target(root, new)
    if dst.exists():
        raise errors.MemdeskError(f"{new} already exists")
    try:
        dst.parent.mkdir(parents=True, exist_ok=True)
        os.rename(src, dst)
    except OSError as exc:
        raise errors.MemdeskError(f"Cannot rename {old}: {exc.strerror or exc}") from None
    return dst


def open_daily_note(root: Path, date: dt.date) -> tuple[str, bool]:
    """The daily note of ``date``, created with its heading if missing: (path, created)."""
    rel = daily_note_path(date)
    if (Path(root) / rel).exists():
        return rel, False
    create_note(root, rel, f"# {date.isoformat()}\n\n")
    return rel, True


def delete_note(root: Path, rel: str, extra_paths: Sequence[Path | str] = ()) -> trash.Trashed:
    """Move note ``rel`` to the system trash; ``trash.restore`` of the record undoes it."""
    path = _existing(root, rel, extra_paths)
    try:
        return trash.move_to_trash(path)
    except OSError as exc:  # send2trash's TrashPermissionError is one too
        raise errors.MemdeskError(f"Cannot move {rel} to the trash: {exc.strerror or exc}") from None
