"""Note operations on a workspace: safe names, create, rename, delete to the trash, the daily note.

The GUI and the ``memdesk new``/``memdesk today`` commands use these; every failure is a
``MemdeskError`` with a one-line reason, nothing is overwritten, and only paths that
discovery lists as memory notes (``MEMORY.md``/``memory.md``, ``memory/**/*.md``) are touched.
Deleting moves the file to the system trash and returns the ``trash.Trashed`` record that
``trash.restore`` undoes (moving that very file back).

Every write goes through ``workspace.confined``: a folder that is a symlink leading out
of the workspace is refused with one line (discovery skips symlinks, so a note written
there would be outside the workspace and invisible too). A new note follows the
workspace's own conventions: its file name is spelled as its neighbours' are
(``q1-budget-ideas.md`` beside ``atlas.md``; the title stays the heading) and it gets
their permission bits, as does a new folder its parent's.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import stat
import unicodedata
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from memdesk.core import errors
from memdesk.core.index import captures, trash, workspace

# Characters kept in a note name typed by a person: letters/digits of any script,
# "_", "-", " " and "."; and, beyond ASCII, symbols (emoji), the marks that combine with
# a letter (and emoji's variation selectors) and the zero-width joiner of emoji
# sequences: all valid in a file name, listed by discovery and indexed by the agent like
# any other, and what the user typed. Anything else (slashes, colons, quotes, control
# characters) becomes "-" (``replaced`` names them, for the user to be told).
_KEPT_CATEGORIES = frozenset({"So", "Sk", "Mn", "Mc", "Me"})
_ZWJ = "\u200d"


def _kept(c: str) -> bool:
    if c.isalnum() or c in "_- .":
        return True
    return ord(c) > 127 and (c == _ZWJ or unicodedata.category(c) in _KEPT_CATEGORIES)


def safe_name(name: str) -> str:
    """``name`` as a file name without the ``.md`` suffix ("" when nothing usable is left)."""
    cleaned = re.sub("\0+", "-", "".join(c if _kept(c) else "\0" for c in name)).strip(" .-")
    return cleaned.removesuffix(".md").strip(" .-")


def replaced(name: str) -> list[str]:
    """The characters of ``name`` that ``safe_name`` turns into "-", each once, in order."""
    return list(dict.fromkeys(c for c in name if not _kept(c)))


def heading(title: str) -> str:
    """A typed title as a note's first heading: one line, blanks collapsed."""
    return " ".join("".join(c if c.isprintable() else " " for c in title).split())


def note_path(folder: str, name: str) -> str:
    """The workspace-relative path of note ``name`` in ``folder`` (``folder/<safe name>.md``)."""
    stem = safe_name(name)
    if not stem:
        raise errors.MemdeskError(f"{name!r} is not a usable note name")
    folder = folder.strip("/")
    return f"{folder}/{stem}.md" if folder else f"{stem}.md"


# A daily note's stem: its name says nothing about the workspace's naming style.
_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _neighbour_notes(root: Path, folder: str) -> list[Path]:
    """The notes in ``folder`` (not through symlinks), sorted."""
    here = Path(root) / folder if folder else Path(root)
    try:
        return sorted(p for p in here.iterdir() if p.suffix == ".md" and p.is_file() and not p.is_symlink())
    except OSError:
        return []


def _named(notes: Sequence[Path]) -> list[str]:
    """The stems that show a naming style: not the root files, not dated daily notes."""
    return [n.stem for n in notes if n.name not in workspace.ROOT_FILES and not _DATED.match(n.stem)]


def _styled_stem(stem: str, names: Sequence[str]) -> str:
    """``stem`` spelled as ``names`` are: with spaces if they have spaces, else words
    joined by ``-`` (or ``_`` when that is theirs), lower-case unless they use capitals.
    With no names to go by: OpenClaw's own ``lower-case-hyphenated``."""
    if any(" " in n for n in names):
        return stem
    joiner = "_" if any("_" in n for n in names) and not any("-" in n for n in names) else "-"
    styled = re.sub(r"[\s_-]+", joiner, stem)
    if not any(c.isupper() for n in names for c in n):
        styled = styled.lower()
    return styled


def new_note_path(root: Path, folder: str, title: str) -> str:
    """The workspace-relative path a new note titled ``title`` gets in ``folder``, its
    file name spelled like the folder's notes (else the workspace's); ``note_path``
    keeps a name as typed."""
    stem = safe_name(title)
    if not stem:
        raise errors.MemdeskError(f"{title!r} is not a usable note name")
    folder = folder.strip("/")
    names = _named(_neighbour_notes(root, folder)) or _named(workspace.list_memory_files(root))
    return note_path(folder, _styled_stem(stem, names))


