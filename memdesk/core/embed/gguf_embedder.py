"""Local text embeddings from a GGUF model file through llama.cpp (llama-cpp-python).

Two rules keep the desktop process alive whatever the user points us at:

1. A file is parsed and checked in pure Python (``inspect_gguf``) before llama.cpp
   ever opens it: magic, version, every metadata entry, every tensor's bounds
   against the file size, an embedding architecture, a tokenizer. Anything odd
   raises ``EmbedderUnavailable`` naming the file.
2. llama.cpp never receives a sequence longer than the model's trained context
   (it would ``GGML_ASSERT`` and abort the whole process), nor a batch larger than
   its physical batch (the encoder asserts ``n_ubatch >= n_tokens``).
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import hashlib
import json
import logging
import mmap
import os
import struct
import sys
import threading
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memdesk.core import paths
from memdesk.core.embed import cpu_backend
from memdesk.core.embed.embedder import EmbedderIdentity
from memdesk.core.errors import EmbedderUnavailable
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg

logger = logging.getLogger(__name__)
_llama_logger = logging.getLogger(__name__ + ".llama")

GGUF_MAGIC = b"GGUF"
# Architectures llama.cpp runs as (non-causal) text encoders with pooling.
EMBEDDING_ARCHITECTURES = frozenset(
    {"bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2", "jina-bert-v3", "modern-bert", "neo-bert"}
)
POOLING_NAMES = {0: "none", 1: "mean", 2: "cls", 3: "last", 4: "rank"}
_SUPPORTED_POOLING = {1: "mean", 2: "cls", 3: "last"}

# Known families' instruction prefixes, used when the file does not carry memdesk.* keys.
_FAMILY_PREFIXES: tuple[tuple[str, str, str], ...] = (
    ("e5", "query: ", "passage: "),
    ("nomic", "search_query: ", "search_document: "),
)

# Packing budget per llama.cpp call (a longer single sequence still goes alone,
# up to the trained context). Non-causal attention over a packed batch is
# O(batch²) — sequences are masked, not skipped — so packing many short texts
# into one big batch wastes work: measured on 2 cores with ~200 note chunks of
# 50-300 tokens, 128 beat 256 (~5%), 512 (~1.5-2.5x) and 1024 (~3x). With flash
# attention, on 48 daily notes of ~160 e5 tokens: 256 and 512 ran at the same
# 265 tok/s, but the batch also sizes llama.cpp's logits buffer (see
# _RELEASE_LOGITS_FROM_BYTES): peak RSS 770 MB at 512, 524 MB at 256.
DEFAULT_BATCH_TOKENS = 256
# Longest text embedded in full: beyond this many windows, windows are sampled
# evenly (a 2 MB single line would otherwise take minutes to embed).
DEFAULT_MAX_WINDOWS = 64
# Sequences packed into one llama.cpp call at most. llama.cpp sizes per-sequence
# buffers by it: the e5 context took 270 MB more RSS at 256 than at 1.
MAX_SEQUENCES_PER_CALL = 16
# llama.cpp (as bundled by llama-cpp-python 0.3.36) gives every context a logits
# buffer of vocabulary x tokens-of-the-largest-batch floats, even for embeddings,
# and writes all of it when it grows: 1 MB per batch token for e5's 250k vocabulary
# (a 512-token batch: +490 MB, twice with the query context). Normally llama.cpp
# runs the vocabulary-free encoder file (see encoder_file), whose vocabulary has one
# entry; when it runs the model file itself, the buffer's pages go back to the OS
# after each call that grew it (``_release_logits``); llama.cpp does not write it
# again until it grows. Below this size it is not worth a syscall.
_RELEASE_LOGITS_FROM_BYTES = 4 << 20
_MADV_DONTNEED = 4

# --------------------------------------------------------------------------- GGUF header

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


def _model_problem(path: Path, reason: str) -> str:
    return msg(QT_TRANSLATE_NOOP("core", "Embedding model {path}: {reason}"), path=path, reason=reason)


def inspect_gguf(path: Path) -> GgufInfo:
    """Parse and sanity-check a GGUF header without llama.cpp.

    Raises ``EmbedderUnavailable("<path>: <reason>")`` for a missing, unreadable,
    truncated or non-GGUF file, or one that is not a supported embedding model.
    """
    info = read_gguf_header(path)
    _check_embedding_model(info, lambda reason: EmbedderUnavailable(_model_problem(info.path, reason)))
    return info


def read_gguf_header(path: Path) -> GgufInfo:
    """``inspect_gguf`` without the embedding-model checks: any well-formed GGUF."""
    path = Path(path)

    def fail(reason: str) -> EmbedderUnavailable:
        return EmbedderUnavailable(_model_problem(path, reason))

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
    if pooling not in _SUPPORTED_POOLING:
        raise fail(
            msg(
                QT_TRANSLATE_NOOP("core", "pooling type {name} is not supported for embeddings"),
                name=POOLING_NAMES.get(pooling, pooling),
            )
        )


# --------------------------------------------------------------------------- helpers

_sha_cache: dict[tuple[str, int, int], str] = {}
_sha_lock = threading.Lock()


def file_sha256(path: Path) -> str:
    """sha256 of a model file, cached by (realpath, size, mtime_ns).

    Cached for the process and in a ``<file>.sha256`` sidecar (when the folder is
    writable), so a CLI call does not hash 100 MB of weights every time. A desktop
    bundle's shipped models come with their sidecars (``packaging/build.sh`` writes
    them); the app never writes into its install folder, even when it could (root),
    as a package manager would find the file left behind at removal.
    """
    real = os.path.realpath(path)
    st = os.stat(real)
    key = (real, st.st_size, st.st_mtime_ns)
    with _sha_lock:
        cached = _sha_cache.get(key)
    if cached is not None:
        return cached
    sidecar = real + ".sha256"
    value = _read_sha_sidecar(sidecar, st)
    if value is None:
        digest = hashlib.sha256()
        with open(real, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        value = digest.hexdigest()
        shipped = paths.bundled_models_dir()
        if shipped is None or not Path(real).is_relative_to(os.path.realpath(shipped)):
            _write_sha_sidecar(sidecar, st, value)
    with _sha_lock:
        _sha_cache[key] = value
    return value


def _read_sha_sidecar(sidecar: str, st: os.stat_result) -> str | None:
    try:
        with open(sidecar, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    if (
        isinstance(data, dict)
        and data.get("size") == st.st_size
        and data.get("mtime_ns") == st.st_mtime_ns
        and isinstance(data.get("sha256"), str)
        and len(data["sha256"]) == 64
    ):
        return str(data["sha256"])
    return None


def _write_sha_sidecar(sidecar: str, st: os.stat_result, value: str) -> None:
    tmp = f"{sidecar}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # owner-only, umask aside
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": value}, handle)
        os.replace(tmp, sidecar)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def physical_cores() -> int:
    """Physical CPU cores (hyper-threads share a core's FPU, so llama.cpp gains nothing)."""
    try:
        cores: set[tuple[str, str]] = set()
        physical = core = ""
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("physical id"):
                    physical = line.split(":", 1)[1].strip()
                elif line.startswith("core id"):
                    core = line.split(":", 1)[1].strip()
                elif not line.strip():
                    if core:
                        cores.add((physical, core))
                    physical = core = ""
        if core:
            cores.add((physical, core))
        if cores:
            return len(cores)
    except OSError:
        pass
    return max(1, os.cpu_count() or 1)


def family_prefixes(name: str) -> tuple[str, str]:
    """(query, document) prefixes of known model families by name, else empty."""
    lowered = name.lower()
    for family, query, document in _FAMILY_PREFIXES:
        if family in lowered:
            return query, document
    return "", ""


def _prefer_passive_openmp() -> None:
    """Make llama.cpp's OpenMP threads sleep at barriers instead of spinning.

    ggml (built with OpenMP) synchronises its threads at every graph node. With
    libgomp's default spin-waiting, one descheduled thread stalls the others
    while they burn their time slices: on 2 busy cores MiniLM fell from ~5,000
    to ~600 tok/s; with ``OMP_WAIT_POLICY=PASSIVE`` it kept ~1,800-2,400. A
    short bounded spin does not pay either: with two busy loops beside it, a
    one-query embedding took a median 26 ms passive, 51 ms with
    ``GOMP_SPINCOUNT=1000``, 252 ms with 10000 (quiet, the spin saved ~1.5 ms).
    It must be set before libgomp loads (at ``import llama_cpp``); an explicit
    user setting wins.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


_log_callback: Any = None


def _silence_llama_logging(llama_cpp: Any) -> None:
    """Route llama.cpp's log output to Python logging instead of stderr.

    llama-cpp-python installs a callback printing errors to stderr; the CLI must
    stay clean, so everything goes to the ``memdesk.core.gguf_embedder.llama``
    logger below WARNING (Python's last-resort handler would print WARNING+).
    """
    global _log_callback
    if _log_callback is not None:
        return

    @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]  # llama_cpp ships no type hints
    def _callback(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
        try:
            message = text.decode("utf-8", "replace").rstrip()
        except Exception:
            return
        if message:
            _llama_logger.log(logging.INFO if level == 3 else logging.DEBUG, "%s", message)

    _log_callback = _callback  # keep a reference: C holds only a raw pointer
    llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))


_backend_lock = threading.Lock()
_backend_ready = False


def _load_libc() -> Any:
    """libc's ``madvise`` (Linux/macOS), or None where there is none to call."""
    if not sys.platform.startswith(("linux", "darwin")):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        libc.madvise.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


_libc = _load_libc()


def _llama_cpp() -> Any:
    """llama-cpp-python's low-level module, imported and initialised once per process.

    The high-level ``llama_cpp.Llama`` is not used: it allocates a logits buffer
    of ``n_batch x vocabulary`` floats (250k tokens for e5: 0.5 GB) that an
    embedding model never needs.
    """
    global _backend_ready
    _prefer_passive_openmp()
    try:
        import llama_cpp
    except ImportError as exc:
        raise EmbedderUnavailable(
            msg(
                QT_TRANSLATE_NOOP("core", "llama-cpp-python is not installed or broken: {error}"),
                error=str(exc),
            )
        ) from None
    with _backend_lock:
        if not _backend_ready:
            _silence_llama_logging(llama_cpp)
            # A runtime-dispatch build has no CPU backend until one is loaded.
            cpu_backend.ensure_loaded(llama_cpp)
            llama_cpp.llama_backend_init()
            _backend_ready = True
    return llama_cpp


# --------------------------------------------------------------------------- embedder


@dataclasses.dataclass
class _Context:
    """One llama.cpp context with its batch; used by one thread at a time (``lock``)."""

    ctx: Any
    batch: Any
    tokens: int  # n_ctx == n_batch == n_ubatch
    n_seq_max: int
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    output_rows: int = 0  # rows of llama.cpp's logits buffer: the largest batch so far


class GgufEmbedder:
    """The ``Embedder`` protocol on a local GGUF embedding model via llama.cpp.

    Cheap to construct: the header is checked and the identity (name, dims,
    pooling, prefixes, file digest) is known at once, but llama.cpp loads the
    weights only on first use (or an explicit ``load()``, e.g. from a background
    thread), so commands that never embed never pay for it.

    Long inputs: a text whose tokenization (prefix and special tokens included)
    exceeds ``max_input_tokens`` (the trained context, 512 for MiniLM/E5) is
    split into windows of consecutive body tokens; each window is re-wrapped as
    ``[special head] + prefix tokens + window + [special tail]`` so it fits
    exactly. Every window is embedded; the text's vector is the average of the
    windows' pooled (un-normalised) vectors weighted by each window's token
    count, then L2-normalised — i.e. mean pooling over the whole text, with
    attention limited to each window. Beyond ``max_windows`` windows, that many
    windows are sampled evenly across the text (still weighted by token count).
    Empty strings are embedded as the bare special tokens.

    Throughput: sequences are sorted by length and packed into llama.cpp
    batches of at most ``batch_tokens`` tokens (``n_batch == n_ubatch``, since a
    non-causal encoder must see a whole batch at once), with flash attention,
    whose CPU kernel skips the masked pairs between packed sequences.
    """

    def __init__(
        self,
        model_path: Path | str,
        *,
        n_threads: int | None = None,
        batch_tokens: int | None = None,
        max_windows: int = DEFAULT_MAX_WINDOWS,
        flash_attention: bool = True,
        input_embeddings: bool = True,
        lazy: bool = False,
    ) -> None:
        self._path = Path(model_path)
        info = inspect_gguf(self._path)
        self._info = info
        self._n_ctx = info.context_length
        self._dims = info.embedding_length
        # Packing budget per llama.cpp call; a single sequence may still use the
        # whole context, so the context itself is sized for max(budget, n_ctx).
        # Never above the trained context. Larger batches are not faster: 8 note chunks
        # of ~290 tokens packed into one 2,560-token call ran at about half the speed
        # of one chunk per call (the masked pairs between packed sequences still cost).
        # And llama.cpp (llama-cpp-python 0.3.36) aborts the process (GGML_ASSERT
        # ggml_can_mul_mat, in mean pooling) when the batch is not a multiple of the
        # context's sequence count: its graph reserve rounds the tokens up, not the
        # outputs. The trained context (512) is one.
        self._batch_tokens = max(1, min(int(batch_tokens or DEFAULT_BATCH_TOKENS), self._n_ctx))
        self._ctx_tokens = max(self._n_ctx, self._batch_tokens)
        self._n_threads = n_threads or physical_cores()
        self._max_windows = max(1, int(max_windows))
        self._flash_attention = flash_attention
        self._input_embeddings = input_embeddings
        self._load_lock = threading.Lock()
        self._lc: Any = None
        self._model: Any = None
        self._vocab: Any = None
        # With input embeddings (see encoder_file): the original file loaded for its
        # vocabulary only, the token rows read from it, and llama.cpp's own (1-entry)
        # vocabulary size, which sizes its logits buffer.
        self._tokenizer: Any = None
        self._token_rows: Any = None
        self._output_vocab = 0
        # Two contexts over one copy of the weights: documents (the indexer) and
        # queries, so a search never queues behind a batch of chunks being indexed.
        self._documents: _Context | None = None
        self._queries: _Context | None = None
        # Created on first use of ``encode_reference``: one sequence per call, the way
        # OpenClaw's embedders run the same weights; one context per flash-attention
        # setting (2026.4's node-llama-cpp runs it off, 2026.9's llama-server on).
        self._references: dict[bool, _Context] = {}
        self._head: list[int] = []
        self._tail: list[int] = []

        query_prefix = info.get("memdesk.query_prefix")
        document_prefix = info.get("memdesk.document_prefix")
        if not isinstance(query_prefix, str) or not isinstance(document_prefix, str):
            query_prefix, document_prefix = family_prefixes(info.model_name + " " + self._path.name)
        self._query_prefix = query_prefix
        self._document_prefix = document_prefix

        # llama.cpp's WPM normaliser does not decompose Hangul syllables (HF's NFD
        # does), so Korean would tokenize differently from the original model;
        # decomposing in Python first makes llama.cpp's own NFD a no-op.
        strip_accents = info.get(
            "tokenizer.ggml.normalizer.strip_accents", info.get("tokenizer.ggml.normalizer.lowercase", True)
        )
        self._pre_nfd = info.get("tokenizer.ggml.model") == "bert" and bool(strip_accents)
        self._identity: EmbedderIdentity | None = None
        if not lazy:
            self.load()

    # ------------------------------------------------------------------ loading

    @property
    def loaded(self) -> bool:
        """True once llama.cpp holds the weights (``load`` has returned)."""
        return self._queries is not None

    def load(self) -> None:
        """Load the weights into llama.cpp now (idempotent, thread-safe).

        Raises ``EmbedderUnavailable`` when llama.cpp cannot load the file.
        """
        if self._queries is not None:
            return
        with self._load_lock:
            if self._queries is not None:
                return
            lc = _llama_cpp()
            self._lc = lc
            encoder = self._encoder_file()
            tokenizer = None
            if encoder is not None:
                tparams = lc.llama_model_default_params()
                tparams.vocab_only = True
                tokenizer = self._load_llama_model(self._path, tparams)
            try:
                model = self._load_llama_model(encoder or self._path, lc.llama_model_default_params())
            except BaseException:
                if tokenizer is not None:
                    lc.llama_model_free(tokenizer)
                raise
            try:
                if int(lc.llama_model_n_embd(model)) != self._info.embedding_length:
                    raise EmbedderUnavailable(f"Embedding model {self._path}: dims mismatch")
                if encoder is not None:
                    from memdesk.core.embed.encoder_file import TokenRows

                    self._token_rows = TokenRows(self._info)
                self._output_vocab = int(lc.llama_vocab_n_tokens(lc.llama_model_get_vocab(model)))
                documents = self._new_context(model, self._ctx_tokens, MAX_SEQUENCES_PER_CALL)
                try:
                    queries = self._new_context(model, self._n_ctx, 1)
                except BaseException:
                    self._free_context(documents)
                    raise
            except BaseException:
                lc.llama_model_free(model)
                if tokenizer is not None:
                    lc.llama_model_free(tokenizer)
                self._token_rows = None
                raise
            self._model = model
            self._tokenizer = tokenizer
            self._vocab = lc.llama_model_get_vocab(tokenizer or model)
            # Learn how the tokenizer wraps a body in special tokens (e.g. [CLS] … [SEP]).
            probe_body = self._tokenize_loaded("memdesk", special=False)
            probe_full = self._tokenize_loaded("memdesk", special=True)
            self._head, self._tail = _split_specials(probe_full, probe_body)
            self._documents = documents
            self._queries = queries  # last: ``loaded`` turns True only when everything is ready
        logger.info(
            "loaded %s (%d threads%s)",
            self._path.name,
            self._n_threads,
            ", input embeddings" if self._token_rows is not None else "",
        )
        self._probe()

    def _load_llama_model(self, path: Path, mparams: Any) -> Any:
        model = self._lc.llama_model_load_from_file(str(path).encode("utf-8"), mparams)
        if not model:
            raise EmbedderUnavailable(
                _model_problem(self._path, msg(QT_TRANSLATE_NOOP("core", "llama.cpp could not load it")))
            )
        return model

    def _encoder_file(self) -> Path | None:
        """The vocabulary-free encoder file llama.cpp computes with (see encoder_file),
        or None to run the model file itself (turned off, a token-embedding format
        not read in Python, or no folder to write the encoder file to)."""
        if not self._input_embeddings:
            return None
        from memdesk.core.embed import encoder_file

        reason = encoder_file.unsupported(self._info)
        if reason is not None:
            logger.info("%s runs with its own vocabulary: %s", self._path.name, reason)
            return None
        try:
            return encoder_file.ensure_encoder(self._info, file_sha256(self._path))
        except (OSError, ValueError) as exc:
            logger.warning("%s: no encoder file (%s); running the full model", self._path.name, exc)
            return None

    def _new_context(
        self, model: Any, tokens: int, max_sequences: int, *, flash_attention: bool | None = None
    ) -> _Context:
        lc = self._lc
        flash = self._flash_attention if flash_attention is None else flash_attention
        cparams = lc.llama_context_default_params()
        cparams.n_ctx = tokens
        cparams.n_batch = tokens
        cparams.n_ubatch = tokens
        cparams.n_seq_max = max(1, min(max_sequences, int(lc.llama_max_parallel_sequences())))
        cparams.embeddings = True
        cparams.pooling_type = self._info.pooling_type
        cparams.n_threads = self._n_threads
        cparams.n_threads_batch = self._n_threads
        cparams.flash_attn_type = (
            lc.LLAMA_FLASH_ATTN_TYPE_ENABLED if flash else lc.LLAMA_FLASH_ATTN_TYPE_DISABLED
        )
        cparams.no_perf = True
        ctx = lc.llama_init_from_model(model, cparams)
        if not ctx:
            raise EmbedderUnavailable(f"Embedding model {self._path}: llama.cpp could not create a context")
        n_seq_max = int(lc.llama_n_seq_max(ctx))
        embd = self._dims if self._token_rows is not None else 0  # input embeddings instead of ids
        return _Context(ctx, lc.llama_batch_init(tokens, embd, n_seq_max), tokens, n_seq_max)

    def _free_context(self, context: _Context) -> None:
        with context.lock:
            self._lc.llama_batch_free(context.batch)
            self._lc.llama_free(context.ctx)
            context.ctx = context.batch = None

    def _probe(self) -> None:
        """Embed one short text now: a model whose weights are damaged (NaN, inf) loads
        fine but would make every search fail; it counts as unusable instead."""
        try:
            vector = self.embed_query("memdesk checks that this model works")
        except EmbedderUnavailable:
            self.close()
            raise
        if not np.all(np.isfinite(vector)) or not np.any(vector):
            self.close()
            raise EmbedderUnavailable(
                f"Embedding model {self._path}: unusable, it produces "
                f"{'non-finite (NaN/inf)' if not np.all(np.isfinite(vector)) else 'all-zero'} vectors"
            )

    # ------------------------------------------------------------------ protocol

    @property
    def path(self) -> Path:
        return self._path

    @property
    def info(self) -> GgufInfo:
        return self._info

    @property
    def dims(self) -> int:
        return self._dims

    @property
    def max_input_tokens(self) -> int:
        return self._n_ctx

    @property
    def query_prefix(self) -> str:
        return self._query_prefix

    @property
    def document_prefix(self) -> str:
        return self._document_prefix

    @property
    def identity(self) -> EmbedderIdentity:
        if self._identity is None:
            self._identity = EmbedderIdentity(
                provider="gguf",
                model=self._info.model_name,
                dims=self._dims,
                pooling=_SUPPORTED_POOLING[self._info.pooling_type],
                query_prefix=self._query_prefix,
                document_prefix=self._document_prefix,
                file_sha256=file_sha256(self._path),
            )
        return self._identity

    def count_tokens(self, text: str) -> int:
        """Tokens of ``document_prefix + text`` with the model's special tokens."""
        return len(self._tokenize(self._document_prefix + text, special=True))

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Shape (len(texts), dims), float32, rows L2-normalised; long texts windowed."""
        return self._embed([self._document_prefix] * len(texts), list(texts), queries=False)

    def embed_query(self, text: str) -> np.ndarray:
        """Shape (dims,), float32, L2-normalised (on its own context: safe to call while
        another thread embeds documents)."""
        row: np.ndarray = self._embed([self._query_prefix], [text], queries=True)[0]
        return row

    # ------------------------------------------------------------------ windows

    def token_windows(self, text: str, prefix: str | None = None) -> list[list[int]]:
        """The token sequences ``text`` is embedded as (one unless it is too long).

        Each has at most ``max_input_tokens`` tokens; see the class docstring.
        Not subsampled: ``max_windows`` applies at embedding time.
        """
        prefix = self._document_prefix if prefix is None else prefix
        full = self._tokenize(prefix + text, special=True)
        if len(full) <= self._n_ctx:
            return [full or self._fallback_tokens()]
        # rstrip: a SentencePiece tokenizer would turn the prefix's trailing space
        # into a lone "▁" token, while the body gets its own leading "▁" anyway.
        prefix_ids = self._tokenize(prefix.rstrip(), special=False) if prefix.strip() else []
        body = self._tokenize(text, special=False)
        wrap = len(self._head) + len(prefix_ids) + len(self._tail)
        room = self._n_ctx - wrap
        if room <= 0:
            raise EmbedderUnavailable(f"Embedding model {self._path}: context too small for its prefix")
        return [
            self._head + prefix_ids + body[start : start + room] + self._tail
            for start in range(0, len(body), room)
        ]

    def _fallback_tokens(self) -> list[int]:
        # Only for tokenizers that add nothing to an empty string: encode needs >= 1 token.
        return (self._head + self._tail) or [0]

    def _tokenize(self, text: str, *, special: bool) -> list[int]:
        self.load()
        return self._tokenize_loaded(text, special=special)

    def _tokenize_loaded(self, text: str, *, special: bool) -> list[int]:
        if self._pre_nfd and not text.isascii():
            text = unicodedata.normalize("NFD", text)
        # Lone surrogates cannot be UTF-8 encoded; invalid UTF-8 must never reach C++.
        data = text.encode("utf-8", "replace")
        lc = self._lc
        size = len(data) + 8  # a token covers at least one byte, plus the specials
        while True:
            buf = (lc.llama_token * size)()
            # parse_special=False: literal "[CLS]" in a note is text, not a control token.
            n = int(lc.llama_tokenize(self._vocab, data, len(data), buf, size, special, False))
            if n >= 0:
                tokens: list[int] = buf[:n]
                return tokens
            size = -n

    # ------------------------------------------------------------------ embedding

    def _embed(self, prefixes: list[str], texts: list[str], *, queries: bool) -> np.ndarray:
        out = np.zeros((len(texts), self._dims), dtype=np.float32)
        if not texts:
            return out
        self.load()
        context = self._queries if queries else self._documents
        if context is None:
            raise EmbedderUnavailable(f"Embedding model {self._path}: closed")
        with context.lock:
            if context.ctx is None:
                raise EmbedderUnavailable(f"Embedding model {self._path}: closed")
            sequences: list[tuple[int, list[int]]] = []  # (text index, tokens)
            for index, (prefix, text) in enumerate(zip(prefixes, texts, strict=True)):
                windows = self.token_windows(text, prefix)
                if len(windows) > self._max_windows:
                    picks = np.linspace(0, len(windows) - 1, self._max_windows).round().astype(int)
                    windows = [windows[i] for i in sorted(set(picks.tolist()))]
                sequences.extend((index, w) for w in windows)
            pooled = self._encode_sequences(context, [tokens for _, tokens in sequences])
        sums = np.zeros((len(texts), self._dims), dtype=np.float64)
        for (index, tokens), vector in zip(sequences, pooled, strict=True):
            sums[index] += vector.astype(np.float64) * len(tokens)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        out[:] = (sums / norms).astype(np.float32)
        return out

    def _encode_sequences(self, context: _Context, sequences: list[list[int]]) -> np.ndarray:
        """Pooled vectors of token sequences (each <= n_ctx), packed into batches."""
        result = np.zeros((len(sequences), self._dims), dtype=np.float32)
        order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]), reverse=True)
        pending: list[int] = []
        used = 0
        for i in order:
            n = len(sequences[i])
            if n > self._n_ctx or n > context.tokens:
                raise AssertionError("sequence longer than the context reached the encoder")
            if pending and (used + n > self._batch_tokens or len(pending) >= context.n_seq_max):
                self._run_batch(context, [sequences[j] for j in pending], result, pending)
                pending, used = [], 0
            pending.append(i)
            used += n
        if pending:
            self._run_batch(context, [sequences[j] for j in pending], result, pending)
        return result

    def _run_batch(
        self, context: _Context, seqs: list[list[int]], result: np.ndarray, targets: list[int]
    ) -> None:
        lc = self._lc
        batch, ctx, cap = context.batch, context.ctx, context.tokens
        total = sum(len(s) for s in seqs)
        positions = np.ctypeslib.as_array(batch.pos, shape=(cap,))
        n_seq_id = np.ctypeslib.as_array(batch.n_seq_id, shape=(cap,))
        logits = np.ctypeslib.as_array(batch.logits, shape=(cap,))
        ids = np.fromiter((t for seq in seqs for t in seq), dtype=np.int32, count=total)
        if self._token_rows is not None:
            embd = np.ctypeslib.as_array(batch.embd, shape=(cap, self._dims))
            embd[:total] = self._token_rows.rows(ids)
        else:
            np.ctypeslib.as_array(batch.token, shape=(cap,))[:total] = ids
        k = 0
        for seq_index, seq in enumerate(seqs):
            n = len(seq)
            positions[k : k + n] = np.arange(n)
            for j in range(k, k + n):
                batch.seq_id[j][0] = seq_index
            k += n
        n_seq_id[:total] = 1
        logits[:total] = 1
        batch.n_tokens = total
        memory = lc.llama_get_memory(ctx)
        if memory:
            lc.llama_memory_clear(memory, True)
        rc = lc.llama_encode(ctx, batch)
        if rc != 0:
            raise EmbedderUnavailable(f"Embedding model {self._path}: llama.cpp encode failed ({rc})")
        for seq_index, target in enumerate(targets):
            ptr = lc.llama_get_embeddings_seq(ctx, seq_index)
            if not ptr:
                raise EmbedderUnavailable(f"Embedding model {self._path}: no pooled embedding returned")
            result[target] = np.ctypeslib.as_array(ptr, shape=(self._dims,))
        self._release_logits(context, total)

    def _release_logits(self, context: _Context, batch_tokens: int) -> None:
        """Give the pages of the context's unused logits buffer back to the OS (see
        ``_RELEASE_LOGITS_FROM_BYTES``); only when the buffer grew in this call."""
        rows = max(batch_tokens, context.n_seq_max)
        if rows <= context.output_rows:
            return
        context.output_rows = rows
        if _libc is None:
            return
        lc = self._lc
        size = self._output_vocab * rows * ctypes.sizeof(ctypes.c_float)
        if size < _RELEASE_LOGITS_FROM_BYTES:
            return
        address = ctypes.cast(lc.llama_get_logits(context.ctx), ctypes.c_void_p).value
        if not address:
            return
        page = mmap.PAGESIZE
        start = -(-address // page) * page  # whole pages inside the buffer only
        end = (address + size) // page * page
        if end > start and _libc.madvise(
            ctypes.c_void_p(start), ctypes.c_size_t(end - start), _MADV_DONTNEED
        ):
            logger.debug("madvise(MADV_DONTNEED) on the logits buffer failed (errno %d)", ctypes.get_errno())

    def encode_reference(self, tokens: Sequence[int], *, flash_attention: bool = False) -> np.ndarray:
        """The pooled (un-normalised) vector of one token sequence, computed alone: one
        sequence per encode call in a context of the model's trained size.

        ``flash_attention=False`` is node-llama-cpp 3.x (OpenClaw 2026.4): measured on
        MiniLM against vectors it stored, cosines agree to ~1e-8 (float32 rounding),
        while the fast path (``embed_*``: packed sequences, flash attention, whose CPU
        kernel accumulates in F16) moves them by ~1.5e-4. ``True`` is llama-server's
        default on a CPU (``--flash-attn auto``: on), which OpenClaw 2026.9 embeds
        through. Raises ``ValueError`` for an empty sequence or one longer than the context.
        """
        seq = [int(t) for t in tokens]
        if not seq or len(seq) > self._n_ctx:
            raise ValueError(f"{len(seq)} tokens: a reference encode takes 1..{self._n_ctx}")
        self.load()
        with self._load_lock:
            if self._model is None:
                raise EmbedderUnavailable(f"Embedding model {self._path}: closed")
            context = self._references.get(flash_attention)
            if context is None:
                context = self._new_context(self._model, self._n_ctx, 1, flash_attention=flash_attention)
                self._references[flash_attention] = context
        with context.lock:
            if context.ctx is None:
                raise EmbedderUnavailable(f"Embedding model {self._path}: closed")
            row: np.ndarray = self._encode_sequences(context, [seq])[0]
            return row

    def close(self) -> None:
        """Free the llama.cpp model and context now rather than at garbage collection."""
        with self._load_lock:
            contexts = [
                c for c in (self._queries, self._documents, *self._references.values()) if c is not None
            ]
            self._queries = self._documents = None
            self._references = {}
            for context in contexts:
                self._free_context(context)
            if self._model is not None:
                self._lc.llama_model_free(self._model)
                self._model = None
            if self._tokenizer is not None:
                self._lc.llama_model_free(self._tokenizer)
                self._tokenizer = None

    def __del__(self) -> None:
        # At interpreter shutdown the ctypes module may already be gone.
        with contextlib.suppress(Exception):
            self.close()


def _split_specials(full: list[int], body: list[int]) -> tuple[list[int], list[int]]:
    """(head, tail) special tokens around ``body`` inside ``full``."""
    n = len(body)
    for start in range(len(full) - n + 1):
        if full[start : start + n] == body:
            return full[:start], full[start + n :]
    # Tokenizers that merge specials into the body are not BERT-like; assume none.
    logger.warning("could not locate the body inside the special-token wrapping")
    return [], []
