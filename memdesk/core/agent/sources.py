"""Which files the agent indexes, by OpenClaw's own listing rules for its release.

* 2026.4 (``listMemoryFiles`` in v2026.4.12): ``MEMORY.md``, ``memory.md``,
  ``memory/**/*.md`` and plain ``extraPaths`` entries.
* 2026.9 (v2026.9.6): ``MEMORY.md`` (exact name), ``USER.md``, ``memory/**/*.md``
  (``memory/imports/**`` included; ``.openclaw-repair`` folders skipped) and
  ``extraPaths`` entries that may be ``{path, pattern}`` with a root-relative glob.
  The legacy ``memory.md`` is no longer indexed, and neither version indexes
  ``DREAMS.md`` (the agent can still read it with ``memory_get``).

Both skip symlinks (files, folders and symlinked extra roots), keep only names ending
in a case-sensitive ``.md``, and de-duplicate by realpath with the first occurrence
winning. What they skip is reported too, so the doctor can say so.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wcmatch import glob as wcglob

from .config import ExtraPath, Layout, expand_home

# path.posix.matchesGlob semantics: ** spans folders, braces expand, dot files match.
_GLOB_FLAGS = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTGLOB | wcglob.EXTGLOB


@dataclass(frozen=True)
class SourceFile:
    """A file the agent indexes: absolute path and the relative path it stores."""

    abs_path: Path
    rel_path: str
    kind: str
    """``memory`` (workspace memory), ``root`` (MEMORY.md / USER.md) or ``extra``."""


@dataclass(frozen=True)
class Skipped:
    """A file or folder the user may expect the agent to search, and why it does not."""

    path: str
    reason: str


@dataclass
class SourceListing:
    files: list[SourceFile] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def rel_paths(self) -> list[str]:
        return [f.rel_path for f in self.files]


def rel_path(workspace: Path, path: Path) -> str:
    """``path.relative(workspaceDir, absPath)`` with ``/`` (``../x.md`` outside the workspace)."""
    return os.path.relpath(path, workspace).replace(os.sep, "/")


def content_hash(path: Path) -> str:
    """OpenClaw's file hash: sha256 of the content read as UTF-8 (invalid bytes -> U+FFFD)."""
    data = path.read_bytes()
    return hashlib.sha256(data.decode("utf-8", "replace").encode("utf-8")).hexdigest()


def _regular_file(path: Path) -> bool:
    try:
        return path.is_file() and not path.is_symlink()
    except OSError:
        return False


def _walk(directory: Path, skipped: list[Skipped], workspace: Path, *, layout: Layout) -> list[Path]:
    """Regular ``*.md`` files under ``directory``, never following symlinks, in the
    release's order: 2026.9 sorts each root's files by path; 2026.4 walks depth-first
    in ``fs.readdir`` order, which libuv sorts by name (byte order) in every folder, so
    ``memory/2026-09/`` comes before ``memory/2026-09-19.md``. The order is the index's
    insertion order, which breaks OpenClaw's ties between equal scores."""
    found: list[Path] = []

    def visit(folder: Path) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            skipped.append(Skipped(rel_path(workspace, folder), f"cannot be listed ({exc.strerror})"))
            return
        for entry in entries:
            entry_path = Path(entry.path)
            try:
                if entry.is_symlink():
                    skipped.append(
                        Skipped(rel_path(workspace, entry_path), "is a symlink; the agent skips symlinks")
                    )
                elif entry.is_dir(follow_symlinks=False):
                    if not (layout == "2026.9" and entry.name == ".openclaw-repair"):
                        visit(entry_path)
                elif entry.is_file(follow_symlinks=False):
                    if entry.name.endswith(".md"):
                        found.append(entry_path)
                    elif entry.name.lower().endswith((".md", ".markdown", ".txt")):
                        skipped.append(
                            Skipped(
                                rel_path(workspace, entry_path),
                                "does not end in a lower-case .md, so the agent ignores it",
                            )
                        )
            except OSError:
                continue

    visit(directory)
    skipped.sort(key=lambda s: s.path)
    return found if layout == "2026.4" else sorted(found, key=str)


