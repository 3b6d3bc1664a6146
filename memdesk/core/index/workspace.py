"""The memory workspace on disk: which files count, reading them safely, saving atomically.

Discovery follows OpenClaw's ``listMemoryFiles``: ``MEMORY.md``, ``memory.md``,
``memory/**/*.md`` and extra paths; symlinks are skipped (which also rules out
symlink loops), tooling folders are ignored, and files reached twice are
de-duplicated by realpath, first occurrence winning.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import dataclasses
import errno
import functools
import hashlib
import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from memdesk.core import diskio, errors
from memdesk.core.disk_state import DiskState as DiskState  # re-exported: the editor's name for it
from memdesk.core.index import notetext
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg

try:
    import fcntl
except ImportError:  # Windows: no leases; a displaced file is read as soon as it is swapped out
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

IGNORED_DIRS = frozenset(
    {".git", "node_modules", ".pnpm-store", ".venv", "venv", ".tox", "__pycache__", ".memdesk"}
)
ROOT_FILES = ("MEMORY.md", "memory.md")
# Notes larger than this are skipped with a reason rather than chunked: a memory
# note of 10 MB is almost certainly a pasted log or a binary, and would stall indexing.
MAX_NOTE_BYTES = 10 * 1024 * 1024


@dataclasses.dataclass(frozen=True)
class Skipped:
    """A path discovery passed over, and why (``memdesk status`` lists them)."""

    path: str  # workspace-relative, printable (undecodable name bytes shown as \\xNN)
    reason: str


@dataclasses.dataclass(frozen=True)
class Scan:
    """The notes of a workspace, in discovery order, and what was skipped."""

    files: list[Path]
    skipped: list[Skipped]
    reals: list[str] = dataclasses.field(default_factory=list)  # each file's realpath, as ``files``


@dataclasses.dataclass(frozen=True)
class KeptListing:
    """A listing kept between full syncs (``Engine.watched``): the scan, and its notes by
    workspace-relative path, so a sync's named paths update it without a pass over it
    (``note_at``) and readers need no relative path worked out per note."""

    scan: Scan
    notes: dict[str, tuple[Path, str]]  # rel -> (path, realpath), in listing order

    @classmethod
    def of(cls, root: Path, scan: Scan) -> KeptListing:
        notes = {rel_path(root, p): (p, r) for p, r in zip(scan.files, scan.reals, strict=True)}
        return cls(scan, notes)

    def changed(self, root: Path, found: dict[str, Path | None]) -> KeptListing:
        """This listing after the paths ``found`` names were looked up (``note_at``:
        the note there, or None). A new object: readers on other threads keep theirs."""
        notes = dict(self.notes)
        for rel, note in found.items():
            notes.pop(rel, None)
            if note is not None:
                notes[rel_path(root, note)] = (note, os.path.realpath(note))
        values = list(notes.values())
        scan = Scan([p for p, _ in values], self.scan.skipped, [r for _, r in values])
        return KeptListing(scan, notes)


def printable(text: str) -> str:
    """``text`` as valid UTF-8: bytes a file name could not decode become ``\\xNN``.

    Python decodes undecodable name bytes to lone surrogates, which neither SQLite,
    JSON encoders nor a terminal accept; every path shown or stored goes through this.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        try:
            return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:  # a lone surrogate no file name decodes to (an MCP request's)
            return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _symlink_reason() -> str:
    return msg(QT_TRANSLATE_NOOP("core", "a symlink (symlinks are not followed)"))


def _cannot_read(exc: OSError) -> str:
    return msg(QT_TRANSLATE_NOOP("core", "cannot read: {error}"), error=exc.strerror or str(exc))


