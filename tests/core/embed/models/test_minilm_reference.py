"""llama.cpp on our GGUF vs an independent numpy BERT on the original safetensors.

The reference here shares no code with the converter or llama.cpp: a WordPiece
tokenizer written from the BERT paper/HF ``BertTokenizer`` rules, and a plain
numpy forward pass (embeddings, 6 post-norm encoder layers, mean pooling, L2).
Token ids must match exactly; vectors within cosine 0.999.
"""

from __future__ import annotations

import json
import math
import unicodedata
from pathlib import Path

import numpy as np
import pytest

TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "Meeting notes: ship memdesk v0.1 by Friday; Alice owns the indexer, Bob the GUI.",
    "I prefer dark roast coffee, no sugar — and tea after 3pm!",
    "Café déjà vu: naïve façade, Ångström & Résumé (ACCENTS) stripped?",
    "unbelievably tokenization-heavy hyperparameters: lr=3e-4, batch_size=128, β2=0.999",
    "用户偏好：使用中文回复，代码注释用英文。",
    "我们下周三在北京开会，讨论向量检索的召回率。",
    "混合 mixed 文本 with English words 和 中文 字符 123 456.",
    "email: someone@example.com; url: https://example.org/path?q=1#frag",
    "",
]


# --------------------------------------------------------------------------- tokenizer


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def _is_whitespace(ch: str) -> bool:
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_control(ch: str) -> bool:
    return ch not in "\t\n\r" and unicodedata.category(ch).startswith("C")


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


class WordPiece:
    """BERT uncased tokenization: BasicTokenizer then greedy longest-match WordPiece."""

    def __init__(self, vocab_path: Path) -> None:
        tokens = vocab_path.read_text(encoding="utf-8").split("\n")
        if tokens and tokens[-1] == "":
            tokens.pop()
        self.vocab = {tok: i for i, tok in enumerate(tokens)}

    def basic(self, text: str) -> list[str]:
        cleaned = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD or _is_control(ch):
                continue
            if _is_whitespace(ch):
                cleaned.append(" ")
            elif _is_cjk(cp):
                cleaned.append(f" {ch} ")
            else:
                cleaned.append(ch)
        words: list[str] = []
        for word in "".join(cleaned).split():
            word = unicodedata.normalize("NFD", word.lower())
            word = "".join(c for c in word if unicodedata.category(c) != "Mn")
            current = ""
            for ch in word:
                if _is_punct(ch):
                    if current:
                        words.append(current)
                    words.append(ch)
                    current = ""
                else:
                    current += ch
            if current:
                words.append(current)
        return words

    def wordpiece(self, word: str) -> list[int]:
        if len(word) > 100:
            return [self.vocab["[UNK]"]]
        pieces: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    found = self.vocab[piece]
                    break
                end -= 1
            if found is None:
                return [self.vocab["[UNK]"]]
            pieces.append(found)
            start = end
        return pieces

    def encode(self, text: str) -> list[int]:
        ids = [self.vocab["[CLS]"]]
        for word in self.basic(text):
            ids.extend(self.wordpiece(word))
        ids.append(self.vocab["[SEP]"])
        return ids


# --------------------------------------------------------------------------- model


def _erf(x: np.ndarray) -> np.ndarray:
    # numpy has no erf; math.erf elementwise is exact and fast enough for ~10 texts.
    return np.frompyfunc(math.erf, 1, 1)(x).astype(np.float64)


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


class NumpyBert:
    """Post-norm BERT encoder in float64 + mean pooling + L2 norm."""

    def __init__(self, weights_path: Path, config_path: Path) -> None:
        from safetensors.numpy import load_file

        self.w = {
            k: v.astype(np.float64) for k, v in load_file(str(weights_path)).items() if v.dtype.kind == "f"
        }
        self.cfg = json.loads(config_path.read_text(encoding="utf-8"))

    def embed(self, ids: list[int]) -> np.ndarray:
        w, cfg = self.w, self.cfg
        eps = cfg["layer_norm_eps"]
        n_heads = cfg["num_attention_heads"]
        n = len(ids)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        d = x.shape[1]
        dh = d // n_heads
        for i in range(cfg["num_hidden_layers"]):
            p = f"encoder.layer.{i}."

            def lin(name: str, inp: np.ndarray, p: str = p) -> np.ndarray:
                return inp @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q = lin("attention.self.query", x).reshape(n, n_heads, dh).transpose(1, 0, 2)
            k = lin("attention.self.key", x).reshape(n, n_heads, dh).transpose(1, 0, 2)
            v = lin("attention.self.value", x).reshape(n, n_heads, dh).transpose(1, 0, 2)
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(dh)
            scores -= scores.max(-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(-1, keepdims=True)
            ctx = (probs @ v).transpose(1, 0, 2).reshape(n, d)
            x = _layer_norm(
                x + lin("attention.output.dense", ctx),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                eps,
            )
            h = lin("intermediate.dense", x)
            h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)))
            x = _layer_norm(
                x + lin("output.dense", h),
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                eps,
            )
        pooled = x.mean(0)
        return pooled / np.linalg.norm(pooled)


# --------------------------------------------------------------------------- tests


@pytest.fixture(scope="module")
def tokenizer(minilm_source: dict[str, Path]) -> WordPiece:
    return WordPiece(minilm_source["vocab.txt"])


@pytest.fixture(scope="module")
def reference(minilm_source: dict[str, Path]) -> NumpyBert:
    return NumpyBert(minilm_source["model.safetensors"], minilm_source["config.json"])


def test_reference_tokenizer_sanity(tokenizer: WordPiece) -> None:
    # Guards the reference itself against being trivially wrong.
    ids = tokenizer.encode("Hello, unbelievable world!")
    vocab = tokenizer.vocab
    assert ids[0] == vocab["[CLS]"] and ids[-1] == vocab["[SEP]"]
    assert vocab["hello"] in ids and vocab[","] in ids and vocab["!"] in ids
    assert tokenizer.basic("Café 北京") == ["cafe", "北", "京"]


@pytest.mark.parametrize("text", TEXTS)
def test_token_ids_match_reference(gguf_embedder, tokenizer: WordPiece, text: str) -> None:
    assert gguf_embedder._tokenize(text, special=True) == tokenizer.encode(text)


def test_embeddings_match_reference_f16(gguf_embedder, tokenizer: WordPiece, reference: NumpyBert) -> None:
    got = gguf_embedder.embed_documents(TEXTS)
    for text, vector in zip(TEXTS, got, strict=True):
        expected = reference.embed(tokenizer.encode(text))
        assert float(vector @ expected) >= 0.999, text


def test_embeddings_match_reference_f32(
    minilm_gguf_f32: Path, tokenizer: WordPiece, reference: NumpyBert
) -> None:
    from memdesk.core.embed.gguf_embedder import GgufEmbedder

    embedder = GgufEmbedder(minilm_gguf_f32)
    try:
        got = embedder.embed_documents(TEXTS)
    finally:
        embedder.close()
    cosines = [float(v @ reference.embed(tokenizer.encode(t))) for t, v in zip(TEXTS, got, strict=True)]
    assert min(cosines) >= 0.9999, cosines


def test_batched_equals_one_by_one(gguf_embedder) -> None:
    # Packing many sequences into one llama.cpp batch must not let them attend to each other.
    together = gguf_embedder.embed_documents(TEXTS)
    for text, row in zip(TEXTS, together, strict=True):
        alone = gguf_embedder.embed_documents([text])[0]
        assert float(alone @ row) >= 0.99999
