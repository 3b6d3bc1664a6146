"""Where a query's keyword terms occur in a chunk, and the part of it worth showing.

The spans come from the same tokenizer the keyword leg searched with (FTS5's
``porter unicode61`` for memdesk, plain ``unicode61`` for the openclaw profile), run
on an in-memory SQLite connection, so ``deploy`` lights up "deployed" but never
"holiday", and ``Zhou Hang`` never lights up "Shanghai". CJK text is matched as
the index stores it: memdesk's query characters/bigrams, OpenClaw's whole runs.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
import threading
from collections.abc import Sequence
from typing import cast

from memdesk.core.base import lexical, sqlite
from memdesk.core.openclaw import text as oc_text
from memdesk.core.search import profiles
from memdesk.core.search.hits import CandidatePool

MEMDESK_TOKENIZER = ("porter", "unicode61", "remove_diacritics", "2")
OPENCLAW_TOKENIZER = ("unicode61",)
_local = threading.local()
_SPACE = re.compile(r"\s+")
WORD_SLACK = 30  # how far an excerpt's start may move back to reach a word's beginning


@dataclasses.dataclass(frozen=True)
class KeywordTerms:
    """The terms a keyword leg searched for, and how it tokenized text."""

    terms: tuple[str, ...]
    profile: str = "memdesk"

    @classmethod
    def for_query(cls, query: str, profile: str = "memdesk") -> KeywordTerms:
        """The terms ``profile``'s keyword leg builds from ``query``."""
        if _openclaw_words(profile):
            return cls(tuple(t for t in (w.strip() for w in oc_text.word_tokens(query)) if t), profile)
        return cls(tuple(lexical.query_terms(query)), profile)

    @classmethod
    def of_pool(cls, pool: CandidatePool) -> KeywordTerms:
        """The terms ``pool``'s keyword leg matched, exactly (none when it did not run)."""
        return cls(pool.query_terms, pool.profile)


def _openclaw_words(profile: str) -> bool:
    """Whether ``profile``'s keyword leg is OpenClaw's (unicode61 words, no CJK bigrams)."""
    return profiles.get(profile).openclaw_layout is not None


def _tokenizer(profile: str) -> sqlite.Tokenizer:
    cache: dict[str, sqlite.Tokenizer] | None = getattr(_local, "tokenizers", None)
    if cache is None:
        # One private in-memory connection per thread: apsw objects are not shared.
        _local.conn = sqlite.memory()
        cache = _local.tokenizers = {}
    if profile not in cache:
        name, *args = MEMDESK_TOKENIZER if not _openclaw_words(profile) else OPENCLAW_TOKENIZER
        cache[profile] = sqlite.fts5_tokenizer(_local.conn, name, args)
    return cache[profile]


def _tokens(text: str, profile: str) -> list[tuple[int, int, str]]:
    """(char start, char end, token) of ``text`` as FTS5 tokenizes it."""
    raw = text.encode("utf-8")
    # With offsets and without colocated tokens, each item is (start, end, token).
    found = cast(
        list[tuple[int, int, str]],
        _tokenizer(profile)(
            raw, sqlite.TOKENIZE_DOCUMENT, None, include_offsets=True, include_colocated=False
        ),
    )
    if text.isascii():
        return [(start, end, token) for start, end, token in found]
    # Byte offsets -> character offsets.
    starts = [0]
    for ch in text:
        starts.append(starts[-1] + len(ch.encode("utf-8")))
    return [
        (bisect.bisect_left(starts, start), bisect.bisect_left(starts, end), token)
        for start, end, token in found
    ]


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def match_spans(text: str, terms: KeywordTerms) -> list[tuple[int, int]]:
    """Sorted, non-overlapping character ranges of ``text`` that the keyword leg matched."""
    if not terms.terms or not text:
        return []
    profile = terms.profile
    cjk_grams = {t for t in terms.terms if not _openclaw_words(profile) and lexical.is_cjk(t[0])}
    words = [t for t in terms.terms if t not in cjk_grams]
    wanted: set[str] = set()
    for word in words:
        wanted.update(token for _s, _e, token in _tokens(word, profile))
    spans: list[tuple[int, int]] = []
    if wanted:
        # memdesk's index splits CJK runs out of words ("API鉴权" -> "API 鉴 权 …"):
        # blank them the same way before tokenizing (same length, offsets unchanged).
        source = (
            lexical._CJK_RUN.sub(lambda m: " " * len(m.group()), text)
            if not _openclaw_words(profile) and not text.isascii()
            else text
        )
        spans += [(s, e) for s, e, token in _tokens(source, profile) if token in wanted]
    if cjk_grams:
        folded = text.lower()
        for gram in cjk_grams:
            start = folded.find(gram)
            while start >= 0:
                spans.append((start, start + len(gram)))
                start = folded.find(gram, start + 1)
    return _merge(spans)