class _Walker:
    """Discovery state: files found, paths skipped with reasons, relative to ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: list[Path] = []
        self.reals: list[str] = []
        self.skipped: list[Skipped] = []

    def skip(self, path: str, reason: str, *, folder: bool = False) -> None:
        rel = os.path.relpath(path, self.root).replace(os.sep, "/")
        self.skipped.append(Skipped(printable(rel) + ("/" if folder else ""), reason))

    def add_file(self, path: str, mode: int, real: str | None = None) -> None:
        """``real``: the file's realpath when the caller knows it (a walk follows no
        symlink, so it is the walked folder's realpath and the rest of the path)."""
        if not stat.S_ISREG(mode):
            self.skip(
                path,
                msg(
                    QT_TRANSLATE_NOOP("core", "not a regular file ({kind})"),
                    kind=diskio.non_regular_kind(mode),
                ),
            )
        # A whole path in UTF-8 has its workspace-relative part in UTF-8 too: the relative
        # path is worked out only for the rare other name (or a root that is not UTF-8).
        elif not _is_utf8(path) and not _is_utf8(_relative(os.fspath(self.root), path)):
            self.skip(
                path,
                msg(QT_TRANSLATE_NOOP("core", "the name is not valid UTF-8; rename the file to index it")),
            )
        else:
            try:
                self.reals.append(real if real is not None else os.path.realpath(path))
            except OSError:
                return
            self.files.append(Path(path))

    def walk(self, directory: str) -> None:
        """Every ``*.md`` under ``directory`` in sorted depth-first order, never following
        symlinks. Iterative: a tree thousands of folders deep is no problem.

        Since no symlink below ``directory`` is followed, a file's realpath is the
        folder's realpath and the rest of its path: one ``realpath`` per walk instead of
        one per note (each a ``lstat`` per path component: most of a listing's time)."""
        try:
            real_dir = os.path.realpath(directory)
        except OSError:
            real_dir = None
        stack: list[Iterator[os.DirEntry[str]]] = []
        self._push(stack, directory)
        while stack:
            entry = next(stack[-1], None)
            if entry is None:
                stack.pop()
                continue
            if self.visit(entry, directory, real_dir):
                self._push(stack, entry.path)

    def visit(self, entry: _Entry, directory: str, real_dir: str | None) -> bool:
        """The walk's rule for one entry met under ``directory`` (whose realpath is
        ``real_dir``): a note is added, a path passed over is recorded with its reason.
        True for a folder the walk goes into. ``note_at`` applies the same rule down
        one path, so a path is a note there exactly when a listing names it."""
        try:
            if entry.is_symlink():
                if entry.name.endswith(".md") or entry.is_dir():
                    self.skip(entry.path, _symlink_reason())
                return False
            if entry.is_dir(follow_symlinks=False):
                return entry.name not in IGNORED_DIRS
            if entry.name.endswith(".md"):
                rest = entry.path[len(directory) :].lstrip(os.sep)  # ``directory`` may end in one
                real = None if real_dir is None else os.path.join(real_dir, rest)
                # The entry's type from the directory listing: no stat of a regular note.
                regular = entry.is_file(follow_symlinks=False)
                mode = stat.S_IFREG if regular else entry.stat(follow_symlinks=False).st_mode
                self.add_file(entry.path, mode, real)
        except OSError as exc:
            self.skip(entry.path, _cannot_read(exc))
        return False

    def _push(self, stack: list[Iterator[os.DirEntry[str]]], directory: str) -> None:
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            self.skip(
                directory,
                msg(
                    QT_TRANSLATE_NOOP("core", "cannot list the folder: {error}"),
                    error=exc.strerror or str(exc),
                ),
                folder=True,
            )
            return
        stack.append(iter(entries))


def _sources(root: Path, extra_paths: Sequence[Path | str], walker: _Walker) -> Iterator[tuple[bool, str]]:
    """Where discovery looks, in its order: (False, path) a single note, (True, folder)
    a folder to walk. A symlinked ``memory`` folder or extra path is recorded on
    ``walker`` as skipped when it comes up (lazily: the skips keep the listing's order)."""
    for name in ROOT_FILES:
        yield False, str(root / name)
    memory_dir = root / "memory"
    if memory_dir.is_symlink():
        walker.skip(str(memory_dir), _symlink_reason(), folder=True)
    elif memory_dir.is_dir():
        yield True, str(memory_dir)
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
        if extra.is_symlink():
            walker.skip(str(extra), _symlink_reason())
        elif extra.is_dir():
            yield True, str(extra)
        elif extra.name.endswith(".md"):
            yield False, str(extra)


def scan_memory_files(root: Path, extra_paths: Sequence[Path | str] = ()) -> Scan:
    """Every memory note of the workspace at ``root`` (absolute paths, de-duplicated),
    and every path that looked like one but was skipped, with the reason."""
    root = Path(root)
    walker = _Walker(root)
    for is_folder, source in _sources(root, extra_paths, walker):
        if is_folder:
            walker.walk(source)
        else:
            _add_top(walker, Path(source))
    unique: list[Path] = []
    reals: list[str] = []
    real_seen: set[str] = set()
    for path, real in zip(walker.files, walker.reals, strict=True):
        if real not in real_seen:
            real_seen.add(real)
            unique.append(path)
            reals.append(real)
    return Scan(unique, walker.skipped, reals)


