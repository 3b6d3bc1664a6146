"""The one exception family of memdesk's core.

Environment problems (a bad model file, an unreadable note, a corrupt index) are
``MemdeskError`` subclasses with a message fit to show a user as-is; anything
else escaping the core is a bug. A message made with ``messages.msg`` is also
translated when the GUI shows it.
"""

from __future__ import annotations

from memdesk.core.disk_state import DiskState
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg


class MemdeskError(Exception):
    """Base of every error the core raises on purpose; ``str(exc)`` is user-facing."""


class WorkspaceError(MemdeskError):
    """The workspace folder is missing or unusable."""


class PathNotAllowed(MemdeskError):
    """A path outside the memory files was requested (``memdesk get``, editor)."""


class NoteReadError(MemdeskError):
    """A note could not be read as UTF-8 text (binary, undecodable, too large)."""


class NoteChanged(MemdeskError):
    """A note changed on disk in a way that cannot be merged with the edit being saved.

    ``disk`` is a ``DiskState``: what is at the path now.
    """

    def __init__(self, path: object, disk: DiskState) -> None:
        super().__init__(
            msg(QT_TRANSLATE_NOOP("core", "{path} changed on disk since it was opened; not saved"), path=path)
        )
        self.disk = disk


class NoteReadOnly(MemdeskError):
    """The note has no write permission; saving over it needs the user's say-so."""


class StoreError(MemdeskError):
    """The SQLite index failed in a way that is not corruption."""


class IndexCorrupt(StoreError):
    """The index file is damaged; callers rebuild it from the Markdown files."""


class QueryRejected(StoreError):
    """SQLite refused a statement: an FTS5 query it cannot parse, a table that is not there."""


class IndexBusy(StoreError):
    """Another process held the index's write lock for longer than the busy timeout."""


class EmbedderUnavailable(MemdeskError):
    """No usable embedding model: missing, truncated or non-GGUF file, or no llama.cpp."""


class ModelBuildError(MemdeskError):
    """``memdesk model build`` could not produce a GGUF file (source package missing...)."""


class Cancelled(MemdeskError):
    """A long job stopped because its ``cancelled`` callback said so."""


class EvalError(MemdeskError):
    """An evaluation dataset or golden file is malformed."""
