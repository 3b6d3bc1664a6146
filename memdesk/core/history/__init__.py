"""Every version of every note, kept: the version store of a workspace (issue 23).

``open_history(root)`` gives the ``History`` of one workspace: ``capture`` records a
note's content (source "memdesk", "disk", "mcp", "deleted", "baseline"), ``timeline``,
``content``, ``previous``, ``changes`` (``summarize``, ``note_changes``) and ``at`` read it back (a git repository's
commits included where asked), ``retention``/``prune`` age it. ``diff`` holds the hunks
a restore or a review works with. Below ``index`` among core's floors, so the index's
sync captures with the bytes it already read.
"""

from memdesk.core.history.retention import Retention
from memdesk.core.history.store import History, open_history
from memdesk.core.history.version import SourceCount, Version

__all__ = ["History", "Retention", "SourceCount", "Version", "open_history"]
