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
