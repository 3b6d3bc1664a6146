"""What text (and which special tokens) each OpenClaw version feeds its embedding model.

memdesk's own profile gives e5-family models ``query: ``/``passage: `` prefixes; OpenClaw
never does, so its vectors differ and a profile that predicts the agent must embed
the way the agent does. Measured against the real releases (tests/fixtures/openclaw):

* **2026.9** sends the bare chunk/query text to an OpenAI-compatible
  ``/v1/embeddings`` server (its ``local`` provider is the ``@openclaw/llama-cpp-provider``
  plugin's managed llama-server), which adds the model's own special tokens:
  ``special_tokens="model"``. That server runs flash attention ``auto``, which is on
  for a CPU, so the recipe computes with it on (``flash_attention=True``), one
  sequence at a time: what the server computes for an input it embeds alone. It also
  packs the inputs of one request into shared batches over 4 slots, and which inputs
  share a batch depends on timing, so some of the agent's vectors differ from the
  alone ones (and between two reindexes of its own) by up to ~1e-4: that is the
  agent's own jitter, measured in docs/openclaw-versions.md, not a recipe to copy.
* **2026.4** embeds through node-llama-cpp 3.18.1 (``LlamaEmbeddingContext``): it
  tokenizes without specials, then prepends BOS only for WordPiece vocabularies
  (BERT ``[CLS]``) or when the vocabulary asks for it (never for SentencePiece
  unigram, i.e. e5), and appends SEP (WordPiece) or EOS (unigram, or when asked).
  So e5 sees ``text </s>`` without ``<s>``: ``special_tokens="node-llama-cpp"``.

Neither windows long inputs: both fail on a chunk longer than the model's context
(2026.4 then discards the whole reindex), so :class:`RecipeEmbedder` raises
:class:`OverContext` rather than averaging windows as memdesk's embedder does.

A vector depends only on the model, the token ids and how they were computed, not on
which recipe produced the tokens: :func:`vector_key` names it by exactly those, so a
profile can take a vector another recipe (or memdesk's own index) already computed
from the same tokens. Today's recipes share tokens only with a WordPiece model
(all-MiniLM-L6-v2: ``[CLS] text [SEP]`` for memdesk, 2026.4 and 2026.9 alike); e5's
three differ (``<s> passage: text</s>``, ``text</s>``, ``<s> text</s>``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from memdesk.core.embed.embedder import EmbedderIdentity

SpecialTokens = Literal["model", "node-llama-cpp"]


class OverContext(ValueError):
    """A text needs more tokens than the model's context (OpenClaw fails on it too)."""

    def __init__(self, tokens: int, context: int) -> None:
        super().__init__(f"input is {tokens} tokens, longer than the {context}-token context")
        self.tokens = tokens
        self.context = context


@dataclasses.dataclass(frozen=True)
class OpenClawRecipe:
    name: str
    special_tokens: SpecialTokens
    query_prefix: str = ""
    document_prefix: str = ""
    # How the vectors are computed: one sequence per call (``GgufEmbedder.encode_reference``),
    # flash attention off ("reference", node-llama-cpp) or on ("reference-fa", llama-server
    # on a CPU). Part of the key, so vectors from another computation never come back
    # from a cache.
    compute: str = "reference"
    flash_attention: bool = False

    def key(self) -> str:
        return hashlib.sha256(json.dumps(dataclasses.asdict(self), sort_keys=True).encode()).hexdigest()


# How memdesk's own index computes a chunk's vector (``GgufEmbedder.embed_documents``):
# sequences packed up to 256 tokens per llama.cpp call, flash attention as the embedder
# runs it. Keyed apart from the recipes' one-sequence computations...
INDEX_COMPUTE = {True: "packed-fa", False: "packed"}
# ...except where measured to give the same vectors: packed with flash attention against
# one sequence alone with it (all-MiniLM-L6-v2; tests/core/openclaw/test_recipe_reuse.py,
# docs/performance.md "Reuse across recipes"): the packed batch masks the other sequences
# out of the attention, and the cosines agree within float32 rounding (1 - cos < 1e-6),
# far inside the agent's own jitter (``near_ties.AGENT_JITTER``, 3e-4), and the fixture
# replays stay matching. Flash attention on against off is not such a pair (up to 2.2e-4,
# see near_ties), so 2026.4 takes nothing from the main index or from 2026.9.
SAME_VECTORS = frozenset({("packed-fa", "reference-fa")})


def vector_key(model_sha256: str, pooling: str, dims: int, compute: str, tokens: Sequence[int]) -> str:
    """What names one vector exactly: the model file's digest, its pooling and size, how
    it was computed (``OpenClawRecipe.compute`` / ``INDEX_COMPUTE``) and the token ids."""
    digest = hashlib.sha256(json.dumps([model_sha256, pooling, int(dims), compute]).encode())
    digest.update(np.asarray(list(tokens), dtype="<i4").tobytes())
    return digest.hexdigest()


RECIPES = {
    "2026.4": OpenClawRecipe("openclaw-2026.4", "node-llama-cpp"),
    "2026.9": OpenClawRecipe("openclaw-2026.9", "model", compute="reference-fa", flash_attention=True),
}


