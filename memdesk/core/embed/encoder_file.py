"""A GGUF embedding model's encoder without its vocabulary, and its token rows.

Why: llama.cpp (as bundled by llama-cpp-python 0.3.36) gives every context an
output buffer of vocabulary-size floats per token of the largest batch
("logits", ``llama_context::output_reserve``: ``has_logits`` is always true and
``encode`` reserves one output per token), zero-filled whenever it grows, even
for an embedding model that never writes it. For e5's 250k vocabulary that is
1 MB per batch token: a 512-token window made the process 490 MB larger for the
call. No context parameter avoids it (``n_outputs_max`` below the batch aborts
the encoder).

So llama.cpp computes with an *encoder file*: the model's own tensors and
hyperparameters, but ``tokenizer.ggml.model = "none"`` and a one-row token
embedding, so its vocabulary has one entry and the buffer one float per token.
Text is still tokenized by the model's own vocabulary (the original file,
loaded ``vocab_only``), and each token's embedding row is read here from the
original file and handed to llama.cpp as input embeddings (``llama_batch.embd``),
which the BERT graphs use in place of their own row look-up. The formats read
here dequantise exactly (an F16 scale times a small integer is exact in
float32), so llama.cpp sees the same float32 inputs and the vectors are
bit-identical to the full model's.

The encoder file lives beside the model (``<model>.gguf.encoder``, like the
``.sha256`` sidecar; ``memdesk model build`` and the bundle build write it) or,
when that folder is read-only or a bundle's, in the user cache; it
names the sha256 of the file it came from and is rebuilt when that changes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from pathlib import Path

import numpy as np
import platformdirs

from memdesk.core import paths
from memdesk.core.embed import partial_files
from memdesk.core.embed.gguf_header import GgufInfo, read_gguf_header

logger = logging.getLogger(__name__)

ENCODER_VERSION = 1
TOKEN_EMBEDDING = "token_embd.weight"
_STRING, _ARRAY = 8, 9
_UINT32 = 4
# ggml types whose rows dequantise exactly in float32 (ggml: scale * integer).
_F32, _F16, _Q4_0, _Q8_0 = 0, 1, 2, 8
_BLOCKS = {_Q4_0: (32, 18), _Q8_0: (32, 34)}  # weights per block, bytes per block


def token_row_bytes(ggml_type: int, n_embd: int) -> int | None:
    """Bytes of one token-embedding row, or None for a format not read here."""
    if ggml_type == _F32:
        return 4 * n_embd
    if ggml_type == _F16:
        return 2 * n_embd
    if ggml_type in _BLOCKS:
        block, size = _BLOCKS[ggml_type]
        return n_embd // block * size if n_embd % block == 0 else None
    return None


def unsupported(info: GgufInfo) -> str | None:
    """Why ``info``'s model cannot run as encoder file + token rows, or None if it can."""
    location = info.tensors.get(TOKEN_EMBEDDING)
    if location is None:
        return "no token_embd.weight tensor"
    ggml_type, dims, _offset = location
    if len(dims) != 2 or dims[0] != info.embedding_length:
        return f"token_embd.weight has shape {list(dims)}"
    if token_row_bytes(ggml_type, dims[0]) is None:
        return f"token_embd.weight has ggml type {ggml_type}"
    arrays = [k for k, t in info.value_types.items() if t == _ARRAY and not k.startswith("tokenizer.")]
    if arrays:
        return f"array metadata outside the tokenizer ({', '.join(arrays)})"
    return None


class TokenRows:
    """float32 token-embedding rows, read from the model file's ``token_embd.weight``."""

    def __init__(self, info: GgufInfo) -> None:
        ggml_type, dims, offset = info.tensors[TOKEN_EMBEDDING]
        self.n_embd, self.n_vocab = int(dims[0]), int(dims[1])
        row_bytes = token_row_bytes(ggml_type, self.n_embd)
        if row_bytes is None:
            raise ValueError(f"token_embd.weight has ggml type {ggml_type}")
        self._type = ggml_type
        # Only the pages of the rows looked up become resident.
        self._rows = np.memmap(
            info.path, dtype=np.uint8, mode="r", offset=offset, shape=(self.n_vocab, row_bytes)
        )

    def rows(self, tokens: np.ndarray) -> np.ndarray:
        """Shape (len(tokens), n_embd) float32; ``tokens`` must be valid ids."""
        raw = np.asarray(self._rows[tokens])
        n = len(tokens)
        if self._type == _F32:
            return raw.view(np.float32).reshape(n, self.n_embd)
        if self._type == _F16:
            return raw.view(np.float16).reshape(n, self.n_embd).astype(np.float32)
        blocks = raw.reshape(n, -1, _BLOCKS[self._type][1])
        scale = blocks[:, :, :2].copy().view(np.float16).astype(np.float32)  # (n, blocks, 1)
        if self._type == _Q8_0:
            values = blocks[:, :, 2:].view(np.int8).astype(np.float32)
        else:  # Q4_0: low nibbles are weights 0-15 of the block, high nibbles 16-31
            packed = blocks[:, :, 2:]
            values = np.concatenate([packed & 0x0F, packed >> 4], axis=2).astype(np.float32) - 8.0
        out: np.ndarray = (values * scale).reshape(n, self.n_embd)
        return out


