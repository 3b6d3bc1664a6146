"""The suite's shared fixtures write only into their own temporary folders, never into
the user's memdesk data dir (a session fixture runs before each test's MEMDESK_HOME)."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from memdesk.core import paths


def test_the_shared_hybrid_index_keeps_its_history_to_itself(
    hybrid_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = hybrid_index.parent
    monkeypatch.setenv("MEMDESK_HOME", str(template / "home"))
    own = paths.history_path_for(template / "workspace")
    assert own.is_file() and own.stat().st_size > 0  # the sync's versions, in its own home
    user = Path(platformdirs.user_data_dir(paths.APP_NAME)) / "history" / own.name
    assert not user.exists(), f"the fixture wrote into the user's data dir: {user}"