class _Entry(Protocol):
    """What ``_Walker.visit`` reads of a directory entry (``os.DirEntry`` has it all)."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    def is_symlink(self) -> bool: ...
    def is_dir(self, *, follow_symlinks: bool = True) -> bool: ...
    def is_file(self, *, follow_symlinks: bool = True) -> bool: ...
    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result: ...


class _PathEntry:
    """One path as the walk would meet it in its folder's listing (``os.DirEntry``'s
    answers from an ``lstat``)."""

    def __init__(self, path: str, st: os.stat_result) -> None:
        self.path = path
        self.name = os.path.basename(path)
        self._st = st

    def is_symlink(self) -> bool:
        return stat.S_ISLNK(self._st.st_mode)

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        if follow_symlinks and self.is_symlink():
            return os.path.isdir(self.path)
        return stat.S_ISDIR(self._st.st_mode)

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        if follow_symlinks and self.is_symlink():
            return os.path.isfile(self.path)
        return stat.S_ISREG(self._st.st_mode)

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        return os.stat(self.path) if follow_symlinks and self.is_symlink() else self._st


def _walk_reaches(walker: _Walker, folder: str, path: str, real_dir: str | None) -> bool:
    """Whether walking ``folder`` (whose realpath is ``real_dir``) adds the note at
    ``path`` (a path below it) to ``walker``: the walk's own rule (``_Walker.visit``)
    applied to each step down, so only the folders on the way are looked at, not their
    other entries."""
    parts = path[len(folder) :].lstrip(os.sep).split(os.sep)
    directory = folder
    for i, name in enumerate(parts):
        # The walk reads each folder on the way; one it cannot list hides its notes.
        if not os.access(directory, os.R_OK | os.X_OK):
            return False
        step = os.path.join(directory, name)
        try:
            st = os.lstat(step)
        except OSError:
            return False
        before = len(walker.files)
        descends = walker.visit(_PathEntry(step, st), folder, real_dir)
        if i == len(parts) - 1:
            return len(walker.files) > before
        if not descends:
            return False
        directory = step
    return False


def _discover_one(
    root: Path, extra_paths: Sequence[Path | str], want: str, *, by_real: bool
) -> tuple[Path, str] | None:
    """The first (path, realpath) discovery lists at ``want`` (a normalised absolute path,
    or with ``by_real`` a realpath), looking only along that path; None when it lists
    nothing there. The first source wins, as the listing's de-duplication by realpath."""
    walker = _Walker(root)  # its skips are the listing's business, not ours
    for is_folder, source in _sources(root, extra_paths, walker):
        base = os.path.realpath(source) if by_real else os.path.normpath(source)
        if not is_folder:
            if base == want:
                _add_top(walker, Path(source))
                if walker.files:
                    return walker.files[-1], walker.reals[-1]
            continue
        if want == base or not _inside(want, base):
            continue
        path = os.path.join(source, want[len(base) :].lstrip(os.sep))
        if _walk_reaches(walker, source, path, base if by_real else _realpath(source)):
            return walker.files[-1], walker.reals[-1]
    return None


def _realpath(path: str) -> str | None:
    try:
        return os.path.realpath(path)
    except OSError:
        return None


def note_at(root: Path, target: Path | str, extra_paths: Sequence[Path | str] = ()) -> Path | None:
    """The note discovery lists at ``target`` (absolute or workspace-relative), or None
    when a listing would not name it (gone, ignored, a symlink or below one, not a
    regular ``.md``, a duplicate of an earlier note): the listing's own rules applied
    to the path's folders alone, so a sync of a few changed paths costs what changed,
    not the workspace."""
    root = Path(root)
    text = os.fspath(target)
    want = os.path.normpath(text if os.path.isabs(text) else os.path.join(root, text))
    found = _discover_one(root, extra_paths, want, by_real=False)
    if found is None:
        return None
    first = _discover_one(root, extra_paths, found[1], by_real=True)
    return found[0] if first is not None and first[0] == found[0] else None


def _add_top(walker: _Walker, path: Path) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        walker.skip(str(path), _cannot_read(exc))
        return
    if stat.S_ISLNK(st.st_mode):
        walker.skip(str(path), _symlink_reason())
    else:
        walker.add_file(str(path), st.st_mode)


