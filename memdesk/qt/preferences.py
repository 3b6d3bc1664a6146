"""Per-user preferences in a QSettings INI file; only values that differ from defaults.

Storing overrides rather than every value means a new default in a later release
reaches users who never touched that setting.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from memdesk.core.search import settings as settings_mod

log = logging.getLogger(__name__)

MAX_RECENT = 8


class Preferences:
    """Typed getters/setters over one INI file (``<data dir>/memdesk.ini``)."""

    def __init__(self, path: Path) -> None:
        self._path = Path(path)
        self._qs = QSettings(str(self._path), QSettings.Format.IniFormat)

    @property
    def path(self) -> Path:
        return self._path

    def sync(self) -> None:
        self._qs.sync()

    # search settings ---------------------------------------------------------------
    def search_settings(self) -> settings_mod.SearchSettings:
        raw = self._qs.value("search/overrides", "")
        try:
            data: dict[str, Any] = json.loads(raw) if raw else {}
        except (TypeError, ValueError):
            log.warning("ignoring unreadable saved search settings %r", raw)
            data = {}
        profile = data.pop("profile", "memdesk")
        if profile not in settings_mod.PROFILES:
            profile = "memdesk"
        base = settings_mod.SearchSettings.defaults(profile)
        known = {k: v for k, v in data.items() if hasattr(base, k)}
        try:
            return base.replace(**known)
        except (TypeError, ValueError):
            return base

    def set_search_settings(self, settings: settings_mod.SearchSettings) -> None:
        overrides = settings.overrides()
        if overrides == {"profile": "memdesk"}:
            self._qs.remove("search/overrides")
        else:
            self._qs.setValue("search/overrides", json.dumps(overrides, sort_keys=True))

    def scope(self) -> str:
        value = str(self._qs.value("search/scope", "all"))
        return value if value in ("all", "shared") else "all"

    def set_scope(self, scope: str) -> None:
        if scope == "all":
            self._qs.remove("search/scope")
        else:
            self._qs.setValue("search/scope", scope)

    # workspace and model -------------------------------------------------------------
    def last_workspace(self) -> Path | None:
        value = self._qs.value("workspace/last", "")
        return Path(str(value)) if value else None

    def recent_workspaces(self) -> list[Path]:
        raw = self._qs.value("workspace/recent", "")
        try:
            items = json.loads(raw) if raw else []
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

    # window --------------------------------------------------------------------------
    def geometry(self, key: str) -> QByteArray | None:
        value = self._qs.value(f"window/{key}")
        return value if isinstance(value, QByteArray) else None

    def set_geometry(self, key: str, value: QByteArray) -> None:
        self._qs.setValue(f"window/{key}", value)
