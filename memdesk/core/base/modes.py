"""The search modes: the index reports what it can serve in them, the search runs in one."""

from __future__ import annotations

from typing import Literal

Mode = Literal["hybrid", "fts", "vector"]
