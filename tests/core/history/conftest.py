"""Each test's stores are its own: the process-wide shared stores are dropped after it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memdesk.core.history import shared


@pytest.fixture(autouse=True)
def fresh_shared_stores() -> Iterator[None]:
    yield
    shared.forget_all()
