"""``memdesk desktop-entry install/uninstall`` writes a menu entry that starts this memdesk."""

from __future__ import annotations

import configparser
import os
import subprocess
import sys
from pathlib import Path


def run(*args: str, data_home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_DATA_HOME=str(data_home))
    return subprocess.run(
        [sys.executable, "-m", "memdesk", "desktop-entry", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def test_install_then_uninstall(tmp_path: Path) -> None:
    """The entry names an executable that exists and an icon installed in every size."""
    run("install", data_home=tmp_path)
    entry_path = tmp_path / "applications" / "io.github.memdesk.memdesk.desktop"
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(entry_path, encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application" and section["Icon"] == "memdesk"
    command = section["Exec"].split()
    assert command[-1] == "gui" and Path(command[0]).is_file() and os.access(command[0], os.X_OK)
    assert section["TryExec"] == command[0]
    for size in (16, 32, 48, 64, 128, 256, 512):
        assert (tmp_path / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "memdesk.png").is_file()
    assert (tmp_path / "icons" / "hicolor" / "scalable" / "apps" / "memdesk.svg").is_file()
    # The launcher it names really starts this memdesk.
    help_text = subprocess.run(
        [*command[:-1], "--help"], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert "desktop-entry" in help_text

    run("uninstall", data_home=tmp_path)
    assert not entry_path.exists()
    assert not list((tmp_path / "icons").rglob("memdesk.*"))
