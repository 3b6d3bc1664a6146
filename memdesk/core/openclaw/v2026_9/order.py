"""JavaScript comparison semantics the 2026.9 sorts depend on."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def sign(x: float) -> int:
    return (x > 0) - (x < 0)


def js_cmp_str(a: str, b: str) -> int:
    # localeCompare (ICU root collation) on paths and hex ids: letters compare
    # case-insensitively first, then lower case sorts before upper case; for the
    # punctuation memory paths use ('-', '.', '/') and digits, code-point order agrees.
    ka, kb = (a.lower(), a.swapcase()), (b.lower(), b.swapcase())
    return (ka > kb) - (ka < kb)


def js_sorted(items: list[T], cmp: Callable[[T, T], float]) -> list[T]:
    """JS ``toSorted(cmp)``: a stable sort by a comparator."""

    def three_way(x: T, y: T) -> int:
        return sign(cmp(x, y))

    return sorted(items, key=functools.cmp_to_key(three_way))
