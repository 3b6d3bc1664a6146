"""How content is compressed: zstd, on its own or against a base (the version before).

A version compressed with its predecessor as zstd's raw-content dictionary stores
little more than what changed (a delta, found by zstd's own matcher), so thousands of
versions of a large note cost about what their differences cost.
"""

from __future__ import annotations

import hashlib

import zstandard

# zstd's level for content on its own: 3 is its default; higher levels buy a few
# percent on notes for several times the CPU (a keyframe of a 100 KB note: 1.2 ms at 3,
# 3.6 ms at 9), and capture must stay within milliseconds.
LEVEL = 3
# For a delta against the version before: level 9's longer match search finds more of
# a small edit in its base, so the frame is ~22% smaller (82 -> 64 bytes for a 1-3-line
# edit of a 100 KB note) for about the same time (0.2 -> 0.3 ms: the base's dictionary
# dominates).
DELTA_LEVEL = 9
# Frames without zstd's 4-byte magic number: every frame here is one the store wrote
# itself, and at ~100 bytes a small edit's delta, the magic was 4% of it.
_FORMAT = zstandard.FORMAT_ZSTD1_MAGICLESS
# The size is in the catalog: frames leave it out (a few bytes of every version).
_PARAMS = zstandard.ZstdCompressionParameters.from_level(LEVEL, format=_FORMAT, write_content_size=False)
_DELTA_PARAMS = zstandard.ZstdCompressionParameters.from_level(
    DELTA_LEVEL, format=_FORMAT, write_content_size=False
)


class CorruptBlob(ValueError):
    """A stored blob does not decompress to what its catalog row says."""


def digest(data: bytes) -> bytes:
    """The content address: sha256 of the bytes."""
    return hashlib.sha256(data).digest()


def compress(data: bytes, base: bytes | None = None) -> bytes:
    """``data`` as one zstd frame; against ``base`` (its raw content as the dictionary)."""
    if base is None:
        return zstandard.ZstdCompressor(compression_params=_PARAMS).compress(data)
    table = zstandard.ZstdCompressionDict(base, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
    return zstandard.ZstdCompressor(compression_params=_DELTA_PARAMS, dict_data=table).compress(data)


def line_changes(old: bytes | None, new: bytes) -> tuple[int, int]:
    """(distinct lines in ``new`` not in ``old``, distinct lines in ``old`` not in
    ``new``): a diff's +/- counts without a diff (set operations run in C, so a
    capture of a large note stays within its budget)."""
    before = set(old.split(b"\n")) if old else set()
    after = set(new.split(b"\n")) if new else set()
    before.discard(b"")  # blank lines, and the end of the last line, count as nothing
    after.discard(b"")
    return len(after - before), len(before - after)


def decompress(blob: bytes, size: int, base: bytes | None = None) -> bytes:
    """The bytes of one frame made by ``compress``; ``CorruptBlob`` when it is damaged."""
    try:
        if base is None:
            out = zstandard.ZstdDecompressor(format=_FORMAT).decompress(blob, max_output_size=size)
        else:
            table = zstandard.ZstdCompressionDict(base, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
            out = zstandard.ZstdDecompressor(dict_data=table, format=_FORMAT).decompress(
                blob, max_output_size=size
            )
    except zstandard.ZstdError as exc:
        raise CorruptBlob(str(exc)) from None
    if len(out) != size:
        raise CorruptBlob(f"{len(out)} bytes where {size} were stored")
    return out