def recipe_for(version: str) -> OpenClawRecipe:
    for prefix, recipe in RECIPES.items():
        if version.startswith(prefix):
            return recipe
    raise KeyError(f"no embedding recipe for OpenClaw {version}")


class RecipeEmbedder:
    """An ``Embedder`` over a loaded GGUF model that feeds text the way one OpenClaw version does.

    It shares the model (and its lock) with ``base``; its identity differs from the
    base's only by the recipe, so its vectors get their own embedding-cache rows.
    """

    def __init__(self, base: Any, recipe: OpenClawRecipe) -> None:
        self.base = base
        self.recipe = recipe
        ident: EmbedderIdentity = base.identity
        self._identity = dataclasses.replace(
            ident,
            query_prefix=recipe.query_prefix,
            document_prefix=recipe.document_prefix,
            model=ident.model,
            provider=f"{ident.provider}+{recipe.name}+{recipe.compute}",
        )
        info = base.info
        self._vocab = str(info.get("tokenizer.ggml.model", ""))
        self._add_bos = bool(info.get("tokenizer.ggml.add_bos_token", False))
        self._add_eos = bool(info.get("tokenizer.ggml.add_eos_token", False))
        self._bos = info.get("tokenizer.ggml.bos_token_id")
        self._eos = info.get("tokenizer.ggml.eos_token_id")
        self._sep = info.get(
            "tokenizer.ggml.seperator_token_id", info.get("tokenizer.ggml.separator_token_id")
        )

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    @property
    def dims(self) -> int:
        return int(self.base.dims)

    @property
    def max_input_tokens(self) -> int:
        return int(self.base.max_input_tokens)

    def tokens(self, text: str, prefix: str = "") -> list[int]:
        """The token sequence this OpenClaw version hands the model for ``prefix + text``."""
        if self.recipe.special_tokens == "model":
            return list(self.base._tokenize(prefix + text, special=True))
        toks = list(self.base._tokenize(prefix + text, special=False))
        if not toks:
            return toks  # node-llama-cpp returns an empty vector for empty input
        if self._vocab == "bert":  # WordPiece: [CLS] ... [SEP]
            begin, end = self._bos, self._sep
        elif self._vocab == "t5":  # SentencePiece unigram: no BOS, EOS
            begin, end = None, self._eos
        else:
            begin = self._bos if self._add_bos else None
            end = self._eos if self._add_eos else None
        if begin is not None and toks[0] != begin:
            toks.insert(0, int(begin))
        if end is not None and toks[-1] != end:
            toks.append(int(end))
        return toks

    def count_tokens(self, text: str) -> int:
        return len(self.tokens(text, self.recipe.document_prefix))

    def document_tokens(self, text: str) -> list[int]:
        """The tokens of ``text`` as a document (what :meth:`embed_documents` encodes)."""
        return self.tokens(text, self.recipe.document_prefix)

    def vector_key(self, tokens: Sequence[int]) -> str:
        """The exact name of the vector this recipe computes from ``tokens``."""
        ident = self.base.identity
        return vector_key(ident.file_sha256, ident.pooling, ident.dims, self.recipe.compute, tokens)

    def index_vectors_match(self) -> bool:
        """Whether memdesk's own index computes vectors as this recipe does (then a
        chunk whose index tokens are this recipe's tokens has this recipe's vector)."""
        flash = getattr(self.base, "_flash_attention", None)  # GgufEmbedder's setting
        if not isinstance(flash, bool):
            return False  # conditions unknown: never assume the same vectors
        own = INDEX_COMPUTE[flash]
        return own == self.recipe.compute or (own, self.recipe.compute) in SAME_VECTORS

    def index_tokens(self, text: str) -> list[list[int]]:
        """The token sequences memdesk's own index embeds ``text`` as (one unless long)."""
        windows: list[list[int]] = self.base.token_windows(text)
        return windows

    def embed_token_sequences(self, seqs: Sequence[Sequence[int]]) -> np.ndarray:
        """L2-normalised vectors of token sequences, as :meth:`embed_documents` computes
        them (raises :class:`OverContext` before computing any when one is too long)."""
        for seq in seqs:
            if len(seq) > self.max_input_tokens:
                raise OverContext(len(seq), self.max_input_tokens)
        out = np.zeros((len(seqs), self.dims), dtype=np.float32)
        for i, seq in enumerate(seqs):
            if not seq:
                continue
            # One sequence per encode, flash attention as the agent's runtime sets it
            # (``encode_reference``): memdesk's packed path moves cosines by 2.5e-4 to
            # 3.2e-4, as much as another CPU's kernels do (tests/fixtures/openclaw/README.md).
            v = np.asarray(
                self.base.encode_reference(seq, flash_attention=self.recipe.flash_attention),
                dtype=np.float64,
            )
            n = np.linalg.norm(v)
            out[i] = (v / n if n >= 1e-10 else v).astype(np.float32)
        return out

    def _embed(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        return self.embed_token_sequences([self.tokens(t, prefix) for t in texts])

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, self.recipe.document_prefix)

    def embed_query(self, text: str) -> np.ndarray:
        row: np.ndarray = self._embed([text], self.recipe.query_prefix)[0]
        return row
