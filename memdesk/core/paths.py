"""Where memdesk keeps its per-user data: indexes, models, logs, settings."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import platformdirs

APP_NAME = "memdesk"


def data_dir() -> Path:
    """The per-user data dir; ``MEMDESK_HOME`` overrides it (tests always set it)."""
    override = os.environ.get("MEMDESK_HOME")
    path = Path(override).expanduser() if override else Path(platformdirs.user_data_dir(APP_NAME))
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def models_dir() -> Path:
    path = data_dir() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def index_path_for(workspace: Path) -> Path:
    """One database per workspace realpath, named so a person can tell which is which."""
    real = os.path.realpath(workspace)
    digest = hashlib.sha256(real.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "-_" else "_" for c in Path(real).name)[:40] or "root"
    folder = data_dir() / "indexes"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder / f"{name}-{digest}.sqlite"


def default_workspace() -> Path:
    """OpenClaw's default workspace location."""
    return Path.home() / ".openclaw" / "workspace"