def list_memory_files(root: Path, extra_paths: Sequence[Path | str] = ()) -> list[Path]:
    """Every memory note of the workspace at ``root``, as absolute paths, de-duplicated."""
    return scan_memory_files(root, extra_paths).files


def rel_path(root: Path | str, path: Path | str) -> str:
    """Workspace-relative, ``/``-separated (``../x.md`` for extra paths outside it)."""
    return _relative(os.fspath(root), os.fspath(path)).replace(os.sep, "/")


def _relative(root: str, path: str) -> str:
    """``os.path.relpath(path, root)``. A listing names every note under the root, so the
    path is most often the root, a separator and a normal rest: cut then, since relpath
    normalises both paths each time (a sixth of the CPU of listing 20,000 notes)."""
    if os.path.isabs(root) and os.path.normpath(root) == root:
        prefix = root.rstrip(os.sep) + os.sep
        if path.startswith(prefix):
            rest = path[len(prefix) :]
            if all(part not in ("", ".", "..") for part in rest.split(os.sep)):
                return rest
    return os.path.relpath(path, root)


def is_shared_scope(rel: str) -> bool:
    """True when a group chat may see the file: everything but the curated root memory."""
    return rel not in ROOT_FILES


def resolve_note(root: Path, rel: str, extra_paths: Sequence[Path | str] = ()) -> Path:
    """Map a user-given path to a memory note, refusing anything else.

    Accepts workspace-relative or absolute paths; the result must be one of the
    files discovery lists (so ``..`` tricks, symlinks and non-``.md`` files fail),
    found along the path alone (``note_at``'s rules), not by listing the workspace.
    """
    root = Path(root)
    if "\x00" in rel:
        # No file can have this path: os.stat raises ValueError ("embedded null byte"),
        # which MCP clients saw as "Error executing tool", naming neither.
        raise _unusable(rel, "NUL byte")
    candidate = Path(rel) if os.path.isabs(rel) else root / rel
    try:
        found = _discover_one(root, extra_paths, os.path.realpath(candidate), by_real=True)
        if found is not None and not candidate.is_symlink():
            return found[0]
        exists = candidate.exists()
    except OSError as exc:  # a name over 255 bytes: ENAMETOOLONG
        raise _unusable(rel, exc.strerror or str(exc)) from None
    except ValueError:  # a lone surrogate no file name decodes to
        raise _unusable(rel, "not encodable") from None
    if exists:
        raise errors.PathNotAllowed(
            msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    "{path}: not a memory file of {root} (MEMORY.md, memory.md, memory/**/*.md or an extra path)",
                ),
                path=rel,
                root=root,
            )
        )
    raise errors.PathNotAllowed(
        msg(QT_TRANSLATE_NOOP("core", "{path}: no such memory file in {root}"), path=rel, root=root)
    )


def _unusable(rel: str, reason: str) -> errors.PathNotAllowed:
    shown = printable(rel[:200]).replace("\x00", "\\x00") + ("…" if len(rel) > 200 else "")
    return errors.PathNotAllowed(
        msg(QT_TRANSLATE_NOOP("core", "{path}: not a usable path ({reason})"), path=shown, reason=reason)
    )