@dataclasses.dataclass(frozen=True)
class Excerpt:
    """Text to show for a hit, with the matched ranges inside it."""

    text: str
    spans: tuple[tuple[int, int], ...]
    first_line: int  # 0-based line of the chunk the excerpt starts on
    clipped_start: bool
    clipped_end: bool


def excerpt(text: str, spans: Sequence[tuple[int, int]], *, width: int = 240) -> Excerpt:
    """About ``width`` characters of ``text`` (blanks collapsed) around its densest matches.

    The window starts a little before the first match it holds, at a word boundary,
    so the line that matched is read from its beginning where it fits.
    """
    # Collapse whitespace, keeping a map from new offsets to old ones.
    pieces: list[str] = []
    old_of_new: list[int] = []
    pos = 0
    for match in _SPACE.finditer(text):
        pieces.append(text[pos : match.start()])
        old_of_new.extend(range(pos, match.start()))
        pieces.append(" ")
        old_of_new.append(match.start())
        pos = match.end()
    pieces.append(text[pos:])
    old_of_new.extend(range(pos, len(text)))
    flat = "".join(pieces)
    lead = len(flat) - len(flat.lstrip())
    flat_stripped = flat.strip()
    old_of_new = old_of_new[lead : lead + len(flat_stripped)]
    flat = flat_stripped
    new_of_old = {old: new for new, old in enumerate(old_of_new)}

    def to_new(old: int) -> int:
        while old not in new_of_old and old < len(text):
            old += 1
        return new_of_old.get(old, len(flat))

    mapped = [(to_new(s), to_new(e - 1) + 1) for s, e in spans]
    mapped = [(s, e) for s, e in mapped if e > s]
    start = 0
    # A short chunk is shown whole unless its first match is past what the results'
    # two lines show.
    if mapped and (len(flat) > width or mapped[0][0] > width // 5):
        # The window of ``width`` characters holding the most matches, earliest first.
        best, best_count = mapped[0][0], 0
        for i, (s, _e) in enumerate(mapped):
            count = sum(1 for t, _u in mapped[i:] if t < s + width * 3 // 4)
            if count > best_count:
                best, best_count = s, count
        # Start at the matched line's beginning when it is near; else a little before
        # the match, at a word boundary. Near is as near as the fallback puts it: the
        # results show two lines of the excerpt (about 90 characters at the default
        # size), and a match 150 characters into its line fell out of view.
        line_start = to_new(text.rfind("\n", 0, old_of_new[best]) + 1)
        if best - line_start <= width // 5:
            start = line_start
        else:
            start = max(0, best - width // 5)
            space = flat.rfind(" ", max(0, start - 20), start + 1)
            start = space + 1 if space >= 0 else start
        # Not pulled back to fill ``width`` near the chunk's end: the results show the
        # first two lines of the excerpt, and a full-width window ending at the match
        # pushed it out of view (a 鉴权 hit showed a line above it, no 鉴权).
        start = _word_start(flat, start, best)
    end = min(len(flat), start + width)
    if end < len(flat):
        space = flat.rfind(" ", start + width * 2 // 3, end)
        end = space if space > 0 else _word_end(flat, end, start)
    shown = flat[start:end]
    inside = tuple((max(s, start) - start, min(e, end) - start) for s, e in mapped if e > start and s < end)
    old_start = old_of_new[start] if start < len(old_of_new) else len(text)
    return Excerpt(shown, inside, text.count("\n", 0, old_start), start > 0, end < len(flat))


def _in_word(ch: str) -> bool:
    """A character a cut must not fall beside on both sides (CJK characters are words
    each: a cut between two of them is fine)."""
    return (ch.isalnum() or ch == "_") and not lexical.is_cjk(ch)


def _word_start(flat: str, start: int, limit: int) -> int:
    """``start`` moved back to the beginning of the word it falls in (mixed Chinese and
    English has few spaces to cut at), but never past ``limit`` (the best match)."""
    if start <= 0 or not (_in_word(flat[start - 1]) and _in_word(flat[start])):
        return start
    back = start
    while back > 0 and _in_word(flat[back - 1]) and start - back < WORD_SLACK:
        back -= 1
    if back == 0 or not _in_word(flat[back - 1]):
        return back
    ahead = start  # a very long word: start after it instead
    while ahead < min(limit, len(flat)) and _in_word(flat[ahead]):
        ahead += 1
    return ahead


def _word_end(flat: str, end: int, start: int) -> int:
    """``end`` moved back to the end of the last whole word before it (not before ``start``)."""
    if end >= len(flat) or not (_in_word(flat[end - 1]) and _in_word(flat[end])):
        return end
    back = end
    while back > start + 1 and _in_word(flat[back - 1]):
        back -= 1
    return back if back > start + 1 else end


def matched_lines(text: str, spans: Sequence[tuple[int, int]]) -> list[int]:
    """0-based line numbers (within ``text``) that hold a match."""
    return sorted({text.count("\n", 0, start) for start, _end in spans})
