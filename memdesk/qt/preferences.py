"""Per-user preferences in a QSettings INI file; only values that differ from defaults.

Storing overrides rather than every value means a new default in a later release
reaches users who never touched that setting.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from memdesk.core import engine as engine_mod
from memdesk.core.search import profiles
from memdesk.core.search import settings as settings_mod

log = logging.getLogger(__name__)

MAX_RECENT = 8


def _make_private(path: Path) -> None:
    """The INI file exists and is owner-only (0600) whatever the umask: QSettings writes
    it through QSaveFile, which keeps an existing file's permissions (and would
    otherwise follow the umask). It lists the user's workspaces."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            if os.fstat(fd).st_mode & 0o077:
                os.fchmod(fd, 0o600)
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning("preferences file %s: %s", path, exc)


def keep_qt_settings_in(folder: Path) -> None:
    """Point Qt's own per-user settings at ``folder`` (memdesk's data dir): its file
    dialog remembers the folders it visited in ``QtProject.conf``, by default under
    ``~/.config``, outside the workspace and the data dir memdesk may write. Only
    QSettings made from now on follow; ``Preferences`` names its own file."""
    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, str(folder))


class Preferences:
    """Typed getters/setters over one INI file (``<data dir>/memdesk.ini``)."""

    def __init__(self, path: Path) -> None:
        self._path = Path(path)
        _make_private(self._path)
        self._qs = QSettings(str(self._path), QSettings.Format.IniFormat)

    @property
    def path(self) -> Path:
        return self._path

    def sync(self) -> None:
        self._qs.sync()
        _make_private(self._path)

    # search settings ---------------------------------------------------------------
    # The current profile is "search/profile"; each profile's tuned values (only those
    # that differ from its defaults) are "search/tuned/<profile>", so switching
    # profile never throws tuned values away.
    def search_settings(self, profile: str | None = None) -> settings_mod.SearchSettings:
        """The saved settings of ``profile`` (default: the profile last used)."""
        if profile is None:
            profile = self.current_profile()
        if profile not in settings_mod.PROFILES:
            profile = settings_mod.MEMDESK
        canonical = settings_mod.canonical_profile(profile)
        raw = self._qs.value(f"search/tuned/{canonical}", "")
        for old_name in profiles.get(canonical).legacy_names:  # saved by an older memdesk
            raw = raw or self._qs.value(f"search/tuned/{old_name}", "")
        if not raw:
            legacy = self._read_json("search/overrides")  # before profiles kept their own
            raw = json.dumps(legacy) if legacy.get("profile", settings_mod.MEMDESK) == canonical else ""
        data = self._read_json_text(raw)
        return settings_mod.SearchSettings.from_overrides(data | {"profile": canonical})

    def current_profile(self) -> str:
        profile = str(self._qs.value("search/profile", ""))
        if profile not in settings_mod.PROFILES:
            profile = str(self._read_json("search/overrides").get("profile", settings_mod.MEMDESK))
        return profile if profile in settings_mod.PROFILES else settings_mod.MEMDESK

    def set_search_settings(self, settings: settings_mod.SearchSettings) -> None:
        overrides = settings.overrides()
        overrides.pop("profile", None)
        legacy = self._read_json("search/overrides")
        if legacy:  # move the old single entry to its profile's key
            old = str(legacy.pop("profile", settings_mod.MEMDESK))
            if old in settings_mod.PROFILES and not self._qs.value(f"search/tuned/{old}", ""):
                self._qs.setValue(f"search/tuned/{old}", json.dumps(legacy, sort_keys=True))
            self._qs.remove("search/overrides")
        key = f"search/tuned/{settings.profile}"
        if overrides:
            self._qs.setValue(key, json.dumps(overrides, sort_keys=True))
        else:
            self._qs.remove(key)
        if settings.profile == profiles.DEFAULT.name:  # the default profile is not stored
            self._qs.remove("search/profile")
        else:
            self._qs.setValue("search/profile", settings.profile)

    def has_global_search_settings(self) -> bool:
        """Whether an older memdesk left settings here for every workspace (now each
        workspace keeps its own, and these are applied nowhere)."""
        self._qs.beginGroup("search/tuned")
        try:
            tuned = bool(self._qs.childKeys())
        finally:
            self._qs.endGroup()
        return tuned or bool(self._qs.value("search/overrides", ""))

    def _read_json(self, key: str) -> dict[str, Any]:
        return self._read_json_text(self._qs.value(key, ""))

    @staticmethod
    def _read_json_text(raw: Any) -> dict[str, Any]:
        if not raw:
            return {}
        try:
            data = json.loads(raw)
        except (TypeError, ValueError):
            log.warning("ignoring unreadable saved search settings %r", raw)
            return {}
        return data if isinstance(data, dict) else {}

    # view ----------------------------------------------------------------------------
    def zoom(self, key: str) -> float | None:
        """A remembered font point size ("editor", "results"), None when never zoomed."""
        try:
            value = float(str(self._qs.value(f"view/{key}_point_size", 0) or 0))
        except (TypeError, ValueError):
            return None
        return value if value > 0 else None

    def set_zoom(self, key: str, size: float) -> None:
        self._qs.setValue(f"view/{key}_point_size", round(float(size), 2))

    def scope(self) -> engine_mod.Scope:
        return "shared" if str(self._qs.value("search/scope", "all")) == "shared" else "all"

    def set_scope(self, scope: str) -> None:
        if scope == "all":
            self._qs.remove("search/scope")
        else:
            self._qs.setValue("search/scope", scope)

    # the search clock, per workspace ----------------------------------------------------
    # "search/clocks" maps a workspace's resolved path to the day the user set as its
    # clock (ISO); a workspace without an entry follows its newest dated note.
    def workspace_clock(self, workspace: Path) -> dt.date | None:
        """The day set as ``workspace``'s clock, or None (follow its newest dated note)."""
        value = self._read_json("search/clocks").get(str(Path(workspace).resolve()))
        try:
            return dt.date.fromisoformat(value) if isinstance(value, str) else None
        except ValueError:
            log.warning("ignoring unreadable saved search clock %r", value)
            return None

    def set_workspace_clock(self, workspace: Path, day: dt.date | None) -> None:
        clocks = self._read_json("search/clocks")
        key = str(Path(workspace).resolve())
        if day is None:
            clocks.pop(key, None)
        else:
            clocks[key] = day.isoformat()
        if clocks:
            self._qs.setValue("search/clocks", json.dumps(clocks, sort_keys=True))
        else:
            self._qs.remove("search/clocks")

    # workspace and model -------------------------------------------------------------
    def last_workspace(self) -> Path | None:
        value = self._qs.value("workspace/last", "")
        return Path(str(value)) if value else None

    def recent_workspaces(self) -> list[Path]:
        raw = self._qs.value("workspace/recent", "")
        try:
            items = json.loads(str(raw)) if raw else []
        except (TypeError, ValueError):
            items = []
        return [Path(p) for p in items if isinstance(p, str)]

    def remember_workspace(self, path: Path) -> None:
        text = str(Path(path).resolve())
        self._qs.setValue("workspace/last", text)
        recent = [str(p) for p in self.recent_workspaces() if str(p) != text]
        self._qs.setValue("workspace/recent", json.dumps([text, *recent][:MAX_RECENT]))

    def model_choice(self) -> str | None:
        """A user-chosen GGUF path, ``"none"``, or None for the default (auto)."""
        value = self._qs.value("model/choice", "")
        return str(value) if value else None

    def set_model_choice(self, value: str | None) -> None:
        if value in (None, "", "auto"):
            self._qs.remove("model/choice")
        else:
            self._qs.setValue("model/choice", value)

    # language ------------------------------------------------------------------------
    def language(self) -> str:
        """``"system"`` (follow the locale) or a language code such as ``"zh_CN"``."""
        return str(self._qs.value("ui/language", "system"))

    def set_language(self, value: str) -> None:
        if value in ("", "system"):
            self._qs.remove("ui/language")
        else:
            self._qs.setValue("ui/language", value)

    def theme(self) -> str:
        """``"system"`` (the platform's colours), ``"light"`` or ``"dark"``."""
        value = str(self._qs.value("ui/theme", "system"))
        return value if value in ("system", "light", "dark") else "system"

    def set_theme(self, value: str) -> None:
        if value in ("", "system"):
            self._qs.remove("ui/theme")
        else:
            self._qs.setValue("ui/theme", value)

    def ranking_hidden(self) -> bool:
        """The user hid the Ranking column (View > Ranking panel)."""
        return str(self._qs.value("ui/ranking_hidden", "false")).lower() == "true"

    def set_ranking_hidden(self, hidden: bool) -> None:
        if hidden:
            self._qs.setValue("ui/ranking_hidden", "true")
        else:
            self._qs.remove("ui/ranking_hidden")

    # window --------------------------------------------------------------------------
    def geometry(self, key: str) -> QByteArray | None:
        value = self._qs.value(f"window/{key}")
        return value if isinstance(value, QByteArray) else None

    def set_geometry(self, key: str, value: QByteArray) -> None:
        self._qs.setValue(f"window/{key}", value)
