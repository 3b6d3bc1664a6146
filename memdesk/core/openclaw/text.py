"""JavaScript string semantics needed for exact parity.

OpenClaw measures text in UTF-16 code units (JS ``.length``), trims with the
ECMAScript whitespace set and hashes with Node's UTF-8 encoder (which turns
lone surrogates into U+FFFD). Python strings are code-point sequences, so the
helpers here translate explicitly instead of relying on ``len``/``strip``.
"""

from __future__ import annotations

import array
import functools
import hashlib
import re
import sys
import unicodedata

# ECMAScript WhiteSpace + LineTerminator (what String.prototype.trim and /\s/
# remove). Python's str.isspace differs: it includes \x1c-\x1f and omits \ufeff.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_WS_SET = frozenset(JS_WHITESPACE)

# Weighted-size classes from src/utils/cjk-chars.ts: these code points count 4.
# Any code point outside the Basic Multilingual Plane (two UTF-16 units).
_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")
_CJK_WEIGHT_RE = re.compile("[\u2e80-\u9fff\ua000-\ua4ff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]")
_EXT_B_PAIR_RE = re.compile("[\U00020000-\U0002fbff]")
CJK_CHAR_WEIGHT = 4


def is_js_whitespace(ch: str) -> bool:
    """True if ``ch`` is whitespace for JS ``trim()`` and ``/\\s/``."""
    return ch in _JS_WS_SET


def js_trim(s: str) -> str:
    """``String.prototype.trim`` (ECMAScript whitespace set, not Python's)."""
    return s.strip(JS_WHITESPACE)


def js_lower(s: str) -> str:
    """``toLowerCase``; Python's ``lower`` matches it except for a few rare letters."""
    return s.lower()


# These helpers run per character of every chunk the OpenClaw profiles index and of
# every keyword hit they score (a SciFact evaluation: tens of millions of characters),
# so they let the codecs and ``re`` do the per-character work; each equals the plain
# per-character definition it replaced (tests/core/openclaw/test_text_speed.py).


def utf16_len(s: str) -> int:
    """JS ``.length``: number of UTF-16 code units (astral chars count 2)."""
    if s.isascii():
        return len(s)
    # "surrogatepass" writes a lone surrogate as the one unit it is in JS.
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def to_utf16_units(s: str) -> list[int]:
    """The UTF-16 code units of ``s`` (lone surrogates pass through unchanged)."""
    units = array.array("H", s.encode("utf-16-le", "surrogatepass"))
    if sys.byteorder == "big":
        units.byteswap()
    return units.tolist()


def from_utf16_units(units: list[int]) -> str:
    """Rebuild a Python string from UTF-16 units, re-pairing valid surrogates.

    Unpaired surrogates are kept as lone surrogate code points, mirroring a JS
    string that was sliced through a pair.
    """
    raw = array.array("H", units)
    if sys.byteorder == "big":
        raw.byteswap()
    return raw.tobytes().decode("utf-16-le", "surrogatepass")


def utf16_slice(s: str, start: int, end: int | None = None) -> str:
    """JS ``s.slice(start, end)`` for non-negative indices in UTF-16 units."""
    if all(ord(ch) <= 0xFFFF for ch in s):
        return s[start:end]
    return from_utf16_units(to_utf16_units(s)[start:end])


def js_utf8(s: str) -> bytes:
    """UTF-8 bytes as Node produces them: lone surrogates become U+FFFD."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        # Only reachable with lone surrogates (a JS string sliced mid-pair).
        return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in s).encode("utf-8")


def is_well_formed(s: str) -> bool:
    """``String.prototype.isWellFormed``: no lone surrogates."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def to_well_formed(s: str) -> str:
    """``String.prototype.toWellFormed``: lone surrogates become U+FFFD (as ``js_utf8``)."""
    if is_well_formed(s):
        return s
    return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in s)


def utf8_byte_length(s: str) -> int:
    """``Buffer.byteLength(s, "utf8")``."""
    return len(js_utf8(s))


def hash_text(value: str) -> str:
    """``hashText``: SHA-256 hex digest of the UTF-8 encoding of ``value``."""
    return hashlib.sha256(js_utf8(value)).hexdigest()


