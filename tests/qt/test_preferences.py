"""Preferences store only what differs from the defaults, and read back what they stored."""

from __future__ import annotations

from pathlib import Path

from memdesk.core.search import settings
from memdesk.qt import preferences


def test_only_overrides_are_stored(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Default settings leave no trace; a tuned value is stored and read back."""
    prefs = preferences.Preferences(tmp_path / "p.ini")
    prefs.set_search_settings(settings.SearchSettings())
    prefs.sync()
    path = tmp_path / "p.ini"
    assert "overrides" not in (path.read_text(encoding="utf-8") if path.exists() else "")
    tuned = settings.SearchSettings().replace(half_life_days=14)
    prefs.set_search_settings(tuned)
    prefs.sync()
    stored = (tmp_path / "p.ini").read_text(encoding="utf-8")
    assert "half_life_days" in stored and "vector_weight" not in stored
    assert preferences.Preferences(tmp_path / "p.ini").search_settings() == tuned


def test_openclaw_profile_round_trips(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A profile's own defaults are kept relative to that profile."""
    prefs = preferences.Preferences(tmp_path / "p.ini")
    value = settings.SearchSettings.defaults("openclaw").replace(max_results=9)
    prefs.set_search_settings(value)
    assert preferences.Preferences(tmp_path / "p.ini").search_settings() == value


def test_recent_workspaces(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The last workspace opened is remembered first, without duplicates."""
    prefs = preferences.Preferences(tmp_path / "p.ini")
    for name in ("a", "b", "a"):
        (tmp_path / name).mkdir(exist_ok=True)
        prefs.remember_workspace(tmp_path / name)
    assert prefs.last_workspace() == (tmp_path / "a").resolve()
    assert prefs.recent_workspaces() == [(tmp_path / "a").resolve(), (tmp_path / "b").resolve()]


def test_corrupt_values_fall_back_to_defaults(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A hand-edited, unreadable or out-of-bounds entry never breaks start-up."""
    (tmp_path / "p.ini").write_text('[search]\noverrides="{not json"\n', encoding="utf-8")
    assert preferences.Preferences(tmp_path / "p.ini").search_settings() == settings.SearchSettings()
    prefs = preferences.Preferences(tmp_path / "q.ini")
    prefs._qs.setValue("search/overrides", '{"profile": "memdesk", "min_score": 7}')
    assert prefs.search_settings().min_score == 1.0


def test_the_preferences_file_is_owner_only_under_umask_000(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """It lists the user's workspaces; QSettings would write it under the umask."""
    import os
    import stat

    old = os.umask(0)
    try:
        prefs = preferences.Preferences(tmp_path / "data" / "memdesk.ini")
        prefs.remember_workspace(tmp_path / "ws")
        prefs.set_search_settings(settings.SearchSettings().replace(half_life_days=14))
        prefs.sync()
        again = preferences.Preferences(tmp_path / "data" / "memdesk.ini")
        again.set_zoom("editor", 13.0)
        again.sync()
    finally:
        os.umask(old)
    files = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "data").iterdir()}
    assert files == {"memdesk.ini": 0o600}, files
    assert "half_life_days" in (tmp_path / "data" / "memdesk.ini").read_text(encoding="utf-8")
