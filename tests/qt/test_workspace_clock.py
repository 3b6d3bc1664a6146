"""The search clock a user set is kept per workspace in the preferences file."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memdesk.qt import preferences


def test_each_workspace_keeps_its_own_clock(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    prefs = preferences.Preferences(tmp_path / "memdesk.ini")
    prefs.set_workspace_clock(a, dt.date(2023, 3, 31))
    prefs.set_workspace_clock(b / ".." / "b", dt.date(2022, 11, 11))  # the same folder, spelled otherwise
    prefs.sync()
    again = preferences.Preferences(tmp_path / "memdesk.ini")
    assert again.workspace_clock(a) == dt.date(2023, 3, 31)
    assert again.workspace_clock(b) == dt.date(2022, 11, 11)
    assert again.workspace_clock(tmp_path) is None
    again.set_workspace_clock(a, None)  # "Follow newest note"
    assert again.workspace_clock(a) is None and again.workspace_clock(b) == dt.date(2022, 11, 11)
    again.set_workspace_clock(b, None)
    again.sync()
    assert "clocks" not in (tmp_path / "memdesk.ini").read_text(encoding="utf-8")  # nothing left behind


def test_an_unreadable_saved_clock_is_ignored(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    prefs = preferences.Preferences(tmp_path / "memdesk.ini")
    prefs.set_workspace_clock(tmp_path, dt.date(2023, 1, 1))
    prefs.sync()
    text = (tmp_path / "memdesk.ini").read_text(encoding="utf-8").replace("2023-01-01", "last week")
    (tmp_path / "memdesk.ini").write_text(text, encoding="utf-8")
    assert preferences.Preferences(tmp_path / "memdesk.ini").workspace_clock(tmp_path) is None