def _neighbour_mode(path: Path, root: Path) -> int:
    """The permission bits a new note at ``path`` gets: those of a note beside it, else
    of the root memory file, else a new file's default under the umask."""
    here = _neighbour_notes(root, workspace.rel_path(root, path.parent))
    for candidate in (*here, *(Path(root) / n for n in workspace.ROOT_FILES)):
        try:
            st = candidate.lstat()
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            return stat.S_IMODE(st.st_mode)
    return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask, read without changing it (``os.umask`` sets it to read it,
    which another thread creating a file at that instant would see)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def _make_folders(root: Path, folder: Path) -> None:
    """Create ``folder`` and any missing parents inside ``root``, each with the
    permission bits of the folder it is made in (not the umask's)."""
    missing: list[Path] = []
    current = Path(os.path.abspath(folder))
    top = Path(os.path.abspath(root))
    top.mkdir(parents=True, exist_ok=True)  # a workspace of its first note
    while not current.exists() and current != top and current.parent != current:
        missing.append(current)
        current = current.parent
    for new in reversed(missing):
        mode = stat.S_IMODE(new.parent.stat().st_mode)
        new.mkdir()
        os.chmod(new, mode)


def daily_note_path(date: dt.date) -> str:
    """OpenClaw's daily note: ``memory/YYYY-MM-DD.md``."""
    return f"memory/{date.isoformat()}.md"


def _target(root: Path, rel: str) -> Path:
    """``rel`` as a new note's path inside ``root`` that discovery would list as a memory
    note, reached through no symlink out of the workspace."""
    parts = PurePosixPath(rel.replace("\\", "/"))
    if parts.is_absolute() or ".." in parts.parts or parts.suffix != ".md":
        raise errors.PathNotAllowed(f"{rel}: a note is a .md path inside the workspace")
    normalized = parts.as_posix()
    if normalized not in workspace.ROOT_FILES and not normalized.startswith("memory/"):
        raise errors.PathNotAllowed(f"{rel}: notes live in MEMORY.md or under memory/")
    return workspace.confined(root, normalized)


def _existing(root: Path, rel: str, extra_paths: Sequence[Path | str]) -> Path:
    """An existing note discovery lists (the memory layout or an extra path)."""
    try:
        return workspace.resolve_note(root, rel, extra_paths)
    except errors.PathNotAllowed:
        if not (Path(root) / rel).exists():
            raise errors.MemdeskError(f"{rel}: no such note") from None
        raise


def create_note(root: Path, rel: str, text: str, *, source: str = "memdesk") -> Path:
    """Write a new note (creating its folders); refuses to overwrite one that exists.
    Its first version is kept in the history, from ``source``."""
    path = _target(root, rel)
    if path.exists():
        raise errors.MemdeskError(f"{rel} already exists")
    data = text.encode("utf-8")
    captures.expect(root, path, data, source=source)  # a sync reading it first: still ours
    try:
        _make_folders(root, path.parent)
        workspace.write_note_atomic(path, text, mode=_neighbour_mode(path, root))
    except OSError as exc:
        captures.unexpected(root, path)
        raise errors.MemdeskError(f"Cannot create {rel}: {exc.strerror or exc}") from None
    captures.saved(root, path, data, source=source)
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
        dst = workspace.confined(root, src.parent / new_path.name, also=extra_paths)
    else:
        dst = _target(root, new)
    workspace.confined(root, src, also=extra_paths)
    if os.path.lexists(dst):
        raise errors.MemdeskError(f"{new} already exists")
    try:
        _make_folders(root, dst.parent)
        os.rename(src, dst)
    except OSError as exc:
        raise errors.MemdeskError(f"Cannot rename {old}: {exc.strerror or exc}") from None
    # In the history: the old name's timeline ends, the new name's starts with its content.
    captures.gone(root, src)
    captures.wrote(root, dst)
    return dst


def open_daily_note(root: Path, date: dt.date, *, source: str = "memdesk") -> tuple[str, bool]:
    """The daily note of ``date``, created with its heading if missing: (path, created)."""
    rel = daily_note_path(date)
    if _target(root, rel).exists():  # never one reached through a symlink out
        return rel, False
    create_note(root, rel, f"# {date.isoformat()}\n\n", source=source)
    return rel, True


def delete_note(root: Path, rel: str, extra_paths: Sequence[Path | str] = ()) -> trash.Trashed:
    """Move note ``rel`` to the system trash; ``trash.restore`` of the record undoes it."""
    path = workspace.confined(root, _existing(root, rel, extra_paths), also=extra_paths)
    try:
        trashed = trash.move_to_trash(path, root=root, extra_paths=extra_paths)
    except OSError as exc:  # send2trash's TrashPermissionError is one too
        raise errors.MemdeskError(f"Cannot move {rel} to the trash: {exc.strerror or exc}") from None
    captures.gone(root, path)
    return trashed