def estimate_string_chars(text: str, *, legacy: bool = False) -> int:
    """``estimateStringChars``: weighted size used by the chunker.

    CJK-family code points (including Ext-B+ astral ideographs) weigh 4; every
    other character weighs its UTF-16 length, so emoji weigh 2. LEGACY
    (v2026.2.27) used plain ``.length``.
    """
    if legacy:
        return utf16_len(text)
    if not text:
        return 0
    if text.isascii():
        return len(text)
    non_latin = len(_CJK_WEIGHT_RE.findall(text))
    if non_latin == 0:
        return utf16_len(text)
    # OpenClaw subtracts one unit per surrogate pair whose high half is
    # D840-D87E (U+20000-U+2FBFF), a slightly wider range than the weighted
    # class; reproduce that formula rather than a per-character weight.
    pairs = len(_EXT_B_PAIR_RE.findall(text))
    return utf16_len(text) - pairs + non_latin * (CJK_CHAR_WEIGHT - 1)


def truncate_utf16_safe(text: str, max_chars: int) -> str:
    """``truncateUtf16Safe``: first ``max_chars`` UTF-16 units, never half a pair.

    If the cut would leave a dangling high surrogate, one more unit is dropped.
    No ellipsis is added.
    """
    limit = max(0, int(max_chars))
    if len(text) <= limit // 2:
        return text  # even if every character were a surrogate pair it fits
    if text.isascii() or _ASTRAL_RE.search(text, 0, limit) is None:
        # The first ``limit`` code points are in the Basic Multilingual Plane, one UTF-16
        # unit each: they are the first ``limit`` units (what follows does not matter).
        return text[:limit]
    if utf16_len(text) <= limit:
        return text
    units = to_utf16_units(text)[:limit]
    if units and 0xD800 <= units[-1] <= 0xDBFF:
        units = units[:-1]
    return from_utf16_units(units)


def is_unicode_letter_or_number(ch: str) -> bool:
    """``/[\\p{L}\\p{N}]/u`` for one code point."""
    return unicodedata.category(ch)[0] in "LN"


def is_unicode_punctuation(ch: str) -> bool:
    """``/\\p{P}/u`` for one code point."""
    return unicodedata.category(ch)[0] == "P"


def is_unicode_punct_or_symbol(ch: str) -> bool:
    """``/[\\p{P}\\p{S}]/u`` for one code point."""
    return unicodedata.category(ch)[0] in "PS"


def word_tokens(text: str, *, marks: bool = False) -> list[str]:
    """All matches of ``/[\\p{L}\\p{N}_]+/gu`` in order (case preserved); with ``marks``,
    of ``/[\\p{L}\\p{M}\\p{N}_]+/gu`` (2026.9's path and trigram plans keep combining marks)."""
    return _word_pattern("LMN" if marks else "LN").findall(text)


@functools.cache
def _word_pattern(classes: str) -> re.Pattern[str]:
    """``[_\\p{...}]+`` for ``re`` (which has no ``\\p``), from this Python's
    ``unicodedata``; built once per process (~0.5 s). ``re``'s ``\\w`` is ``_`` and
    ``str.isalnum``, which is ``[_\\p{L}\\p{N}]`` in the Unicode versions we know
    and ~10x faster than a class of 700 ranges, so the pattern is ``\\w`` plus
    whatever the class has beyond it (the marks), unless ``\\w`` has a character the
    class lacks: then the class's own ranges."""
    beyond: list[str] = []
    word_is_wider = False
    start = -1
    for cp in range(sys.maxunicode + 2):
        ch = chr(cp) if cp <= sys.maxunicode else ""
        inside = bool(ch) and (ch == "_" or unicodedata.category(ch)[0] in classes)
        word = bool(ch) and (ch == "_" or ch.isalnum())
        word_is_wider = word_is_wider or (word and not inside)
        extra = inside and not word
        if extra and start < 0:
            start = cp
        elif not extra and start >= 0:
            beyond.append(_char_range(start, cp - 1))
            start = -1
    if not word_is_wider:
        return re.compile("[\\w" + "".join(beyond) + "]+" if beyond else "\\w+")
    ranges: list[str] = []
    start = -1
    for cp in range(sys.maxunicode + 2):
        inside = cp <= sys.maxunicode and (cp == 0x5F or unicodedata.category(chr(cp))[0] in classes)
        if inside and start < 0:
            start = cp
        elif not inside and start >= 0:
            ranges.append(_char_range(start, cp - 1))
            start = -1
    return re.compile("[" + "".join(ranges) + "]+")


def _char_range(first: int, last: int) -> str:
    return re.escape(chr(first)) + ("-" + re.escape(chr(last)) if last > first else "")
