"""Where memdesk keeps its per-user data: indexes, models, logs, settings."""

from __future__ import annotations

import errno
import hashlib
import importlib.resources
import os
import sys
from pathlib import Path

import platformdirs

APP_NAME = "memdesk"
# The freedesktop application id: names the desktop entry and the AppStream metainfo.
# Reverse DNS of where the project lives, in the io.github.<owner>.<repository> form
# AppStream and Flathub ask of projects hosted on GitHub without a domain of their own.
DESKTOP_ID = "io.github.memdesk.memdesk"
ICON_NAME = "memdesk"


def data_dir() -> Path:
    """The per-user data dir; ``MEMDESK_HOME`` overrides it (tests always set it)."""
    override = os.environ.get("MEMDESK_HOME")
    path = Path(override).expanduser() if override else Path(platformdirs.user_data_dir(APP_NAME))
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    except FileExistsError:  # a file, a device or a symlink loop: mkdir said only "File exists"
        raise NotADirectoryError(
            errno.ENOTDIR, "the data folder is not a folder (set MEMDESK_HOME to one)", str(path)
        ) from None
    return path


def models_dir() -> Path:
    """Where the GGUF models live: the data dir's ``models``, or a bundle's shipped ones."""
    shipped = bundled_models_dir()
    if shipped is not None:
        return shipped
    path = data_dir() / "models"
    private_dir(path)
    return path


def private_dir(path: Path) -> Path:
    """Create ``path`` owner-only (0700) whatever the umask, and make a folder of
    memdesk's own that an earlier version left open owner-only again."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.stat().st_mode & 0o077:
        path.chmod(0o700)
    return path


def is_bundle() -> bool:
    """True in a desktop bundle (PyInstaller): no pip, no source checkout beside it."""
    return bool(getattr(sys, "frozen", False)) and getattr(sys, "_MEIPASS", None) is not None


def bundled_models_dir() -> Path | None:
    """The built models a desktop bundle (PyInstaller) ships beside its code, if any."""
    bundle = getattr(sys, "_MEIPASS", None)
    if not getattr(sys, "frozen", False) or bundle is None:
        return None
    folder = Path(bundle) / "models"
    return folder if folder.is_dir() else None


def bundled_sources_dir() -> Path | None:
    """The pinned model sources a desktop bundle ships in place of built models (the
    default model's own quantised blocks, smaller than any file derived from them), if
    any: ``<bundle>/model-sources/<dist>-<version>/``, built into the data dir at first
    start (``registry.build_default_model``)."""
    bundle = getattr(sys, "_MEIPASS", None)
    if not getattr(sys, "frozen", False) or bundle is None:
        return None
    folder = Path(bundle) / "model-sources"
    return folder if folder.is_dir() else None


def resource_dir() -> Path:
    """The app's runtime assets: icons, desktop entry, translations (package data)."""
    return Path(str(importlib.resources.files("memdesk").joinpath("resources")))


def index_path_for(workspace: Path) -> Path:
    """One database per workspace realpath, named so a person can tell which is which."""
    folder = data_dir() / "indexes"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder / f"{_workspace_stem(workspace)}.sqlite"


def history_path_for(workspace: Path) -> Path:
    """The version store of one workspace (``core/history``), named like its index."""
    folder = private_dir(data_dir() / "history")
    return folder / f"{_workspace_stem(workspace)}.sqlite"


def _workspace_stem(workspace: Path) -> str:
    """The workspace folder's name (readable) and a digest of its realpath (unique)."""
    real = os.path.realpath(workspace)
    digest = hashlib.sha256(real.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "-_" else "_" for c in Path(real).name)[:40] or "root"
    return f"{name}-{digest}"


def default_workspace() -> Path:
    """OpenClaw's default workspace location."""
    return Path.home() / ".openclaw" / "workspace"
