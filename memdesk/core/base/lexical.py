"""memdesk's own lexical layer: CJK-aware FTS text, keyword queries, MMR tokens.

FTS5's ``unicode61`` tokenizer treats an unbroken run of Han characters (with any
glued ASCII) as one token, so ``鉴权`` never matches ``API鉴权方案``. memdesk stores
a second, *segmented* copy of each chunk in which every CJK run is rewritten as
its characters and overlapping character bigrams, and rewrites queries the same
way; character-bigram BM25 is the standard segmentation-free baseline for Chinese.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

import numpy as np

# Han (incl. extension A and compatibility), kana, Hangul syllables and jamo.
_CJK_CLASS = (
    "\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u1100-\u11ff\U00020000-\U0002fa1f"
)
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
# A "word" is a run of letters/digits/underscore that contains no CJK character.
_TOKEN = re.compile(f"[{_CJK_CLASS}]+|[^\\W{_CJK_CLASS}]+")

# Words that carry no topic in a search query. Dropped from keyword queries only
# when something else is left (a query of only stop words still searches them).
STOP_WORDS = frozenset(
    """a an the this that these those i me my we our you your he she it its they them
    is are was were be been being have has had do does did will would could should can may
    might must shall in on at to for of with by from about into through during before after
    above below between under over and or but if then than so because as while when where
    what which who whom whose how why not no nor any all some such there here just also very
    s t don doesn didn isn aren wasn weren""".split()
) | frozenset("的 了 是 在 和 与 或 也 都 就 吗 呢 吧 啊 把 被 给".split())


def is_cjk(ch: str) -> bool:
    return bool(_CJK_RUN.fullmatch(ch))


def normalize(text: str) -> str:
    """NFKC (full-width ASCII → ASCII, compatibility ideographs → unified) and lowercase."""
    if text.isascii():
        return text.lower()  # NFKC is the identity on ASCII
    return unicodedata.normalize("NFKC", text).lower()


def _cjk_grams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def segment_for_index(text: str) -> str:
    """The text FTS5 indexes: CJK runs become unigrams + overlapping bigrams.

    Non-CJK text is kept (FTS5's porter/unicode61 tokenizer does the rest).
    Unigrams are kept so that a one-character query still finds something.
    """
    text = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    last = 0
    for match in _CJK_RUN.finditer(text):
        out.append(text[last : match.start()])
        run = match.group()
        out.append(" " + " ".join(list(run) + ([] if len(run) == 1 else _cjk_grams(run))) + " ")
        last = match.end()
    out.append(text[last:])
    return "".join(out)


def query_terms(query: str, *, stop_words: frozenset[str] = STOP_WORDS) -> list[str]:
    """Search terms of a user query: words and CJK bigrams, de-duplicated, in order.

    Stop words go unless nothing else is left. The result contains only letters,
    digits and underscores, so it can be quoted into FTS5 syntax safely.
    """
    terms: list[str] = []
    for match in _TOKEN.finditer(normalize(query)):
        token = match.group()
        if _CJK_RUN.fullmatch(token):
            terms.extend(_cjk_grams(token))
        else:
            terms.append(token)
    seen: set[str] = set()
    unique = [t for t in terms if not (t in seen or seen.add(t))]  # type: ignore[func-returns-value]
    content = [t for t in unique if t not in stop_words]
    return content or unique


def fts_match_expression(terms: list[str], *, limit: int = 64, joiner: str = " OR ") -> str | None:
    """An FTS5 MATCH string ORing the quoted terms; None when there is nothing to match.

    OR (not OpenClaw's AND) lets BM25 rank partial matches instead of demanding
    every word; very long queries are cut to ``limit`` terms to bound the work.
    """
    quoted = ['"' + t.replace('"', "") + '"' for t in terms[:limit] if t.replace('"', "")]
    return joiner.join(quoted) if quoted else None


_WORD = re.compile(f"[^\\W{_CJK_CLASS}]+")
_CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")
# Every pair of adjacent CJK characters, overlapping (a zero-width look-ahead per position).
_CJK_BIGRAM = re.compile(f"(?=([{_CJK_CLASS}]{{2}}))")


@functools.lru_cache(maxsize=8192)
def mmr_tokens(text: str) -> frozenset[str]:
    """Token set for MMR similarity: Unicode words (any script) + CJK uni/bigrams."""
    norm = normalize(text)
    # MMR tokenizes every candidate it diversifies, so the common case is fast: a
    # whitespace-separated ASCII letters-and-digits piece is one word as it stands (no
    # token spans whitespace); only the other pieces go through the regexes.
    tokens: set[str] = set()
    rest: list[str] = []
    for piece in norm.split():
        if piece.isascii() and piece.isalnum():
            tokens.add(piece)
        else:
            rest.append(piece)
    if rest:
        other = " ".join(rest)
        tokens.update(_WORD.findall(other))
        if not other.isascii():
            # Each CJK run's characters and overlapping bigrams, found by the regex engine.
            tokens.update(_CJK_CHAR.findall(other))
            tokens.update(_CJK_BIGRAM.findall(other))
    return frozenset(tokens)


# A chunk's MMR tokens as the index stores them (``indexer.stored_mmr_tokens``), so a search
# need not tokenize the text: little-endian int32s, this format number, then the sorted
# ids of the tokens in the index's own vocabulary (``Store.mmr_token_ids``). Bump it
# whenever ``mmr_tokens`` changes: stored ids of another format are ignored (the text
# is tokenized again) and the next sync rewrites them (``indexer.sync_files``).
MMR_TOKENS_FORMAT = 1


def encode_stored_tokens(ids: Iterable[int]) -> bytes:
    """The stored form of a chunk's token ids (see ``MMR_TOKENS_FORMAT``)."""
    return np.array([MMR_TOKENS_FORMAT, *sorted(ids)], dtype="<i4").tobytes()


def decode_stored_tokens(stored: bytes | None) -> np.ndarray | None:
    """The sorted token ids of an ``encode_stored_tokens`` value; None when absent or of
    another format."""
    if not stored or len(stored) % 4:
        return None
    values = np.frombuffer(stored, dtype="<i4")
    return values[1:] if int(values[0]) == MMR_TOKENS_FORMAT else None
