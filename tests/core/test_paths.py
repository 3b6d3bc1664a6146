"""memdesk's data dir: the folders it makes are owner-only whatever the umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memdesk.core import paths


def test_the_models_folder_is_owner_only_under_umask_000(memdesk_home: Path) -> None:
    old = os.umask(0)
    try:
        folder = paths.models_dir()
        index = paths.index_path_for(memdesk_home / "ws")
    finally:
        os.umask(old)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(index.parent.stat().st_mode) == 0o700


def test_a_folder_left_open_by_an_earlier_version_is_closed(memdesk_home: Path) -> None:
    (memdesk_home / "models").mkdir(mode=0o777)
    (memdesk_home / "models").chmod(0o777)
    assert stat.S_IMODE(paths.models_dir().stat().st_mode) == 0o700
