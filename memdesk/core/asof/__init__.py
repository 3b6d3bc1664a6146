"""Search memory as it was on a past day (issue 23).

``snapshot`` writes the notes of the versions current at the end of that day (the
history store's ``History.at``, git commits included) into a folder of memdesk's data
dir, never the workspace, and keeps one such folder and its index per workspace and
day, the least recently used removed beyond ``snapshot.MAX_SNAPSHOTS``. ``search``
indexes that folder with the normal indexer (vectors of unchanged text copied from
the live index, not embedded again), searches it with the normal engine and
profile at that day's clock, and marks each hit with the version it came from and
whether its note differs now.
"""

from memdesk.core.asof.search import AsOfHit, AsOfResult, Snapshot, open_snapshot
from memdesk.core.asof.snapshot import NoteVersion, end_of_day

__all__ = ["AsOfHit", "AsOfResult", "NoteVersion", "Snapshot", "end_of_day", "open_snapshot"]