def sidecar_path(model_path: Path) -> Path:
    return model_path.with_name(model_path.name + ".encoder")


def _cache_path(model_path: Path, sha256: str) -> Path:
    folder = Path(platformdirs.user_cache_dir("memdesk")) / "encoders"
    return folder / f"{model_path.stem}-{sha256[:16]}.encoder"


def _is_encoder_of(path: Path, sha256: str) -> bool:
    try:
        header = read_gguf_header(path)
    except Exception:
        return False
    return bool(
        header.get("memdesk.encoder_of") == sha256
        and header.get("memdesk.encoder_version") == ENCODER_VERSION
    )


def ensure_encoder(info: GgufInfo, sha256: str) -> Path | None:
    """The encoder file of ``info``'s model, derived now if missing or stale;
    None when no folder can take it (the caller then runs the full model)."""
    beside, cached = sidecar_path(info.path), _cache_path(info.path, sha256)
    for path in (beside, cached):
        if _is_encoder_of(path, sha256):
            return path
    # Never into a desktop bundle's install folder, even when it could (root): a
    # package manager would find the file left behind at removal. The bundle ships
    # the encoder files its build made.
    shipped = paths.bundled_models_dir()
    inside = shipped is not None and Path(os.path.realpath(info.path)).is_relative_to(
        os.path.realpath(shipped)
    )
    for path in (cached,) if inside else (beside, cached):
        try:
            derive_encoder(info, sha256, path)
        except OSError as exc:
            logger.info("cannot write the encoder file %s: %s", path, exc)
            continue
        return path
    return None


def _temp_path(out: Path) -> Path:
    return out.with_name(f"{out.name}.{os.getpid()}.tmp")


def remove_partial_files(out: Path) -> list[Path]:
    """Delete what a derivation of the encoder file ``out`` killed mid-write left beside
    it (``<out>.<pid>.tmp``, as large as the model): only those names, only regular
    files, never one a running derivation holds (its lock). Returns what was removed."""
    return partial_files.remove_unlocked(out.parent, re.compile(rf"{re.escape(out.name)}\.[0-9]+\.tmp"))


def derive_encoder(info: GgufInfo, sha256: str, out: Path) -> None:
    """Write ``info``'s model without its vocabulary to ``out`` (atomically); what a
    killed derivation of it left is removed first."""
    import gguf

    reason = unsupported(info)
    if reason is not None:
        raise ValueError(f"{info.path}: {reason}")
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_partial_files(out)
    tmp = _temp_path(out)
    # Locked while written: another process's clean-up leaves it alone.
    lock_fd = partial_files.open_locked(tmp)
    try:
        data = np.memmap(info.path, dtype=np.uint8, mode="r")
        writer = gguf.GGUFWriter(str(tmp), info.architecture)
        for key, vtype in info.value_types.items():
            if key.startswith("tokenizer.") or key in ("general.architecture", "general.alignment"):
                continue
            writer.add_key_value(key, info.metadata[key], gguf.GGUFValueType(vtype))
        writer.add_key_value("tokenizer.ggml.model", "none", gguf.GGUFValueType(_STRING))
        types = info.get("tokenizer.ggml.token_type_count")
        if types is not None:  # BERT's token-type embedding is sized by it
            writer.add_key_value("tokenizer.ggml.token_type_count", types, gguf.GGUFValueType(_UINT32))
        writer.add_key_value(f"{info.architecture}.vocab_size", 1, gguf.GGUFValueType(_UINT32))
        writer.add_key_value("memdesk.encoder_of", sha256, gguf.GGUFValueType(_STRING))
        writer.add_key_value("memdesk.encoder_version", ENCODER_VERSION, gguf.GGUFValueType(_UINT32))
        for name, (ggml_type, dims, offset) in info.tensors.items():
            if name == TOKEN_EMBEDDING:
                writer.add_tensor(name, np.zeros((1, dims[0]), dtype=np.float32))
                continue
            block, type_size = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType(ggml_type)]
            row_bytes = dims[0] // block * type_size
            rows = int(np.prod(dims[1:], dtype=np.int64))
            raw = data[offset : offset + rows * row_bytes]
            shape = (*reversed(dims[1:]), row_bytes)
            writer.add_tensor(name, raw.reshape(shape), raw_dtype=gguf.GGMLQuantizationType(ggml_type))
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        os.chmod(tmp, 0o600)  # GGUFWriter creates it under the umask; memdesk's files are owner-only
        os.replace(tmp, out)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        os.close(lock_fd)
