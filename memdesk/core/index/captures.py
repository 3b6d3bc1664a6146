"""The hooks that give ``core/history`` every version of every note, from each source.

* the index's sync (``indexer.sync_files``): what it read of each changed file, source
  "disk"; a file gone, "deleted"; the first time a workspace is seen, each note as its
  baseline;
* the safe save (``workspace.save_note``) and note create, rename, trash, restore
  (``notes.py``, ``trash.py``): source "memdesk" (``memory_append`` passes "mcp").

Capture never stops what it hooks: a failure is logged and the sync or save goes on.
The same bytes seen again (the sync finding the file memdesk just saved) are not a new
version: the store dedups by digest. A sync that reads memdesk's write before its
writer captured it records it as memdesk's: the writer announces its bytes first
(``expect``).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core import errors
from memdesk.core.history import History, shared
from memdesk.core.history.version import DELETED, DISK, MEMDESK
from memdesk.core.index import workspace
from memdesk.core.messages import of as message_of

log = logging.getLogger(__name__)

__all__ = [
    "DELETED",
    "DISK",
    "MEMDESK",
    "SyncCaptures",
    "expect",
    "gone",
    "kept_form",
    "saved",
    "unexpected",
    "wrote",
]


def kept_form(rel: str, data: bytes | None, size: int) -> tuple[bytes | None, str | None, int]:
    """What the history keeps of a note: (bytes, None, size) for a text note, (bytes,
    reason, size) for one that is not text (binary, not UTF-8: digest only), (None,
    reason, size) for one over the size limit, which was not read."""
    if data is None:
        return None, workspace.too_large(size), size
    try:
        workspace.decode_note(data, name=rel)
    except errors.NoteReadError as exc:
        return data, message_of(exc), len(data)
    return data, None, len(data)


def _capture(history: History | None, rel: str, data: bytes | None, size: int, source: str) -> None:
    if history is None:
        return
    try:
        if source == DELETED:
            history.capture(rel, None, source=DELETED)
        else:
            kept, reason, size = kept_form(rel, data, size)
            history.capture(rel, kept, source=source, reason=reason, size=size)
    except Exception as exc:  # capture never stops a save or a sync
        # A warning, not an error: the CLI shows errors on stderr, and a command that
        # did its work (a full disk's history aside) must still print one line at most.
        log.warning("could not keep a version of %s in the history: %s", rel, exc, exc_info=True)


# -- memdesk's own writes ------------------------------------------------------------------
def saved(root: Path | None, path: Path, data: bytes, *, source: str = MEMDESK) -> None:
    """memdesk wrote ``data`` to the note at ``path`` of the workspace ``root``."""
    if root is not None:
        _capture(shared.for_workspace(root), workspace.rel_path(root, path), data, len(data), source)


def expect(root: Path | None, path: Path, data: bytes, *, source: str = MEMDESK) -> None:
    """memdesk is about to write ``data`` to the note at ``path``: a sync that reads it
    before ``saved`` records it as ``source``'s, not as a change on disk."""
    if root is None:
        return
    history = shared.for_workspace(root)
    if history is None:
        return
    try:
        history.expect(workspace.rel_path(root, path), data, source=source)
    except Exception as exc:  # capture never stops a save
        log.warning("could not announce memdesk's write of %s to the history: %s", path, exc)


def unexpected(root: Path | None, path: Path) -> None:
    """The write ``expect`` announced did not happen."""
    history = None if root is None else shared.for_workspace(root)
    if root is None or history is None:
        return
    try:
        history.forget_expected(workspace.rel_path(root, path))
    except Exception as exc:
        log.warning("could not update the history of %s: %s", path, exc)


def wrote(root: Path | None, path: Path, *, source: str = MEMDESK) -> None:
    """memdesk created or moved the note at ``path``: kept as it is on disk now."""
    if root is None:
        return
    try:
        data: bytes | None = workspace.read_bytes(path)
        size = len(data or b"")
    except OSError:
        try:
            size = os.stat(path).st_size
        except OSError:
            return
        data = None
    _capture(shared.for_workspace(root), workspace.rel_path(root, path), data, size, source)


def gone(root: Path | None, path: Path) -> None:
    """memdesk moved the note at ``path`` away (renamed it, sent it to the trash)."""
    if root is not None:
        _capture(shared.for_workspace(root), workspace.rel_path(root, path), None, 0, DELETED)


# -- the index's sync --------------------------------------------------------------------
@dataclass
class SyncCaptures:
    """The versions one sync saw, kept together: one transaction per batch of files."""

    history: History | None
    pending: list[tuple[str, bytes | None, int, str]] = field(default_factory=list)
    count: int = 0
    seconds: float = 0.0

    def add(self, rel: str, data: bytes | None, size: int, source: str) -> None:
        if self.history is not None:
            self.pending.append((rel, data, size, source))

    def flush(self) -> None:
        if self.history is None or not self.pending:
            return
        start = time.perf_counter()
        try:
            with self.history.batch():
                for rel, data, size, source in self.pending:
                    _capture(self.history, rel, data, size, source)
        except Exception as exc:
            log.warning("could not keep the versions of %d notes in the history: %s", len(self.pending), exc)
        self.count += len(self.pending)
        self.pending.clear()
        self.seconds += time.perf_counter() - start

    def baseline(self, root: Path, files: Iterable[Path]) -> None:
        """The first time this workspace's history is used: each note as it is now.
        Also applies the retention policy, once a day."""
        history = self.history
        if history is None:
            return
        start = time.perf_counter()
        try:
            history.prune_if_due()  # retention, once a day, on the sync's thread
        except Exception as exc:
            log.warning("could not prune the history of %s: %s", root, exc, exc_info=True)
        if not history.needs_baseline():
            self.seconds += time.perf_counter() - start
            return

        def read_all() -> Iterable[tuple[str, bytes | None, str | None, int]]:
            for path in files:
                rel = workspace.rel_path(root, path)
                try:
                    st = path.stat()
                    data = None if st.st_size > workspace.MAX_NOTE_BYTES else workspace.read_bytes(path)
                except OSError as exc:
                    log.info("history baseline: %s skipped (%s)", rel, exc.strerror or exc)
                    continue
                kept, reason, size = kept_form(rel, data, st.st_size)
                yield rel, kept, reason, size

        try:
            taken = history.take_baseline(read_all())
            log.info("history: kept %d notes of %s as their first versions", taken, root)
        except Exception as exc:
            log.warning("could not keep the history's first versions of %s: %s", root, exc, exc_info=True)
        self.seconds += time.perf_counter() - start
