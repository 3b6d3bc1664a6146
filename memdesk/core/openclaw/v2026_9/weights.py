"""Weighted text size for the chunker (``normalization-core/src/cjk-chars.ts``)."""

from __future__ import annotations

import bisect

from ..text import utf16_len

_WEIGHT_RANGES: tuple[tuple[tuple[int, int], ...], ...] = (
    ((183, 183), (12288, 12703), (19968, 40869), (44032, 55215), (65281, 65376)),
    (
        (4352, 4607),
        (11904, 12287),
        (12704, 19967),
        (40870, 40959),
        (40960, 42239),
        (42752, 42759),
        (43360, 43391),
        (55216, 55295),
        (63744, 64255),
    ),
    (
        (711, 711),
        (713, 715),
        (729, 729),
        (746, 747),
        (773, 773),
        (803, 803),
        (65040, 65103),
        (65377, 65500),
        (65504, 65510),
    ),
    ((119648, 119665),),
    (
        (94176, 94207),
        (110576, 110591),
        (110592, 110959),
        (127488, 127743),
        (131072, 195103),
        (196608, 210047),
    ),
)
# Extra weight per code point of each bucket on top of its UTF-16 length.
_BUCKET_EXTRA = (3, 11, 7, 10, 14)
_BOUNDS = sorted((lo, hi, bucket) for bucket, ranges in enumerate(_WEIGHT_RANGES) for lo, hi in ranges)
_STARTS = [b[0] for b in _BOUNDS]


def _bucket(cp: int) -> int | None:
    i = bisect.bisect_right(_STARTS, cp) - 1
    if i >= 0 and _BOUNDS[i][0] <= cp <= _BOUNDS[i][1]:
        return _BOUNDS[i][2]
    return None


def estimate_string_chars(text: str) -> int:
    """``estimateStringChars``: UTF-16 length plus per-script extra weight."""
    total = utf16_len(text)
    if text.isascii():
        return total
    for ch in text:
        cp = ord(ch)
        if cp < 128:
            continue
        bucket = _bucket(cp)
        if bucket is not None:
            total += _BUCKET_EXTRA[bucket]
    return total
