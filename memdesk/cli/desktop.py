"""``memdesk desktop-entry install|uninstall``: the menu entry and icons for a from-source user.

A .deb puts these in /usr/share; someone who runs memdesk from a checkout (or the
tarball) gets the same entry in ``$XDG_DATA_HOME`` (``~/.local/share``), pointing at the
``memdesk`` launcher they ran this with, so the app appears in the desktop's menu with
its icon.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from memdesk.core import paths


def data_home() -> Path:
    value = os.environ.get("XDG_DATA_HOME")
    return Path(value).expanduser() if value else Path.home() / ".local" / "share"


def launcher() -> list[str]:
    """The command that starts this memdesk: the bundle's executable, or the venv's script."""
    if getattr(sys, "frozen", False):
        return [str(Path(sys.executable).resolve())]
    script = Path(sys.executable).with_name("memdesk")
    if script.is_file():
        return [str(script)]
    found = shutil.which("memdesk")
    if found:
        return [str(Path(found).resolve())]
    return [sys.executable, "-m", "memdesk"]


def _desktop_text(command: list[str]) -> str:
    source = (paths.resource_dir() / f"{paths.DESKTOP_ID}.desktop").read_text(encoding="utf-8")
    exec_line = " ".join(_quote(part) for part in command)
    lines = []
    for line in source.splitlines():
        if line.startswith("Exec="):
            line = f"Exec={exec_line} gui"
            lines.append(f"TryExec={command[0]}")
        lines.append(line)
    return "\n".join(lines) + "\n"


def _quote(arg: str) -> str:
    # The Desktop Entry spec's quoting: double quotes around arguments with reserved characters.
    if any(c in arg for c in " \t\n\"'\\><~|&;$*?#()`"):
        escaped = "".join("\\" + c if c in '"`$\\' else c for c in arg)
        return f'"{escaped}"'
    return arg


def _icon_files() -> list[tuple[Path, Path]]:
    """(source, path relative to the data home) for every icon size."""
    hicolor = paths.resource_dir() / "icons" / "hicolor"
    return [
        (src, Path("icons") / "hicolor" / src.relative_to(hicolor))
        for src in sorted(hicolor.rglob(f"{paths.ICON_NAME}.*"))
    ]


def _refresh_caches(home: Path) -> None:
    # Desktops that cache the menu or icon theme pick up the change at once; where the
    # tools are absent the desktop rescans on its own.
    for command in (
        ["update-desktop-database", "-q", str(home / "applications")],
        ["gtk-update-icon-cache", "-q", "-t", "-f", str(home / "icons" / "hicolor")],
    ):
        if shutil.which(command[0]):
            subprocess.run(command, check=False, capture_output=True)


def install(home: Path | None = None) -> list[Path]:
    """Write the desktop entry and icons under ``home`` (the XDG data home); returns them."""
    home = data_home() if home is None else home
    written = []
    entry = home / "applications" / f"{paths.DESKTOP_ID}.desktop"
    entry.parent.mkdir(parents=True, exist_ok=True)
    entry.write_text(_desktop_text(launcher()), encoding="utf-8")
    written.append(entry)
    for src, rel in _icon_files():
        target = home / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        written.append(target)
    _refresh_caches(home)
    return written


def uninstall(home: Path | None = None) -> list[Path]:
    home = data_home() if home is None else home
    removed = []
    for target in [
        home / "applications" / f"{paths.DESKTOP_ID}.desktop",
        *(home / rel for _src, rel in _icon_files()),
    ]:
        if target.is_file():
            target.unlink()
            removed.append(target)
    _refresh_caches(home)
    return removed


def cmd_desktop_entry(args: argparse.Namespace) -> int:
    home = data_home()
    if args.action == "install":
        written = install(home)
        sys.stdout.write(f"installed the menu entry {written[0]} and {len(written) - 1} icons\n")
    else:
        removed = uninstall(home)
        sys.stdout.write(f"removed {len(removed)} files\n" if removed else "nothing to remove\n")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("desktop-entry", help="add memdesk to the desktop's menu (for this user)")
    p.add_argument("action", choices=("install", "uninstall"))
    p.set_defaults(func=cmd_desktop_entry)