def _inside(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def confined(root: Path, target: Path | str, *, also: Sequence[Path | str] = ()) -> Path:
    """``target`` (workspace-relative or absolute) once it is sure that writing it stays
    inside the workspace ``root`` (or one of the folders ``also``: a note's extra path):
    no folder on the way is a symlink leading out, and ``target`` is no symlink itself
    (an atomic rename would replace the link, a plain write would follow it).

    Discovery skips symlinks, so a note written through one would also be invisible.
    Raises ``PathNotAllowed`` with one line naming the link and where it leads.
    """
    root = Path(os.path.abspath(root))
    path = Path(os.path.abspath(target if os.path.isabs(target) else root / target))
    bases = [root, *(Path(os.path.abspath(a if os.path.isabs(a) else root / a)) for a in also)]
    base = next((b for b in bases if _inside(str(path), str(b))), None)
    if base is None:
        raise errors.PathNotAllowed(
            f"{printable(str(path))} is outside the workspace: memdesk writes only inside {printable(str(root))}"
        )
    reals = [os.path.realpath(b) for b in bases]
    step = base
    for part in path.relative_to(base).parts:
        step = step / part
        if not os.path.islink(step):
            continue
        shown = printable(rel_path(root, step))
        real = os.path.realpath(step)
        if step == path:
            raise errors.PathNotAllowed(
                f"{shown} is a symlink (to {printable(real)}): memdesk does not write through symlinks"
            )
        if not any(_inside(real, r) for r in reals):
            raise errors.PathNotAllowed(
                f"{shown} is a symlink to {printable(real)} outside the workspace: "
                f"memdesk writes only inside {printable(str(root))}"
            )
    real_parent = os.path.realpath(path.parent)
    if not any(_inside(real_parent, r) for r in reals):
        raise errors.PathNotAllowed(
            f"{printable(rel_path(root, path))} leads to {printable(real_parent)} outside the workspace: "
            f"memdesk writes only inside {printable(str(root))}"
        )
    return path


def open_regular(path: Path, *, append: bool = False) -> int:
    """A read-only descriptor on the regular file ``path`` (``append``: read and append
    only, ``O_APPEND``); ``OSError`` for anything else.

    ``O_NONBLOCK`` makes opening a FIFO return at once instead of waiting for a writer
    (a note replaced by a FIFO must not hang indexing or the GUI), the ``fstat`` then
    refuses FIFOs, devices and sockets, and ``O_NOFOLLOW`` a symlink swapped in after
    discovery.
    """
    access = os.O_RDWR | os.O_APPEND if append else os.O_RDONLY
    flags = access | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(
                errno.EINVAL,
                msg(
                    QT_TRANSLATE_NOOP("core", "not a regular file ({kind})"),
                    kind=diskio.non_regular_kind(mode),
                ),
                str(path),
            )
    except BaseException:
        os.close(fd)
        raise
    return fd


def too_large(size: int) -> str:
    return msg(
        QT_TRANSLATE_NOOP("core", "{size:.1f} MB is over the {limit} MB limit for a note"),
        size=size / 1_048_576,
        limit=MAX_NOTE_BYTES // 1_048_576,
    )


def read_bytes(path: Path, *, limit: int = MAX_NOTE_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (``EFBIG`` past it)."""
    fd = open_regular(path)
    try:
        return diskio.read_bounded(fd, limit, lambda size: OSError(errno.EFBIG, too_large(size), str(path)))
    finally:
        os.close(fd)


def decode_note(data: bytes, *, name: str) -> str:
    """Bytes of a note as text, or ``NoteReadError`` saying why it is not a text note."""
    if len(data) > MAX_NOTE_BYTES:
        raise errors.NoteReadError(
            msg(
                QT_TRANSLATE_NOOP("core", "{path}: {reason}; skipped"),
                path=name,
                reason=too_large(len(data)),
            )
        )
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) and _decodes(data, "utf-16"):
        raise errors.NoteReadError(
            msg(QT_TRANSLATE_NOOP("core", "{path}: UTF-16 text; skipped — re-save it as UTF-8"), path=name)
        )
    head = data[:8192]
    if b"\x00" in head:
        # Text in UTF-16 without a BOM has a NUL in every other byte.
        even = data[: len(data) // 2 * 2]
        third = len(head) // 3
        if len(head) >= 4 and (
            (head[1::2].count(0) > third and _decodes(even, "utf-16-le"))
            or (head[0::2].count(0) > third and _decodes(even, "utf-16-be"))
        ):
            raise errors.NoteReadError(
                msg(
                    QT_TRANSLATE_NOOP(
                        "core", "{path}: looks like UTF-16 text; skipped — re-save it as UTF-8"
                    ),
                    path=name,
                )
            )
        raise errors.NoteReadError(
            msg(QT_TRANSLATE_NOOP("core", "{path}: looks binary (NUL bytes); skipped"), path=name)
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise errors.NoteReadError(
            msg(
                QT_TRANSLATE_NOOP(
                    "core", "{path}: not valid UTF-8 (byte {offset}); skipped — re-save it as UTF-8"
                ),
                path=name,
                offset=exc.start,
            )
        ) from None
    return text.removeprefix("\ufeff")


def note_text(data: bytes | None) -> str | None:
    """``data`` as the editor shows it (a BOM kept), or None when ``decode_note`` would
    refuse it (too large, binary, not UTF-8)."""
    if data is None:
        return None
    try:
        decode_note(data, name="")
    except errors.NoteReadError:
        return None
    return data.decode("utf-8")


def _decodes(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def read_note(path: Path) -> str:
    """A note's text (UTF-8, BOM dropped); ``NoteReadError`` for binary or undecodable files."""
    try:
        data = read_bytes(path)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise errors.NoteReadError(
            msg(
                QT_TRANSLATE_NOOP("core", "{path}: cannot read ({error})"),
                path=printable(str(path)),
                error=reason,
            )
        ) from None
    return decode_note(data, name=printable(str(path)))


def content_hash(data: bytes | str) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def write_note_atomic(path: Path, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` so a crash leaves either the old or the new file, never half of one
    (``diskio.write_atomic``). The original's permission bits are kept; a new file gets
    ``mode`` (default 0600)."""
    diskio.write_atomic(path, text.encode("utf-8"), mode=mode)


# -- reading and saving notes the editor shows ------------------------------------------
def disk_state(path: Path) -> DiskState:
    """Never blocks and never loads more than ``MAX_NOTE_BYTES`` (larger files are hashed
    in pieces, so a change to an 11 MB log is still noticed)."""
    try:
        fd = open_regular(path)
    except FileNotFoundError:
        return DiskState(False, None, None)
    except OSError as exc:
        return DiskState(True, None, None, exc.strerror or str(exc))
    try:
        hasher = hashlib.sha256()
        parts: list[bytes] = []
        total = 0
        while chunk := os.read(fd, 1 << 20):
            hasher.update(chunk)
            total += len(chunk)
            if total <= MAX_NOTE_BYTES:
                parts.append(chunk)
            else:
                parts = []
    except OSError as exc:
        return DiskState(True, None, None, exc.strerror or str(exc))
    finally:
        os.close(fd)
    if total > MAX_NOTE_BYTES:
        return DiskState(
            True,
            hasher.hexdigest(),
            None,
            too_large(total),
        )
    return DiskState(True, hasher.hexdigest(), b"".join(parts))


def sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


@dataclasses.dataclass(frozen=True)
class Saved:
    """The outcome of ``save_note``: the bytes now on disk, and whether changes made
    on disk since the caller's base were merged into them."""

    data: bytes
    merged: bool


_SAVE_LOCK = threading.Lock()
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_renameat2: Any = None


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux ``renameat2(RENAME_EXCHANGE)``); False where the
    system or filesystem cannot."""
    global _renameat2
    if _renameat2 is None:
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
            fn = libc.renameat2
            fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            fn.restype = ctypes.c_int
            _renameat2 = fn
        except (OSError, AttributeError, TypeError):
            _renameat2 = False
    if not _renameat2:
        return False
    if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _merge_disk(base: bytes | None, mine: bytes, theirs: DiskState) -> bytes | None:
    """``_merged`` with the disk state last (the merge callback ``_write_and_swap`` takes)."""
    return _merged(base, theirs, mine)


def _merged(base: bytes | None, theirs: DiskState, mine: bytes) -> bytes | None:
    """``mine`` with the disk's changes since ``base`` merged in, or None if they overlap
    (or any side is not UTF-8 text)."""
    texts = [note_text(base or b""), note_text(mine), note_text(theirs.data)]
    if None in texts:
        return None
    result = notetext.merge3(str(texts[0]), str(texts[1]), str(texts[2]))
    return None if result.conflicts else result.text.encode("utf-8")


def save_note(
    path: Path,
    data: bytes,
    *,
    expected: str | None,
    base: bytes | None = None,
    overwrite_readonly: bool = False,
    root: Path | None = None,
    source: str = "memdesk",
) -> Saved:
    """Write ``data`` to the note at ``path``, never over a version the caller has not seen.

    ``expected`` is the sha256 of the bytes the edit started from (None: the note did
    not exist) and ``base`` those bytes, for merging. If the note moved on, the disk's
    changes are merged in when they do not overlap the caller's; otherwise
    ``errors.NoteChanged`` carries what is on disk. The check is repeated *after* the
    new file is swapped in atomically (Linux ``RENAME_EXCHANGE``; elsewhere the old
    file is held open across the rename), so a write landing between the check and
    the rename is found too, and merged or put back. A note without write bits
    raises ``errors.NoteReadOnly`` unless ``overwrite_readonly``. With ``root`` (the
    workspace), a note inside it is written only if no folder on its way became a
    symlink leading out (``confined``); a note of an extra path outside it, which the
    user's config put there, only if it is no symlink itself. With ``root``, the bytes
    written become a version in the workspace's history, from ``source`` ("memdesk";
    "mcp" for ``memory_append``).
    """
    path = Path(path)
    inside = root is not None and _inside(os.path.abspath(path), os.path.abspath(root))
    if root is not None:
        confined(root, path, also=() if inside else [path.parent])
    from memdesk.core.index import captures  # it reads notes with this module

    merged_any = False
    with _SAVE_LOCK, _anchored(root if inside else None, path) as target:
        # Every step below goes through ``target``: the note's folder as opened and
        # checked once, so a folder swapped for a symlink after ``confined`` looked
        # cannot lead the write out of the workspace.
        original, path = path, target
        try:
            for _attempt in range(5):
                disk = disk_state(path)
                if disk.digest != expected or disk.exists != (expected is not None):
                    merged = _merged(base, disk, data) if disk.exists else None
                    if merged is None:
                        raise errors.NoteChanged(path, disk)
                    expected, base, data, merged_any = disk.digest, disk.data, merged, True
                mode = 0o600
                if disk.exists:
                    mode = stat.S_IMODE(os.stat(path).st_mode)
                    if not mode & 0o222 and not overwrite_readonly:
                        raise _read_only(path, mode)
                # This attempt's base and data, bound now (they change on the next attempt).
                merge = functools.partial(_merge_disk, base, data)
                # A sync reading the note between the swap and ``saved`` sees ``source``'s bytes.
                captures.expect(root, original, data, source=source)
                outcome = _write_and_swap(path, data, mode=mode, expected=expected, merge=merge)
                if outcome is None:
                    diskio.fsync_dir(path.parent)
                    captures.saved(root, original, data, source=source)
                    return Saved(data, merged_any)
                if outcome is _RETRY:
                    continue  # the note appeared while we wrote a new one: check again
                displaced, merged = outcome
                if merged is None:
                    raise errors.NoteChanged(original, displaced)  # theirs was put back in place
                # Ours is on disk now; write the merge over it on the next turn.
                expected, base, data, merged_any = sha256(data), data, merged, True
            raise errors.NoteChanged(original, disk_state(path))
        except BaseException:
            captures.unexpected(root, original)
            raise


_RETRY: Any = object()


def _read_only(path: Path, mode: int) -> errors.NoteReadOnly:
    """The refusal of a write to a note without write bits (``save_note``, ``append_note``)."""
    return errors.NoteReadOnly(
        msg(
            QT_TRANSLATE_NOOP("core", "{name} is read-only (mode {mode:04o}); not saved"),
            name=path.name,
            mode=mode,
        )
    )


def append_note(path: Path, text: bytes, *, root: Path, source: str = "mcp") -> Saved:
    """Add the lines ``text`` at the end of the note at ``path``, in place (``O_APPEND``),
    as an agent appends: no byte already there is rewritten, so a writer appending at
    the same time (the agent, another memdesk process) loses nothing. ``save_note``'s
    swap would displace such a writer's bytes and, when both appended at the same end
    (a conflict), put the disk's version back: lines written into ours between the
    two swaps were lost (seen with two ``memdesk mcp`` appenders and an agent).

    The lines follow the note's own line endings and start on a line of their own; the
    note's other bytes (a BOM, its endings) stay as they are. Confined like
    ``save_note`` (no folder on the way leads out, the note is no symlink); a note
    without write bits raises ``errors.NoteReadOnly``. memdesk's own appenders take
    the note's ``flock`` while they look at its end and write, so their separators
    never interleave. ``Saved.merged``: someone else wrote to it meanwhile.
    """
    path = Path(path)
    confined(root, path)
    from memdesk.core.index import captures  # it reads notes with this module

    with _SAVE_LOCK, _anchored(root, path) as target:
        fd = open_regular(target, append=True)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            mode = stat.S_IMODE(os.fstat(fd).st_mode)
            if not mode & 0o222:
                raise _read_only(path, mode)
            before = _state_of_fd(fd).data
            if before is None:
                raise OSError(errno.EFBIG, too_large(os.fstat(fd).st_size), str(path))
            addition = text if text.endswith(b"\n") else text + b"\n"
            sep = b"" if not before or before.endswith(b"\n") else b"\n"
            if b"\r\n" in before:
                addition = addition.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
                sep = sep.replace(b"\n", b"\r\n")
            expected = before + sep + addition
            captures.expect(root, path, expected, source=source)
            try:
                pending = memoryview(sep + addition)
                while pending:
                    pending = pending[os.write(fd, pending) :]
                os.fsync(fd)
                after = _state_of_fd(fd)
            except BaseException:
                captures.unexpected(root, path)
                raise
        finally:
            os.close(fd)  # the flock goes with it
    data = after.data if after.data is not None else expected
    captures.saved(root, path, data, source=source)
    return Saved(data, data != expected)


@contextlib.contextmanager
def _anchored(root: Path | None, path: Path) -> Iterator[Path]:
    """``path`` reached through a descriptor of its folder (``/proc/self/fd/N/name``),
    the folder's real place checked on that descriptor to be inside ``root``.

    ``confined`` checks names; a folder renamed and replaced by a symlink to outside
    between that check and the write (a race an agent or an attacker can win: 32 of
    2,000 saves did) would take the temp file, the exchange and the fsync with it.
    The descriptor stays on the folder that was checked. ``path`` as it is without
    ``root`` (an extra path, a caller outside the workspace) or where ``/proc`` is
    missing.
    """
    if root is None or not os.path.isdir("/proc/self/fd"):
        yield path
        return
    try:
        fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        yield path  # no folder (yet): the write fails there with its own error
        return
    try:
        anchor = Path(f"/proc/self/fd/{fd}")
        real = os.readlink(anchor)
        if not _inside(real, os.path.realpath(root)):
            raise errors.PathNotAllowed(
                f"{printable(rel_path(Path(root), path))} leads to {printable(real)} outside the workspace: "
                f"memdesk writes only inside {printable(str(root))}"
            )
        yield anchor / path.name
    finally:
        os.close(fd)


def _write_and_swap(
    path: Path, data: bytes, *, mode: int, expected: str | None, merge: Callable[[DiskState], bytes | None]
) -> Any:
    """Put ``data`` at ``path`` atomically. None if what it replaced was the version the
    caller checked; ``_RETRY`` if a new note appeared meanwhile; else (what was
    displaced, ``merge(displaced)``), the displaced version put back in place when
    ``merge`` found no clean merge."""
    tmp = diskio.write_temp(path, data, mode=mode)
    try:
        if expected is None:
            try:
                os.link(tmp, path)  # fails if the note appeared meanwhile: nothing clobbered
            except FileExistsError:
                return _RETRY
            return None
        if _exchange(tmp, path):
            # ``tmp`` now holds whatever was at ``path`` at the instant of the swap.
            displaced = _settled_state(tmp)
            if displaced.digest == expected:
                return None
            merged = merge(displaced)
            if merged is None:
                _exchange(tmp, path)
            return displaced, merged
        # No atomic exchange: hold the old file open across the rename and look at
        # it afterwards; an append through another open descriptor still shows.
        old_fd = open_regular(path)
        try:
            os.replace(tmp, path)
            after = _state_of_fd(old_fd)
        finally:
            os.close(old_fd)
        if after.digest == expected:
            return None
        merged = merge(after)
        if merged is None and after.data is not None:
            diskio.write_atomic(path, after.data, mode=mode)
        return after, merged
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _settled_state(path: Path, *, wait_s: float = 2.0) -> DiskState:
    """``disk_state`` of a file nobody else has open any more.

    A writer that opened the note before the swap may still write into the displaced
    file; a write lease is granted only when no other descriptor is open on it, so
    once we hold one, what we read is final. Where leases are unavailable, read now.
    """
    try:
        fd = open_regular(path)
    except OSError:
        return disk_state(path)
    try:
        deadline = time.monotonic() + wait_s
        leased = False
        while fcntl is not None and hasattr(fcntl, "F_SETLEASE"):
            try:
                fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
                leased = True
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EBUSY) or time.monotonic() > deadline:
                    break
                time.sleep(0.005)
        state = _state_of_fd(fd)
        if leased:
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
        return state
    finally:
        os.close(fd)


def _state_of_fd(fd: int) -> DiskState:
    """``disk_state`` of an already open file (read from its start)."""
    os.lseek(fd, 0, os.SEEK_SET)
    parts: list[bytes] = []
    while chunk := os.read(fd, 1 << 20):
        parts.append(chunk)
    data = b"".join(parts)
    return DiskState(True, sha256(data), data if len(data) <= MAX_NOTE_BYTES else None)
