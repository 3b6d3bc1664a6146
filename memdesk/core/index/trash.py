"""Move a note to the system trash, and put that same file back (Undo).

``send2trash`` moves files to the platform's trash but does not say where they went.
``restore`` finds the file again: on freedesktop desktops (Linux, BSD) by the
``.trashinfo`` record naming the note's path, on macOS among ``~/.Trash``; in both by
the content hash taken when it was trashed, so a different file of the same name is
never brought back. The file is moved, not rewritten, and never over an existing one,
and never back through a folder that became a symlink out of its workspace.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import unquote

import send2trash

from memdesk.core import errors
from memdesk.core.index import captures, workspace

INFO_SUFFIX = ".trashinfo"
CLOCK_SLACK_S = 2.0  # .trashinfo dates have whole seconds


@dataclasses.dataclass(frozen=True)
class Trashed:
    """What went to the trash: enough to find exactly that file again."""

    path: Path  # where it was (absolute)
    sha256: str
    size: int
    when: float  # time.time() just before it was trashed
    # The workspace (and extra paths) it was a note of: restoring stays inside them.
    root: Path | None = None
    also: tuple[str, ...] = ()


def _digest(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def move_to_trash(path: Path, *, root: Path | None = None, extra_paths: Sequence[Path | str] = ()) -> Trashed:
    """Send ``path`` to the system trash. Raises ``OSError`` (and send2trash's
    ``TrashPermissionError``, an ``OSError``) when it cannot. ``root``: the workspace
    whose note it is (``restore`` then writes nowhere else)."""
    where = Path(os.path.abspath(path))
    item = Trashed(
        where,
        _digest(where),
        where.stat().st_size,
        time.time(),
        Path(os.path.abspath(root)) if root is not None else None,
        tuple(str(p) for p in extra_paths),
    )
    send2trash.send2trash(str(where))
    return item


def restore(item: Trashed) -> None:
    """Move the trashed file back to ``item.path`` and drop its trash record.

    Raises ``MemdeskError`` with one line when the path exists again, the file is no
    longer in the trash (emptied, restored elsewhere, changed), or this platform's
    trash cannot be searched (Windows: restore it from the Recycle Bin).
    """
    if item.root is not None:
        workspace.confined(item.root, item.path, also=item.also)
    if os.path.lexists(item.path):
        raise errors.MemdeskError(f"{item.path.name} exists again; the trashed copy stays in the trash")
    if sys.platform == "win32":
        raise errors.MemdeskError(
            f"restore {item.path.name} from the Recycle Bin (memdesk cannot find it there)"
        )
    found = _find(item)
    if found is None:
        raise errors.MemdeskError(f"{item.path.name} is no longer in the trash")
    source, record = found
    item.path.parent.mkdir(parents=True, exist_ok=True)
    if item.root is not None:
        workspace.confined(item.root, item.path, also=item.also)  # the folder just made, too
    _move_no_overwrite(source, item.path)
    if record is not None:
        with contextlib.suppress(FileNotFoundError):
            record.unlink()
    captures.wrote(item.root, item.path)  # back in the history, as it is again


def _find(item: Trashed) -> tuple[Path, Path | None] | None:
    """(the trashed file, its .trashinfo or None) for ``item``, the newest match first."""
    matches = [
        (when, source, record)
        for when, source, record in _candidates(item)
        if when >= item.when - CLOCK_SLACK_S and _same_file(source, item)
    ]
    if not matches:
        return None
    _when, source, record = max(matches, key=lambda m: m[0])
    return source, record


def _same_file(path: Path, item: Trashed) -> bool:
    try:
        return path.is_file() and path.stat().st_size == item.size and _digest(path) == item.sha256
    except OSError:
        return False


def _candidates(item: Trashed) -> Iterator[tuple[float, Path, Path | None]]:
    if sys.platform == "darwin":
        yield from _mac_candidates(item)
    else:
        yield from _freedesktop_candidates(item)


def _mac_candidates(item: Trashed) -> Iterator[tuple[float, Path, Path | None]]:
    # Finder keeps no record in ~/.Trash; a name clash gets a suffix (``note 2.md``,
    # ``note 10.42.07.md``), so every name starting with the note's stem is a candidate.
    trash = Path.home() / ".Trash"
    with contextlib.suppress(OSError):
        for entry in os.scandir(trash):
            if entry.name.startswith(item.path.stem):
                yield entry.stat(follow_symlinks=False).st_ctime, Path(entry.path), None


def _trash_dirs(item: Trashed) -> Iterator[tuple[Path, Path]]:
    """(trash dir, the folder its relative ``Path=`` entries are relative to)."""
    from send2trash import plat_other  # the freedesktop layout send2trash itself follows

    yield Path(plat_other.HOMETRASH), Path(os.fsdecode(plat_other.XDG_DATA_HOME))
    top = Path(os.fsdecode(plat_other.find_mount_point(os.fsencode(item.path.parent))))
    uid = os.getuid()
    yield top / ".Trash" / str(uid), top
    yield top / f".Trash-{uid}", top


def _freedesktop_candidates(item: Trashed) -> Iterator[tuple[float, Path, Path | None]]:
    target = os.path.abspath(item.path)
    for trash, top in _trash_dirs(item):
        info_dir = trash / "info"
        try:
            names = [e.name for e in os.scandir(info_dir) if e.name.endswith(INFO_SUFFIX)]
        except OSError:
            continue
        for name in names:
            record = info_dir / name
            fields = _read_info(record)
            original = fields.get("Path")
            if original is None:
                continue
            original = unquote(original)
            if not os.path.isabs(original):
                original = os.path.join(top, original)
            if os.path.abspath(original) != target:
                continue
            yield (
                _info_time(fields.get("DeletionDate"), record),
                trash / "files" / name.removesuffix(INFO_SUFFIX),
                record,
            )


def _read_info(record: Path) -> dict[str, str]:
    try:
        text = record.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


def _info_time(stamp: str | None, record: Path) -> float:
    """A DeletionDate (local time, whole seconds) as a timestamp; the record's mtime if odd."""
    if stamp:
        with contextlib.suppress(ValueError, OverflowError):
            return time.mktime(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S"))
    try:
        return record.stat().st_mtime
    except OSError:
        return 0.0


def _move_no_overwrite(source: Path, target: Path) -> None:
    """Move ``source`` to ``target``, failing rather than replacing a file that appeared."""
    try:
        os.link(source, target)  # atomic, and refuses an existing target
    except OSError as exc:
        if exc.errno == errno.EEXIST:
            raise errors.MemdeskError(
                f"{target.name} exists again; the trashed copy stays in the trash"
            ) from exc
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
        # Another file system (a trash in $HOME for a note elsewhere), or no hard links:
        # copy beside the target, then link that copy into place.
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        os.close(fd)
        try:
            shutil.copy2(source, temp)
            try:
                os.link(temp, target)
            except OSError as no_links:
                if no_links.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
                    raise
                if os.path.lexists(target):  # no atomic no-replace here: check, then rename
                    raise FileExistsError(errno.EEXIST, "exists", str(target)) from no_links
                os.replace(temp, target)
        except FileExistsError as clash:
            raise errors.MemdeskError(
                f"{target.name} exists again; the trashed copy stays in the trash"
            ) from clash
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
    os.unlink(source)
