"""Files read and written the one safe way: what a file that is not regular is called,
the bounded read, and the atomic write with fsync.

Every caller that reads a file it does not trust (a note, ``openclaw.json``) and every
caller that replaces a file (a note, a golden set, the agent's config) goes through
these, with the few behaviours that differ between them as parameters.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

from memdesk.core.messages import QT_TRANSLATE_NOOP, Message, msg

READ_CHUNK = 1 << 20


def non_regular_kind(mode: int) -> Message | None:
    """What a file of ``mode`` is when it is not a regular file ("a FIFO", "a folder"…);
    None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, name in (
        (stat.S_ISFIFO, QT_TRANSLATE_NOOP("core", "a FIFO")),
        (stat.S_ISSOCK, QT_TRANSLATE_NOOP("core", "a socket")),
        (stat.S_ISCHR, QT_TRANSLATE_NOOP("core", "a character device")),
        (stat.S_ISBLK, QT_TRANSLATE_NOOP("core", "a block device")),
        (stat.S_ISDIR, QT_TRANSLATE_NOOP("core", "a folder")),
        (stat.S_ISLNK, QT_TRANSLATE_NOOP("core", "a symlink")),
    ):
        if test(mode):
            return msg(name)
    return msg(QT_TRANSLATE_NOOP("core", "not a regular file"))


def read_bounded(fd: int, limit: int, too_large: Callable[[int], BaseException]) -> bytes:
    """Every byte of the open file ``fd``, or ``too_large(size)`` raised as soon as it is
    known to hold more than ``limit``: by its size when opened, or counted while it is
    read (it may grow meanwhile), so a huge file is never read whole."""
    size = os.fstat(fd).st_size
    if size > limit:
        raise too_large(size)
    parts: list[bytes] = []
    total = 0
    while chunk := os.read(fd, READ_CHUNK):
        parts.append(chunk)
        total += len(chunk)
        if total > limit:
            raise too_large(total)
    return b"".join(parts)


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (a symlink followed), at most ``limit``.

    For memdesk's own small files in the workspace (``tuned.json``, a golden set): a FIFO
    with no writer or a link to ``/dev/zero`` would hang or flood the search that reads
    them. ``OSError`` (its ``strerror`` says what the file is) for anything else;
    ``FileNotFoundError`` when it is missing.
    """
    kind = non_regular_kind(os.stat(path).st_mode)  # before opening: a device is never opened
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    fd = -1 if kind is not None else os.open(path, flags)
    try:
        if fd >= 0:
            kind = non_regular_kind(os.fstat(fd).st_mode)  # swapped since the stat
        if kind is not None:
            raise OSError(
                errno.EINVAL,
                msg(QT_TRANSLATE_NOOP("core", "not a regular file ({kind})"), kind=kind),
                str(path),
            )
        return read_bounded(
            fd,
            limit,
            lambda size: OSError(
                errno.EFBIG,
                msg(
                    QT_TRANSLATE_NOOP("core", "{size:,} bytes is over the {limit:,} byte limit"),
                    size=size,
                    limit=limit,
                ),
                str(path),
            ),
        )
    finally:
        if fd >= 0:
            os.close(fd)


# -- the atomic write -------------------------------------------------------------------
def _temp_name(name: str) -> str:
    return f".{name}.memdesk-{secrets.token_hex(8)}.tmp"


def _temp_pattern(name: str) -> re.Pattern[str]:
    """Temp names memdesk gave ``name``'s replacement: ``.<name>.memdesk-<16 hex>.tmp``, and
    the ``.<name>.<8 of [a-z0-9_]>.tmp`` of its earlier ``tempfile.mkstemp`` writer."""
    return re.compile(rf"^\.{re.escape(name)}\.(?:memdesk-[0-9a-f]{{16}}|[a-z0-9_]{{8}})\.tmp$")


def remove_stale_temps(path: Path) -> list[Path]:
    """Delete the temp files a killed write left beside ``path`` (and beside its
    symlink's target). Only memdesk's own names, only regular files. Returns what was
    removed."""
    removed: list[Path] = []
    places = {(Path(path).parent, Path(path).name)}
    real = Path(os.path.realpath(path))
    places.add((real.parent, real.name))
    for folder, name in places:
        pattern = _temp_pattern(name)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if pattern.match(entry.name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed


def write_temp(path: Path, data: bytes, *, mode: int | None = None) -> Path:
    """A new file beside ``path`` holding ``data``, on disk (fsynced) before this returns.

    Created owner-only (0600) with ``O_EXCL``, never through a symlink; given ``mode``
    when one is passed. The caller moves it into place and removes it if that fails.
    """
    temp = path.parent / _temp_name(path.name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(temp, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return temp


def fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass  # some filesystems refuse fsync on directories; the rename is still atomic
    finally:
        os.close(dir_fd)


def write_atomic(
    path: Path,
    data: bytes,
    *,
    mode: int | None = None,
    keep_mode: bool = True,
    through_symlink: bool = False,
    private_until_renamed: bool = False,
    remove_stale: bool = False,
    folder_mode: int = 0o777,
) -> None:
    """Replace the file at ``path`` with ``data`` so that a crash leaves either the old or
    the new file, never half of one: a temp file beside it (``write_temp``), renamed
    over it, then the folder fsynced. Missing folders are created (``folder_mode``).

    The file keeps its permission bits (unless not ``keep_mode``); a new one gets
    ``mode`` (None: 0600).
    ``through_symlink``: a symlink at ``path`` stays and its target is replaced (the
    agent's config in a dotfiles repository); otherwise the link itself is replaced.
    ``private_until_renamed``: the bits are given only once the temp file is the file,
    so a copy holding secrets is never readable by others, even after a kill (the
    default gives them before the rename, so the file never shows as owner-only).
    ``remove_stale``: first delete what a killed earlier write left (``remove_stale_temps``).
    """
    path = Path(path)
    if remove_stale:
        remove_stale_temps(path)
    target = Path(os.path.realpath(path)) if through_symlink else path
    target.parent.mkdir(parents=True, exist_ok=True, mode=folder_mode)
    if keep_mode:
        with contextlib.suppress(FileNotFoundError):
            mode = stat.S_IMODE(target.stat().st_mode)
    temp = write_temp(target, data, mode=None if private_until_renamed else mode)
    try:
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    if private_until_renamed and mode is not None and mode != 0o600:
        os.chmod(target, mode)
    fsync_dir(target.parent)
