"""Memory as it was on a day, written out: a folder of notes in memdesk's data dir.

One folder per workspace and day (``data_dir/asof/<workspace index name>-<day>``)
holds ``notes/`` (a workspace of those versions: ``MEMORY.md``, ``memory/…``),
``index.sqlite`` (its own index) and ``manifest.json`` (which version each note is).
A folder is reused while valid: notes whose version is the one recorded are not
written again, and the index is synced incrementally. Each note's file gets its
version's time as its modification time, which is what undated notes age from.
Beyond ``MAX_SNAPSHOTS`` folders the least recently used go.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import logging
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from memdesk.core import diskio, errors, paths
from memdesk.core.history import History, Version
from memdesk.core.history.version import DELETED, GIT
from memdesk.core.index import workspace

log = logging.getLogger(__name__)

# Folders kept across workspaces and days: each holds a copy of the notes and an index
# (with vectors), so the data dir would otherwise grow with every day looked at.
MAX_SNAPSHOTS = 4
FOLDER = "asof"
MANIFEST = "manifest.json"
INDEX = "index.sqlite"
NOTES = "notes"
USED = ".used"  # its modification time: when the folder was last opened (LRU)


def versions_at(history: History, when: dt.datetime, *, git: bool | None = None) -> dict[str, Version]:
    """For each note, its version current at ``when`` (notes deleted by then left out).

    ``History.at`` reads the store alone; when the workspace is in a git repository
    (``git`` None: looked up), each note's commits count too, the newer of the two
    winning: a note committed, then changed and captured, is its captured version;
    captured, then committed again (a ``git pull``), its commit.
    """
    stored = history.at(when)
    if git is None:
        git = in_git_repository(history.root)
    if not git:
        return stored
    limit = when.astimezone(dt.UTC)
    out: dict[str, Version] = {}
    notes = set(history.notes()) | set(stored) | _listed(history.root)
    for note in sorted(notes):
        current = next((v for v in history.timeline(note, git=True) if v.at <= limit), None)
        if current is None or current.source == DELETED or (current.source == GIT and current.digest is None):
            continue  # not yet written, or deleted by then
        out[note] = current
    return out


def _listed(root: Path) -> set[str]:
    return {workspace.rel_path(root, p) for p in workspace.list_memory_files(root)}


def in_git_repository(root: Path) -> bool:
    """Whether ``root`` lies in a git working tree (a ``.git`` in it or above it)."""
    folder = Path(os.path.realpath(root))
    return any((p / ".git").exists() for p in (folder, *folder.parents))


@dataclasses.dataclass(frozen=True)
class NoteVersion:
    """The version of one note current on the day searched."""

    note: str
    id: str
    at: dt.datetime
    source: str
    size: int
    digest: str | None

    @classmethod
    def of(cls, version: Version) -> NoteVersion:
        return cls(version.note, version.id, version.at, version.source, version.size, version.digest)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "at": self.at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
            "source": self.source,
        }


def end_of_day(day: dt.date) -> dt.datetime:
    """The last instant of ``day`` on this machine's clock, aware (what "as of" a day means)."""
    end = dt.datetime.combine(day, dt.time.max)
    try:
        return end.astimezone()
    except (ValueError, OverflowError):  # 0001-01-01: no local time converts at year 1
        return end.replace(tzinfo=dt.UTC)


def root() -> Path:
    return paths.private_dir(paths.data_dir() / FOLDER)


def folder_for(workspace: Path, day: dt.date) -> Path:
    """The snapshot folder of ``workspace`` on ``day`` (named after its live index)."""
    return root() / f"{paths.index_path_for(workspace).stem}-{day.isoformat()}"


def safe_rel(note: str) -> PurePosixPath | None:
    """``note`` as a relative path that stays inside the folder, or None."""
    rel = PurePosixPath(note)
    if not note or rel.is_absolute() or any(part in ("", ".", "..") for part in rel.parts) or "\\" in note:
        return None
    return rel


@dataclasses.dataclass(frozen=True)
class Materialized:
    """A snapshot folder brought up to date with the versions of its day."""

    folder: Path
    notes_dir: Path
    db_path: Path
    versions: dict[str, NoteVersion]  # note -> version, for every note written
    written: dict[str, bytes]  # the notes written this time (the rest were already there)
    skipped: dict[str, str]  # note -> why it is not in the snapshot (content not kept, bad name)


