"""A workspace's own search settings, kept beside its golden set (``.memdesk/tuned.json``).

Settings tuned on one workspace's golden set say nothing about another workspace's
notes, so they belong to the workspace, not to the user's preferences: opening
another workspace never carries them over. The file holds, per ranking profile, the
values that differ from the profile's defaults and, when auto-tune chose them, how
many of this workspace's labelled queries they were tuned on. It is JSON written
atomically with the workspace's safe write, like the golden set.

    {"version": 1, "profile": "memdesk",
     "profiles": {"memdesk": {"settings": {"vector_weight": 0.9, "text_weight": 0.1},
                              "tuned_queries": 12}}}
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memdesk.core import diskio, errors
from memdesk.core.index import workspace as workspace_mod
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.core.search import settings as settings_mod

log = logging.getLogger(__name__)

TUNED_REL = ".memdesk/tuned.json"
VERSION = 1
# A few hundred bytes in practice: a megabyte is no settings file.
MAX_TUNED_BYTES = 1 << 20


@dataclasses.dataclass(frozen=True)
class ProfileTuning:
    """One profile's values in this workspace; ``tuned_queries``: how many labelled
    queries auto-tune chose them on (None: set by hand, or moved by hand since)."""

    overrides: Mapping[str, Any]
    tuned_queries: int | None = None


@dataclasses.dataclass(frozen=True)
class WorkspaceTuning:
    """Everything ``tuned.json`` holds: the profile last used and each profile's values."""

    profile: str | None = None
    profiles: Mapping[str, ProfileTuning] = dataclasses.field(default_factory=dict)

    def settings(self, profile: str) -> settings_mod.SearchSettings:
        """``profile``'s values in this workspace (its defaults when never set here)."""
        canonical = settings_mod.canonical_profile(profile)
        entry = self.profiles.get(canonical)
        data = dict(entry.overrides) if entry is not None else {}
        return settings_mod.SearchSettings.from_overrides(data | {"profile": canonical})

    def current(self) -> settings_mod.SearchSettings:
        """The settings of the profile last used here (memdesk's defaults for a new workspace)."""
        profile = self.profile if self.profile in settings_mod.PROFILES else settings_mod.MEMDESK
        return self.settings(str(profile))

    def tuned_queries(self, profile: str) -> int | None:
        entry = self.profiles.get(settings_mod.canonical_profile(profile))
        return entry.tuned_queries if entry is not None else None

    def with_settings(
        self, settings: settings_mod.SearchSettings, *, tuned_queries: int | None = None
    ) -> WorkspaceTuning:
        """This tuning with ``settings`` as its profile's values and the current profile."""
        overrides = settings.overrides()
        overrides.pop("profile", None)
        profiles = dict(self.profiles)
        old = profiles.get(settings.profile)
        if tuned_queries is None and old is not None and dict(old.overrides) == overrides:
            tuned_queries = old.tuned_queries  # unchanged (a profile switched back): still tuned
        profiles[settings.profile] = ProfileTuning(overrides, tuned_queries)
        return WorkspaceTuning(settings.profile, profiles)

    def to_json(self) -> dict[str, Any]:
        profiles: dict[str, Any] = {}
        for name, entry in sorted(self.profiles.items()):
            item: dict[str, Any] = {"settings": dict(sorted(entry.overrides.items()))}
            if entry.tuned_queries is not None:
                item["tuned_queries"] = entry.tuned_queries
            profiles[name] = item
        return {"version": VERSION, "profile": self.profile, "profiles": profiles}


def tuned_path(workspace: Path) -> Path:
    return Path(workspace) / TUNED_REL


def load_tuning(workspace: Path) -> WorkspaceTuning:
    """The workspace's ``tuned.json``; an empty tuning when there is none.

    Raises ``MemdeskError`` naming the file when it exists but cannot be read (the
    caller keeps the defaults and does not overwrite it unasked).
    """
    path = tuned_path(workspace)
    try:
        # Bounded, and a FIFO or a device (a link to /dev/zero) refused at once: every
        # search the MCP server answers reads this file.
        text = diskio.read_regular(path, MAX_TUNED_BYTES).decode("utf-8")
    except FileNotFoundError:
        return WorkspaceTuning()
    except (OSError, UnicodeDecodeError) as exc:
        error = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise errors.MemdeskError(
            msg(QT_TRANSLATE_NOOP("core", "cannot read {path}: {error}"), path=path, error=error)
        ) from exc
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data.get("profiles", {}), dict):
            raise ValueError("not a JSON object with a profiles object")
        profiles: dict[str, ProfileTuning] = {}
        for name, entry in data.get("profiles", {}).items():
            if name not in settings_mod.PROFILES or not isinstance(entry, dict):
                continue
            overrides = entry.get("settings", {})
            queries = entry.get("tuned_queries")
            profiles[settings_mod.canonical_profile(name)] = ProfileTuning(
                dict(overrides) if isinstance(overrides, dict) else {},
                int(queries) if isinstance(queries, int) and queries > 0 else None,
            )
        profile = data.get("profile")
    except (ValueError, RecursionError) as exc:  # RecursionError: JSON nested thousands deep
        raise errors.MemdeskError(
            msg(QT_TRANSLATE_NOOP("core", "cannot read {path}: {error}"), path=path, error=str(exc))
        ) from exc
    return WorkspaceTuning(profile if isinstance(profile, str) else None, profiles)


def current_settings(workspace: Path) -> settings_mod.SearchSettings:
    """The settings a session over ``workspace`` starts with (defaults when unreadable:
    the window then says why)."""
    try:
        return load_tuning(workspace).current()
    except errors.MemdeskError as exc:
        log.warning("%s", exc)
        return settings_mod.SearchSettings()


def save_tuning(workspace: Path, tuning: WorkspaceTuning) -> None:
    """Write ``tuning`` to the workspace's ``tuned.json`` atomically."""
    text = json.dumps(tuning.to_json(), ensure_ascii=False, indent=1) + "\n"
    workspace_mod.write_note_atomic(tuned_path(workspace), text)
