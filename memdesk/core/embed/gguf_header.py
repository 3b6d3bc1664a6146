"""GGUF model files read in pure Python, before llama.cpp ever opens one.

llama.cpp aborts the whole process on a malformed file, so ``inspect_gguf`` checks
the magic, the version, every metadata entry, every tensor's bounds against the
file size, an embedding architecture and a tokenizer first; anything odd raises
``EmbedderUnavailable`` naming the file. ``read_gguf_header`` is the same parse
without the embedding-model checks (the encoder file is read with it).
"""

from __future__ import annotations

import dataclasses
import mmap
import struct
from pathlib import Path
from typing import Any

from memdesk.core.errors import EmbedderUnavailable
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg

GGUF_MAGIC = b"GGUF"
# Architectures llama.cpp runs as (non-causal) text encoders with pooling.
EMBEDDING_ARCHITECTURES = frozenset(
    {"bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2", "jina-bert-v3", "modern-bert", "neo-bert"}
)
POOLING_NAMES = {0: "none", 1: "mean", 2: "cls", 3: "last", 4: "rank"}
SUPPORTED_POOLING = {1: "mean", 2: "cls", 3: "last"}

_SCALAR_FORMATS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9
_MAX_COUNT = 1 << 24  # no real model has 16M metadata entries, tensors or array items


class _BadFile(Exception):
    """Internal: the header is malformed; turned into EmbedderUnavailable."""


@dataclasses.dataclass(frozen=True)
class GgufInfo:
    """What ``inspect_gguf`` learnt from a file's header."""

    path: Path
    version: int
    architecture: str
    metadata: dict[str, Any]  # scalars and strings only; arrays as their length
    n_tensors: int
    file_size: int
    # GGUF value type of each metadata entry (arrays: 9), and each tensor's
    # (ggml type, dims, absolute byte offset): what deriving an encoder file needs.
    value_types: dict[str, int] = dataclasses.field(default_factory=dict, repr=False)
    tensors: dict[str, tuple[int, tuple[int, ...], int]] = dataclasses.field(default_factory=dict, repr=False)

    def get(self, key: str, default: Any = None) -> Any:
        return self.metadata.get(key, default)

    def arch_key(self, suffix: str, default: Any = None) -> Any:
        return self.metadata.get(f"{self.architecture}.{suffix}", default)

    @property
    def context_length(self) -> int:
        return int(self.arch_key("context_length", 0))

    @property
    def embedding_length(self) -> int:
        return int(self.arch_key("embedding_length", 0))

    @property
    def pooling_type(self) -> int:
        return int(self.arch_key("pooling_type", 0))

    @property
    def model_name(self) -> str:
        name = self.get("memdesk.model_name") or self.get("general.name") or self.path.stem
        return str(name)


class _Reader:
    """Reads the header from the file's memory map: a multilingual vocabulary is 250k
    strings, and a ``read()`` per string cost 0.4 s of CPU at every start."""

    _LENGTH = struct.Struct("<Q")

    def __init__(self, data: mmap.mmap, size: int, pos: int = 0) -> None:
        self.data = data
        self.size = size
        self.pos = pos

    def read(self, n: int) -> bytes:
        if n < 0 or self.pos + n > self.size:
            raise _BadFile("truncated header")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]

    def count(self) -> int:
        n = int(self.unpack("<Q"))
        if n > _MAX_COUNT:
            raise _BadFile(f"implausible count {n}")
        return n

    def string(self) -> str:
        n = int(self.unpack("<Q"))
        if n > self.size:
            raise _BadFile("string longer than the file")
        try:
            return self.read(n).decode("utf-8")
        except UnicodeDecodeError:
            raise _BadFile("metadata string is not UTF-8") from None

    def skip_strings(self, count: int) -> None:
        data, size, pos, length = self.data, self.size, self.pos, self._LENGTH.unpack_from
        for _ in range(count):
            if pos + 8 > size:
                raise _BadFile("truncated header")
            pos += 8 + length(data, pos)[0]
            if pos > size:
                raise _BadFile("truncated header")
        self.pos = pos

    def value(self, vtype: int) -> Any:
        if vtype in _SCALAR_FORMATS:
            return self.unpack(_SCALAR_FORMATS[vtype])
        if vtype == _STRING:
            return self.string()
        if vtype == _ARRAY:
            item_type = int(self.unpack("<I"))
            n = self.count()
            if item_type in _SCALAR_FORMATS:
                self.read(n * struct.calcsize(_SCALAR_FORMATS[item_type]))
            elif item_type == _STRING:
                self.skip_strings(n)
            else:
                # Nested arrays are legal GGUF but never used by text models.
                raise _BadFile(f"unsupported array item type {item_type}")
            return n
        raise _BadFile(f"unknown metadata type {vtype}")


def model_problem(path: Path, reason: str) -> str:
    return msg(QT_TRANSLATE_NOOP("core", "Embedding model {path}: {reason}"), path=path, reason=reason)


def inspect_gguf(path: Path) -> GgufInfo:
    """Parse and sanity-check a GGUF header without llama.cpp.

    Raises ``EmbedderUnavailable("<path>: <reason>")`` for a missing, unreadable,
    truncated or non-GGUF file, or one that is not a supported embedding model.
    """
    info = read_gguf_header(path)
    _check_embedding_model(info, lambda reason: EmbedderUnavailable(model_problem(info.path, reason)))
    return info