def _read_manifest(folder: Path) -> dict[str, str]:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        notes = data.get("notes", {}) if isinstance(data, dict) else {}
        return {str(k): str(v) for k, v in notes.items()} if isinstance(notes, dict) else {}
    except (OSError, ValueError):
        return {}


def materialize(
    workspace: Path,
    day: dt.date,
    versions: Mapping[str, Version],
    content: Callable[[Version], bytes | None],
    *,
    cancelled: Callable[[], bool] | None = None,
) -> Materialized:
    """Write ``versions`` (note -> version) into the folder of ``workspace`` on ``day``.

    A note already there as the same version is kept as it is; notes not in
    ``versions`` are removed. The manifest is written last and only lists notes on
    disk, so a run stopped half way is finished by the next one.
    """
    folder = folder_for(workspace, day)
    notes_dir = paths.private_dir(folder / NOTES)
    before = _read_manifest(folder)
    kept: dict[str, NoteVersion] = {}
    written: dict[str, bytes] = {}
    skipped: dict[str, str] = {}
    # The manifest goes first, emptied of what is about to change: a crash mid-way
    # leaves no entry claiming a file that was not written.
    _write_manifest(
        folder, workspace, day, {n: i for n, i in before.items() if n in versions and versions[n].id == i}
    )
    for note, version in sorted(versions.items()):
        if cancelled is not None and cancelled():
            raise errors.Cancelled("cancelled")
        rel = safe_rel(note)
        if rel is None:
            skipped[note] = "not a path inside the workspace"
            continue
        target = notes_dir.joinpath(*rel.parts)
        if before.get(note) == version.id and target.is_file() and not target.is_symlink():
            kept[note] = NoteVersion.of(version)
            continue
        data = content(version)
        if data is None:
            skipped[note] = "the history keeps no content for this version"
            with contextlib.suppress(FileNotFoundError):
                target.unlink()
            continue
        _write(target, data)
        stamp = int(version.at.timestamp() * 1_000_000_000)
        os.utime(target, ns=(stamp, stamp))
        kept[note] = NoteVersion.of(version)
        written[note] = data
    _remove_others(notes_dir, set(kept))
    _write_manifest(folder, workspace, day, {n: v.id for n, v in kept.items()})
    touch(folder)
    return Materialized(folder, notes_dir, folder / INDEX, kept, written, skipped)


def _write(target: Path, data: bytes) -> None:
    """The note's bytes, whole or not at all, without fsync: the folder is a disposable
    copy (a note torn by a crash is not in the manifest, so it is written again)."""
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as fh:
        fh.write(data)
    os.replace(tmp, target)


def _write_manifest(folder: Path, workspace: Path, day: dt.date, notes: Mapping[str, str]) -> None:
    body = {"workspace": str(workspace), "day": day.isoformat(), "notes": dict(sorted(notes.items()))}
    diskio.write_atomic(folder / MANIFEST, json.dumps(body, ensure_ascii=False).encode("utf-8"))


def _remove_others(notes_dir: Path, keep: set[str]) -> None:
    """Delete files under ``notes_dir`` that are no note of the snapshot, and empty folders."""
    for dirpath, dirnames, filenames in os.walk(notes_dir, topdown=False):
        base = Path(dirpath)
        for name in filenames:
            path = base / name
            if path.relative_to(notes_dir).as_posix() not in keep:
                with contextlib.suppress(OSError):
                    path.unlink()
        for name in dirnames:
            with contextlib.suppress(OSError):
                (base / name).rmdir()  # only when empty


def touch(folder: Path) -> None:
    """Mark ``folder`` as just used (the LRU order of ``prune``)."""
    marker = folder / USED
    marker.touch()
    os.utime(marker)


def _last_used(folder: Path) -> float:
    try:
        return (folder / USED).stat().st_mtime
    except OSError:
        return 0.0


def prune(keep: Path | None = None, limit: int = MAX_SNAPSHOTS) -> list[Path]:
    """Remove the least recently used snapshot folders beyond ``limit`` (never ``keep``)."""
    folders = sorted((p for p in root().iterdir() if p.is_dir()), key=_last_used, reverse=True)
    survivors = [keep] if keep is not None else []
    removed: list[Path] = []
    for folder in folders:
        if folder == keep:
            continue
        if len(survivors) < limit:
            survivors.append(folder)
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
        log.info("removed the snapshot %s (least recently used)", folder.name)
    return removed


def remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
