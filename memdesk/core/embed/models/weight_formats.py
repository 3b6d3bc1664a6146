"""The number formats a model's encoder matrices can be built in, and converting to them.

One model file per format, each built offline from the same pinned source: ``f16``
(what memdesk has always shipped), ``bf16`` (AVX-512 BF16 CPUs multiply it natively),
``f32`` (the source's values, no rounding) and ``q8_0`` (8-bit blocks, VNNI CPUs
multiply them as integers). Only the encoder's 2-D matrices change: biases, norms and
the added embeddings stay F32 in every format (ggml's CPU add needs F32), and the
token-embedding table is a row look-up done in Python (``encoder_file.TokenRows``), so
its format is the builder's own choice (``token_table``), made for size, not speed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from memdesk.core.errors import ModelBuildError

FORMATS: tuple[str, ...] = ("f16", "bf16", "f32", "q8_0")
DEFAULT_FORMAT = "f16"

# ggml block layouts (ggml-common.h): Q4_0 = f16 scale + 16 bytes of 4-bit weights
# (low nibbles are weights 0-15, high nibbles 16-31, each minus 8); Q8_0 = f16 scale
# + 32 int8 weights.
_BLOCK = 32
_Q4_0_BYTES = 18
_Q8_0_BYTES = 34


def preferred(features: frozenset[str]) -> str:
    """The format whose matrix products run fastest on a CPU backend using ``features``
    (ggml's names, ``cpu_backend``): BF16 where the backend multiplies BF16 natively
    (AVX512_BF16), else F16. Measured (docs/performance.md, "Weight formats"): BF16 beat
    F16 there and kept cosine >= 0.9999 to the float64 reference; Q8_0 with VNNI was
    not faster and fell below 0.9999 on MiniLM; F32 is twice the file for no gain."""
    return "bf16" if "AVX512_BF16" in features else DEFAULT_FORMAT


def check(fmt: str) -> str:
    """``fmt`` if it is a known format, else ``ModelBuildError`` listing them."""
    if fmt not in FORMATS:
        raise ModelBuildError(f"Unknown weight format {fmt!r}; choose one of: {', '.join(FORMATS)}")
    return fmt


def file_type(fmt: str) -> int:
    """``general.file_type`` of a model whose matrices are in ``fmt`` (llama.cpp's LlamaFileType)."""
    import gguf

    return int(
        {
            "f16": gguf.LlamaFileType.MOSTLY_F16,
            "bf16": gguf.LlamaFileType.MOSTLY_BF16,
            "f32": gguf.LlamaFileType.ALL_F32,
            "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0,
        }[check(fmt)]
    )


def add_matrix(writer: Any, name: str, weights: np.ndarray, fmt: str) -> None:
    """Add a 2-D float matrix to a ``GGUFWriter`` as ``name`` in format ``fmt``."""
    import gguf

    check(fmt)
    if fmt == "f32":
        writer.add_tensor(name, np.ascontiguousarray(weights, dtype=np.float32))
    elif fmt == "f16":
        writer.add_tensor(name, np.ascontiguousarray(weights, dtype=np.float16))
    else:
        qtype = gguf.GGMLQuantizationType.BF16 if fmt == "bf16" else gguf.GGMLQuantizationType.Q8_0
        if weights.shape[-1] % _BLOCK and fmt == "q8_0":
            raise ModelBuildError(f"{name}: rows of {weights.shape[-1]} do not split into Q8_0 blocks")
        raw = gguf.quants.quantize(np.ascontiguousarray(weights, dtype=np.float32), qtype)
        writer.add_tensor(name, raw, raw_dtype=qtype)


def q4_0_to_q8_0(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks rewritten as Q8_0 blocks holding exactly the same values.

    Both formats are an F16 scale times small integers over blocks of 32, so each
    Q4_0 block becomes the Q8_0 block with the same scale and its 4-bit weights
    (0..15, minus 8) widened to int8: no rounding. ``blocks`` is uint8 shaped
    (rows, bytes per row); the result is (rows, blocks per row * 34).
    """
    raw = np.ascontiguousarray(blocks, dtype=np.uint8)
    rows = raw.shape[0]
    grouped = raw.reshape(rows, -1, _Q4_0_BYTES)
    packed = grouped[:, :, 2:]
    values = np.concatenate([packed & 0x0F, packed >> 4], axis=2).astype(np.int16) - 8
    out = np.empty((rows, grouped.shape[1], _Q8_0_BYTES), dtype=np.uint8)
    out[:, :, :2] = grouped[:, :, :2]
    out[:, :, 2:] = values.astype(np.int8).view(np.uint8)
    return out.reshape(rows, -1)


def add_q4_0_matrix(writer: Any, name: str, blocks: np.ndarray, fmt: str) -> None:
    """Add a matrix held as Q4_0 blocks (uint8, rows x bytes) in format ``fmt``:
    Q8_0 re-blocked exactly, the float formats dequantised (F32 exact, F16/BF16 rounded)."""
    import gguf

    if check(fmt) == "q8_0":
        writer.add_tensor(name, q4_0_to_q8_0(blocks), raw_dtype=gguf.GGMLQuantizationType.Q8_0)
        return
    weights = gguf.quants.dequantize(blocks, gguf.GGMLQuantizationType.Q4_0)
    if fmt == "f16":
        # The historical F16 build, byte for byte: its digest names users' indexes.
        writer.add_tensor(name, weights.astype("<f2"))
        return
    add_matrix(writer, name, weights, fmt)


def add_token_table(writer: Any, name: str, table: np.ndarray, table_format: str) -> None:
    """The token-embedding table (a row look-up, never a matrix product) in
    ``table_format``: ``f16``, ``f32`` or ``q8_0`` (what ``TokenRows`` reads)."""
    if table_format not in ("f16", "f32", "q8_0"):
        raise ModelBuildError(f"token table format {table_format!r} is not read by memdesk")
    add_matrix(writer, name, table, table_format)