def _matches(entry_root: Path, candidate: Path, pattern: str | None) -> bool:
    if not pattern:
        return True
    relative = os.path.relpath(candidate, entry_root).replace(os.sep, "/")
    if relative.startswith("../"):
        return False
    return bool(wcglob.globmatch(relative, pattern.replace("\\", "/"), flags=_GLOB_FLAGS))


def list_agent_files(workspace: Path, extra_paths: Sequence[ExtraPath], layout: Layout) -> SourceListing:
    """The files the agent of this release indexes, in its order, and what it skips."""
    workspace = Path(workspace)
    listing = SourceListing()
    found: list[tuple[Path, str]] = []
    roots = ("MEMORY.md", "memory.md") if layout == "2026.4" else ("MEMORY.md", "USER.md")
    for name in roots:
        candidate = workspace / name
        if name == "MEMORY.md" and layout == "2026.9":
            # 2026.9 looks for the exact directory entry, so a case-insensitive
            # filesystem's "memory.md" does not stand in for it.
            try:
                present = name in os.listdir(workspace)
            except OSError:
                present = False
            if not present:
                continue
        if candidate.is_symlink():
            listing.skipped.append(Skipped(name, "is a symlink; the agent skips symlinks"))
        elif _regular_file(candidate):
            found.append((candidate, "root"))
    if layout == "2026.9" and _regular_file(workspace / "memory.md") and "memory.md" in os.listdir(workspace):
        listing.skipped.append(
            Skipped(
                "memory.md",
                "OpenClaw 2026.9 no longer indexes the legacy lower-case memory.md; rename it to MEMORY.md",
            )
        )
    if layout == "2026.4" and _regular_file(workspace / "USER.md"):
        listing.skipped.append(Skipped("USER.md", "OpenClaw 2026.4 does not index USER.md"))
    for name in ("DREAMS.md", "dreams.md"):
        try:
            present = name in os.listdir(workspace)
        except OSError:
            present = False
        if present:
            listing.skipped.append(
                Skipped(
                    name,
                    "dream diaries are not indexed; the agent reads "
                    "this file only when it asks for it by name",
                )
            )
    memory_dir = workspace / "memory"
    if memory_dir.is_symlink():
        listing.skipped.append(Skipped("memory", "the memory folder is a symlink; the agent skips it"))
    elif memory_dir.is_dir():
        found += [(p, "memory") for p in _walk(memory_dir, listing.skipped, workspace, layout=layout)]
    seen_roots: set[tuple[str, str]] = set()
    for entry in extra_paths:
        raw = entry.path.strip()
        if not raw:
            continue
        root = expand_home(raw) if layout == "2026.9" else Path(raw)
        root = root if root.is_absolute() else workspace / root
        root = Path(os.path.normpath(root))
        key = (str(root), entry.pattern or "")
        if key in seen_roots:
            continue
        seen_roots.add(key)
        shown = entry.path if entry.pattern is None else f"{entry.path} ({entry.pattern})"
        if root.is_symlink():
            listing.skipped.append(
                Skipped(shown, "extra path is a symlink; configure its real absolute folder instead")
            )
            continue
        if not root.exists():
            listing.skipped.append(Skipped(shown, "extra path does not exist"))
            continue
        if root.is_dir():
            before = len(found)
            found += [
                (p, "extra")
                for p in _walk(root, listing.skipped, workspace, layout=layout)
                if _matches(root, p, entry.pattern)
            ]
            if len(found) == before:
                listing.skipped.append(Skipped(shown, "extra path matches no .md file"))
        elif root.is_file():
            if root.name.endswith(".md"):
                found.append((root, "extra"))
            else:
                listing.skipped.append(Skipped(shown, "extra path is not a .md file"))
    seen: set[str] = set()
    for path, kind in found:
        try:
            real = os.path.realpath(path)
        except OSError:
            real = str(path)
        if real in seen:
            continue
        seen.add(real)
        listing.files.append(SourceFile(path, rel_path(workspace, path), kind))
    return listing
