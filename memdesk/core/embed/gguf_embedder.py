"""Local text embeddings from a GGUF model file through llama.cpp (llama-cpp-python).

Two rules keep the desktop process alive whatever the user points us at:

1. A file is parsed and checked in pure Python (``gguf_header.inspect_gguf``) before
   llama.cpp ever opens it: magic, version, every metadata entry, every tensor's
   bounds against the file size, an embedding architecture, a tokenizer. Anything
   odd raises ``EmbedderUnavailable`` naming the file.
2. llama.cpp never receives a sequence longer than the model's trained context
   (it would ``GGML_ASSERT`` and abort the whole process), nor a batch larger than
   its physical batch (the encoder asserts ``n_ubatch >= n_tokens``).

llama.cpp itself is loaded by ``llama_runtime``; the model's digest comes from
``model_digest``; the vocabulary-free encoder file it computes with from
``encoder_file``.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import dataclasses
import logging
import threading
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memdesk.core.embed import encoder_file, llama_runtime, token_pooling
from memdesk.core.embed.embedder import EmbedderIdentity
from memdesk.core.embed.gguf_header import SUPPORTED_POOLING, GgufInfo, inspect_gguf, model_problem
from memdesk.core.embed.model_digest import file_sha256
from memdesk.core.errors import EmbedderUnavailable
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg

logger = logging.getLogger(__name__)

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
# Query vectors kept per embedder (see ``embed_query``).
QUERY_VECTORS_KEPT = 1024
# llama.cpp (as bundled by llama-cpp-python 0.3.36) gives every context a logits
# buffer of vocabulary x tokens-of-the-largest-batch floats, even for embeddings,
# and writes all of it when it grows: 1 MB per batch token for e5's 250k vocabulary
# (a 512-token batch: +490 MB, twice with the query context). Normally llama.cpp
# runs the vocabulary-free encoder file (see encoder_file), whose vocabulary has one
# entry; when it runs the model file itself, the buffer's pages go back to the OS
# after each call that grew it (``_release_logits``); llama.cpp does not write it
# again until it grows. Below this size it is not worth a syscall.
_RELEASE_LOGITS_FROM_BYTES = 4 << 20


def family_prefixes(name: str) -> tuple[str, str]:
    """(query, document) prefixes of known model families by name, else empty."""
    lowered = name.lower()
    for family, query, document in _FAMILY_PREFIXES:
        if family in lowered:
            return query, document
    return "", ""


@dataclasses.dataclass
class _Context:
    """One llama.cpp context with its batch; used by one thread at a time (``lock``)."""

    ctx: Any
    batch: Any
    tokens: int  # n_ctx == n_batch == n_ubatch
    n_seq_max: int
    # Pooling NONE: llama.cpp hands out every token's vector and the mean is taken here
    # (the documents context of a mean-pooled model, for ``embed_documents_windowed``).
    per_token: bool = False
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
        reference_model: Path | str | None = None,
    ) -> None:
        self._path = Path(model_path)
        # The same model in the format OpenClaw runs (F16) when this file is another
        # format of it (the CPU's, models/weight_formats.py): ``encode_reference``,
        # which the OpenClaw profiles embed with, computes on that file, so a profile's
        # vectors stay those of the agent's own runs; loaded on first use only.
        self._reference_model = Path(reference_model) if reference_model is not None else None
        self._reference_twin: GgufEmbedder | None = None
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
        self._n_threads = n_threads or llama_runtime.physical_cores()
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
        # text -> its query vector: an evaluation asks the same queries once per mode
        # and profile (three of SciFact's four modes embed each of its 809 queries), the
        # app the same query after each sync or profile switch. A query's vector depends
        # only on its text, so it is computed once; 1,024 e5 vectors are 1.5 MB.
        self._query_vectors: collections.OrderedDict[str, np.ndarray] = collections.OrderedDict()
        self._query_vectors_lock = threading.Lock()
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
            lc = llama_runtime.load_llama_cpp()
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
                    self._token_rows = encoder_file.TokenRows(self._info)
                self._output_vocab = int(lc.llama_vocab_n_tokens(lc.llama_model_get_vocab(model)))
                documents = self._new_context(
                    model, self._ctx_tokens, MAX_SEQUENCES_PER_CALL, per_token=self.late_chunking
                )
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
                model_problem(self._path, msg(QT_TRANSLATE_NOOP("core", "llama.cpp could not load it")))
            )
        return model

    def _encoder_file(self) -> Path | None:
        """The vocabulary-free encoder file llama.cpp computes with (see encoder_file),
        or None to run the model file itself (turned off, a token-embedding format
        not read in Python, or no folder to write the encoder file to)."""
        if not self._input_embeddings:
            return None
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
        self,
        model: Any,
        tokens: int,
        max_sequences: int,
        *,
        flash_attention: bool | None = None,
        per_token: bool = False,
    ) -> _Context:
        lc = self._lc
        flash = self._flash_attention if flash_attention is None else flash_attention
        cparams = lc.llama_context_default_params()
        cparams.n_ctx = tokens
        cparams.n_batch = tokens
        cparams.n_ubatch = tokens
        cparams.n_seq_max = max(1, min(max_sequences, int(lc.llama_max_parallel_sequences())))
        cparams.embeddings = True
        cparams.pooling_type = lc.LLAMA_POOLING_TYPE_NONE if per_token else self._info.pooling_type
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
        return _Context(ctx, lc.llama_batch_init(tokens, embd, n_seq_max), tokens, n_seq_max, per_token)

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
                pooling=SUPPORTED_POOLING[self._info.pooling_type],
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
        with self._query_vectors_lock:
            kept = self._query_vectors.get(text)
            if kept is not None:
                self._query_vectors.move_to_end(text)
                return kept.copy()
        row: np.ndarray = self._embed([self._query_prefix], [text], queries=True)[0]
        with self._query_vectors_lock:
            self._query_vectors[text] = row.copy()
            while len(self._query_vectors) > QUERY_VECTORS_KEPT:
                self._query_vectors.popitem(last=False)
        return row

    @property
    def late_chunking(self) -> bool:
        """Whether a passage's vector can be pooled from its whole text's forward pass:
        a mean-pooled model (e5, MiniLM), whose text vector is the mean of its token
        vectors. A CLS- or last-token-pooled model embeds each window on its own."""
        return SUPPORTED_POOLING.get(self._info.pooling_type) == "mean"

    def embed_documents_windowed(
        self, texts: Sequence[str], windows: Sequence[Sequence[token_pooling.CharSpans]]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """(``embed_documents(texts)``, per text its windows' vectors), one forward pass
        per text ("late chunking"). ``windows[i]`` lists text i's windows, each as the
        character ranges of ``texts[i]`` it is made of; a window's vector is the
        normalised mean of the text's output token vectors inside those ranges, so the
        window is seen in the context of its whole text. Without ``late_chunking`` the
        windows (their ranges joined by newlines) are embedded as texts of their own.
        """
        if not self.late_chunking:
            joined = [
                ["\n".join(t[a:b] for a, b in w) for w in ws] for t, ws in zip(texts, windows, strict=True)
            ]
            flat = self.embed_documents([*texts, *(w for ws in joined for w in ws)])
            out, k = [], len(texts)
            for ws in joined:
                out.append(flat[k : k + len(ws)])
                k += len(ws)
            return flat[: len(texts)], out
        tokens: dict[int, list[np.ndarray]] = {}
        vectors = self._embed(
            [self._document_prefix] * len(texts), list(texts), queries=False, token_rows=tokens
        )
        prefix_ids = (
            self._tokenize(self._document_prefix.rstrip(), special=False)
            if self._document_prefix.strip()
            else []
        )
        lead, tail = len(self._head) + len(prefix_ids), len(self._tail)
        pooled: list[np.ndarray] = []
        for i, (text, spans) in enumerate(zip(texts, windows, strict=True)):
            rows = tokens.get(i)
            if not spans:
                pooled.append(np.zeros((0, self._dims), dtype=np.float32))
                continue
            if rows is None:  # sampled (a text of over ``max_windows`` sequences): none
                pooled.append(np.repeat(vectors[i : i + 1], len(spans), axis=0))
                continue
            # The body's token vectors in order: each sequence without its head, prefix
            # and tail tokens (a long text is several sequences, see ``token_windows``).
            body = np.concatenate([r[lead : r.shape[0] - tail] for r in rows])
            offsets = token_pooling.token_offsets(
                text,
                (c for w in spans for r in w for c in r),
                lambda piece: len(self._tokenize(piece, special=False)),
            )
            token_spans = [[(offsets[a], offsets[b]) for a, b in w] for w in spans]
            pooled.append(token_pooling.span_vectors(body, token_spans, vectors[i]))
        return vectors, pooled

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

    def _embed(
        self,
        prefixes: list[str],
        texts: list[str],
        *,
        queries: bool,
        token_rows: dict[int, list[np.ndarray]] | None = None,
    ) -> np.ndarray:
        """Normalised vectors of ``prefixes[i] + texts[i]``. ``token_rows``: filled with text
        index -> its sequences' token vectors (documents context only; not for a text whose
        sequences were sampled)."""
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
            sampled: set[int] = set()
            for index, (prefix, text) in enumerate(zip(prefixes, texts, strict=True)):
                windows = self.token_windows(text, prefix)
                if len(windows) > self._max_windows:
                    picks = np.linspace(0, len(windows) - 1, self._max_windows).round().astype(int)
                    windows = [windows[i] for i in sorted(set(picks.tolist()))]
                    sampled.add(index)
                sequences.extend((index, w) for w in windows)
            rows: list[np.ndarray] | None = [] if token_rows is not None and context.per_token else None
            pooled = self._encode_sequences(context, [tokens for _, tokens in sequences], rows)
        if token_rows is not None and rows is not None:
            for (index, _), seq_rows in zip(sequences, rows, strict=True):
                if index not in sampled:
                    token_rows.setdefault(index, []).append(seq_rows)
        sums = np.zeros((len(texts), self._dims), dtype=np.float64)
        for (index, tokens), vector in zip(sequences, pooled, strict=True):
            sums[index] += vector.astype(np.float64) * len(tokens)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        out[:] = (sums / norms).astype(np.float32)
        return out

    def _encode_sequences(
        self, context: _Context, sequences: list[list[int]], token_rows: list[np.ndarray] | None = None
    ) -> np.ndarray:
        """Pooled vectors of token sequences (each <= n_ctx), packed into batches.
        ``token_rows`` (a per-token context): filled with each sequence's token vectors."""
        result = np.zeros((len(sequences), self._dims), dtype=np.float32)
        rows: dict[int, np.ndarray] | None = {} if token_rows is not None else None
        order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]), reverse=True)
        pending: list[int] = []
        used = 0
        for i in order:
            n = len(sequences[i])
            if n > self._n_ctx or n > context.tokens:
                raise AssertionError("sequence longer than the context reached the encoder")
            if pending and (used + n > self._batch_tokens or len(pending) >= context.n_seq_max):
                self._run_batch(context, [sequences[j] for j in pending], result, pending, rows)
                pending, used = [], 0
            pending.append(i)
            used += n
        if pending:
            self._run_batch(context, [sequences[j] for j in pending], result, pending, rows)
        if token_rows is not None and rows is not None:
            token_rows.extend(rows[i] for i in range(len(sequences)))
        return result

    def _run_batch(
        self,
        context: _Context,
        seqs: list[list[int]],
        result: np.ndarray,
        targets: list[int],
        token_rows: dict[int, np.ndarray] | None = None,
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
        if context.per_token:
            # Every token is an output, in batch order: the mean of a sequence's rows is
            # what llama.cpp's mean pooling computes (within float32 rounding).
            ptr = lc.llama_get_embeddings(ctx)
            if not ptr:
                raise EmbedderUnavailable(f"Embedding model {self._path}: no token embeddings returned")
            every = np.ctypeslib.as_array(ptr, shape=(total, self._dims))
            k = 0
            for seq, target in zip(seqs, targets, strict=True):
                part = every[k : k + len(seq)]
                result[target] = part.mean(axis=0, dtype=np.float64)
                if token_rows is not None:
                    token_rows[target] = part.copy()
                k += len(seq)
        else:
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
        if not llama_runtime.CAN_RELEASE_PAGES:
            return
        size = self._output_vocab * rows * ctypes.sizeof(ctypes.c_float)
        if size < _RELEASE_LOGITS_FROM_BYTES:
            return
        address = ctypes.cast(self._lc.llama_get_logits(context.ctx), ctypes.c_void_p).value
        if not address:
            return
        llama_runtime.release_pages(address, size)

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
        if self._reference_model is not None:
            with self._load_lock:
                if self._reference_twin is None:
                    self._reference_twin = GgufEmbedder(
                        self._reference_model, n_threads=self._n_threads, lazy=True
                    )
                twin = self._reference_twin
            return twin.encode_reference(seq, flash_attention=flash_attention)
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
            twin, self._reference_twin = self._reference_twin, None
        if twin is not None:
            twin.close()

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