def read_gguf_header(path: Path) -> GgufInfo:
    """``inspect_gguf`` without the embedding-model checks: any well-formed GGUF."""
    path = Path(path)

    def fail(reason: str) -> EmbedderUnavailable:
        return EmbedderUnavailable(model_problem(path, reason))

    try:
        size = path.stat().st_size
        if not path.is_file():
            raise fail(msg(QT_TRANSLATE_NOOP("core", "not a regular file")))
        # Opened here so that open errors get the one-line message below; `with handle` closes it.
        handle = open(path, "rb")  # noqa: SIM115
    except FileNotFoundError:
        raise fail(msg(QT_TRANSLATE_NOOP("core", "file not found"))) from None
    except OSError as exc:
        raise fail(
            msg(QT_TRANSLATE_NOOP("core", "cannot be read ({error})"), error=exc.strerror or str(exc))
        ) from None
    with handle:
        if handle.read(4) != GGUF_MAGIC:
            raise fail(msg(QT_TRANSLATE_NOOP("core", "not a GGUF file (bad magic)")))
        try:
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                info, tensors, data_start = _parse(_Reader(data, size, pos=4), path, size)
        except _BadFile as exc:
            raise fail(
                msg(QT_TRANSLATE_NOOP("core", "corrupt or truncated GGUF ({detail})"), detail=str(exc))
            ) from None
        except (struct.error, OSError) as exc:
            raise fail(
                msg(QT_TRANSLATE_NOOP("core", "corrupt or truncated GGUF ({detail})"), detail=str(exc))
            ) from None
    _check_tensors(info, tensors, data_start, fail)
    return info


def _parse(
    reader: _Reader, path: Path, size: int
) -> tuple[GgufInfo, list[tuple[str, list[int], int, int]], int]:
    version = int(reader.unpack("<I"))
    if version not in (2, 3):
        raise _BadFile(f"unsupported GGUF version {version}")
    n_tensors = reader.count()
    n_kv = reader.count()
    metadata: dict[str, Any] = {}
    value_types: dict[str, int] = {}
    for _ in range(n_kv):
        key = reader.string()
        vtype = int(reader.unpack("<I"))
        metadata[key] = reader.value(vtype)
        value_types[key] = vtype
    tensors: list[tuple[str, list[int], int, int]] = []
    for _ in range(n_tensors):
        name = reader.string()
        n_dims = int(reader.unpack("<I"))
        if not 1 <= n_dims <= 4:
            raise _BadFile(f"tensor {name!r} has {n_dims} dimensions")
        dims = [int(reader.unpack("<Q")) for _ in range(n_dims)]
        ggml_type = int(reader.unpack("<I"))
        offset = int(reader.unpack("<Q"))
        tensors.append((name, dims, ggml_type, offset))
    alignment = int(metadata.get("general.alignment", 32))
    if alignment <= 0 or alignment & (alignment - 1):
        raise _BadFile(f"bad alignment {alignment}")
    pos = reader.pos
    data_start = (pos + alignment - 1) // alignment * alignment
    arch = metadata.get("general.architecture")
    if not isinstance(arch, str):
        raise _BadFile("no general.architecture")
    info = GgufInfo(
        path=path,
        version=version,
        architecture=arch,
        metadata=metadata,
        n_tensors=n_tensors,
        file_size=size,
        value_types=value_types,
        tensors={
            name: (ggml_type, tuple(dims), data_start + offset) for name, dims, ggml_type, offset in tensors
        },
    )
    return info, tensors, data_start


def _check_tensors(
    info: GgufInfo, tensors: list[tuple[str, list[int], int, int]], data_start: int, fail: Any
) -> None:
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    if not tensors:
        raise fail(msg(QT_TRANSLATE_NOOP("core", "the file holds no tensors")))
    for name, dims, ggml_type, offset in tensors:
        try:
            block_size, type_size = GGML_QUANT_SIZES[GGMLQuantizationType(ggml_type)]
        except (ValueError, KeyError):
            raise fail(f"tensor {name!r} has unknown type {ggml_type}") from None
        n_elements = 1
        for dim in dims:
            if dim <= 0 or dim > _MAX_COUNT * 64:
                raise fail(f"tensor {name!r} has an implausible shape {dims}")
            n_elements *= dim
        if dims[0] % block_size:
            raise fail(f"tensor {name!r} row is not a multiple of its block size")
        end = data_start + offset + n_elements // block_size * type_size
        if end > info.file_size:
            raise fail(f"truncated: tensor {name!r} ends at byte {end} but the file has {info.file_size}")


def _check_embedding_model(info: GgufInfo, fail: Any) -> None:
    if info.architecture not in EMBEDDING_ARCHITECTURES:
        raise fail(
            msg(
                QT_TRANSLATE_NOOP("core", "architecture {name} is not a supported embedding model"),
                name=repr(info.architecture),
            )
        )
    if not isinstance(info.get("tokenizer.ggml.model"), str) or not info.get("tokenizer.ggml.tokens"):
        raise fail(msg(QT_TRANSLATE_NOOP("core", "the file has no tokenizer")))
    if info.context_length <= 0 or info.embedding_length <= 0:
        raise fail(msg(QT_TRANSLATE_NOOP("core", "the file lacks context_length/embedding_length")))
    pooling = info.pooling_type
    if pooling not in SUPPORTED_POOLING:
        raise fail(
            msg(
                QT_TRANSLATE_NOOP("core", "pooling type {name} is not supported for embeddings"),
                name=POOLING_NAMES.get(pooling, pooling),
            )
        )
