"""A note's commits, read from the workspace's git repository with the ``git`` CLI.

Read only (``git log``, ``git cat-file``; optional locks off, so not even the index's
stat cache is refreshed), offline, with a timeout. No git binary, not a repository, a
note git does not track, a git that fails or hangs: no commits, and no error.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

log = logging.getLogger(__name__)

TIMEOUT_S = 10.0
_ZERO = "0" * 40
_MARK = "@@memdesk@@"


@dataclass(frozen=True)
class Commit:
    sha: str
    at: datetime  # the commit time, UTC
    path: str  # the note's path in that commit (it may have been renamed since)
    blob: str | None  # the note's git blob in that commit; None: the commit deleted it


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GIT_OPTIONAL_LOCKS="0",  # never write the repository's index while reading
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        LC_ALL="C",
    )
    return env


def _git(root: Path, args: list[str], *, stdin: bytes | None = None) -> bytes | None:
    binary = shutil.which("git")
    if binary is None:
        return None
    try:
        done = subprocess.run(
            [binary, "-C", str(root), "-c", "core.quotePath=false", *args],
            input=stdin,
            capture_output=True,
            timeout=TIMEOUT_S,
            env=_env(),
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("git %s in %s: %s (no git history shown)", args[0], root, exc)
        return None
    if done.returncode != 0:
        return None  # not a repository, no commits yet, a path outside the repository
    return done.stdout


def note_commits(root: Path, note: str) -> list[Commit]:
    """The commits that touched ``note`` (following renames), newest first."""
    out = _git(
        root,
        [
            "log",
            "--follow",
            "--no-color",
            "--no-abbrev",
            "--raw",
            "-z",
            f"--format={_MARK}%H %ct",
            "--",
            note,
        ],
    )
    if not out:
        return []
    commits: list[Commit] = []
    for record in out.decode("utf-8", "surrogateescape").split(_MARK)[1:]:
        parsed = _parse(record)
        if parsed is not None:
            commits.append(parsed)
    return commits


def _parse(record: str) -> Commit | None:
    """One commit of ``git log --raw -z``: "sha time\\0", then "\\n:modes blobs status\\0path\\0"
    (a rename or copy: "...status\\0old\\0new\\0")."""
    head, _, raw = record.partition("\0")
    parts = head.split()
    if len(parts) != 2:
        return None
    sha, stamp = parts
    fields = raw.strip("\n").split("\0")
    if not fields or not fields[0].startswith(":"):
        return None
    meta = fields[0].lstrip("\n").split()
    if len(meta) < 5:
        return None
    new_blob, status = meta[3], meta[4]
    if status[:1] in ("R", "C"):
        path = fields[2] if len(fields) > 2 else ""
    else:
        path = fields[1] if len(fields) > 1 else ""
    blob = None if status.startswith("D") or new_blob == _ZERO else new_blob
    return Commit(sha=sha, at=datetime.fromtimestamp(int(stamp), UTC), path=path, blob=blob)


def blob_contents(root: Path, blobs: list[str]) -> dict[str, bytes]:
    """The bytes of each git blob, read by one ``git cat-file --batch``."""
    if not blobs:
        return {}
    out = _git(root, ["cat-file", "--batch"], stdin="".join(f"{b}\n" for b in blobs).encode())
    if out is None:
        return {}
    contents: dict[str, bytes] = {}
    pos = 0
    while pos < len(out):
        end = out.index(b"\n", pos)
        header = out[pos:end].decode("ascii", "replace").split()
        pos = end + 1
        if len(header) != 3:  # "<sha> missing"
            continue
        size = int(header[2])
        contents[header[0]] = out[pos : pos + size]
        pos += size + 1  # the content, then a newline
    return contents


@dataclass(frozen=True)
class TreeFile:
    path: str  # relative to the workspace root
    blob: str
    size: int


def tree_at(root: Path, when: datetime) -> tuple[str, datetime, list[TreeFile]] | None:
    """The files under ``root`` in the last commit made at or before ``when`` (its sha
    and time too); None without a repository, git, or such a commit."""
    stamp = int(when.timestamp())
    out = _git(root, ["log", "-1", "--no-color", f"--before=@{stamp}", "--format=%H %ct", "HEAD"])
    if not out or len(out.split()) != 2:
        return None
    sha, ct = out.decode("ascii", "replace").split()
    listing = _git(root, ["ls-tree", "-r", "-z", "-l", sha, "--", "."])
    if listing is None:
        return None
    files: list[TreeFile] = []
    for entry in listing.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) != 4 or parts[1] != "blob" or not parts[3].isdigit():
            continue
        files.append(TreeFile(path=path, blob=parts[2], size=int(parts[3])))
    return sha, datetime.fromtimestamp(int(ct), UTC), files


@dataclass(frozen=True)
class FileChange:
    """One file a commit changed, as ``changes_between`` lists it."""

    sha: str
    at: datetime  # the commit time, UTC
    path: str  # relative to the workspace root
    blob: str | None  # the file's git blob after the commit; None: the commit deleted it
    added: int | None  # lines added and removed (``--numstat``); None for a binary file
    removed: int | None


def changes_between(root: Path, since: datetime, until: datetime | None = None) -> list[FileChange]:
    """The files under ``root`` each commit made in ``[since, until)`` changed, oldest
    first (a rename is a deletion and an addition: the notes are kept by path)."""
    args = ["log", "--no-color", "--no-abbrev", "--no-renames", "--relative", "--raw", "--numstat", "-z"]
    args += [f"--format={_MARK}%H %ct", f"--since=@{int(since.timestamp())}"]
    if until is not None:
        args.append(f"--until=@{int(until.timestamp())}")
    out = _git(root, [*args, "--", "."])
    if not out:
        return []
    found: list[FileChange] = []
    # git lists the newest commit first: read oldest first, so equal times keep git's order.
    for record in reversed(out.decode("utf-8", "surrogateescape").split(_MARK)[1:]):
        found.extend(_parse_files(record))
    # git's --since/--until take whole seconds and both ends: the period is half open.
    end = until if until is not None else datetime.max.replace(tzinfo=UTC)
    return sorted((c for c in found if since <= c.at < end), key=lambda c: c.at)


def _parse_files(record: str) -> list[FileChange]:
    """One commit of ``git log --raw --numstat -z``: "sha time\\0", then per file
    "\\n:modes blobs status\\0path\\0", then per file "added\\tremoved\\tpath\\0"."""
    fields = record.split("\0")
    parts = fields[0].split()
    if len(parts) != 2 or not parts[1].isdigit():
        return []
    sha, at = parts[0], datetime.fromtimestamp(int(parts[1]), UTC)
    blobs: dict[str, str | None] = {}
    counts: dict[str, tuple[int | None, int | None]] = {}
    i = 1
    while i < len(fields):
        field = fields[i].lstrip("\n")
        if field.startswith(":") and i + 1 < len(fields):
            meta = field.split()
            if len(meta) >= 5:
                deleted = meta[4].startswith("D") or meta[3] == _ZERO
                blobs[fields[i + 1]] = None if deleted else meta[3]
            i += 2
            continue
        added, tab, rest = field.partition("\t")
        removed, tab2, path = rest.partition("\t")
        if tab and tab2:
            counts[path] = (
                int(added) if added.isdigit() else None,
                int(removed) if removed.isdigit() else None,
            )
        i += 1
    return [FileChange(sha, at, path, blob, *counts.get(path, (None, None))) for path, blob in blobs.items()]
