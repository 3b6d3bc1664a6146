"""FTS5 query construction: ``buildFtsQuery`` and ``planKeywordSearch``.

OpenClaw quotes every ``[\\p{L}\\p{N}_]+`` token and joins them with ``AND``
(never ``OR``; that is a fork variant). With the opt-in trigram tokenizer,
short CJK/kana/Hangul tokens cannot be matched by FTS5 (trigrams need 3
characters), so they become ``LIKE '%term%'`` substring filters instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import js_trim, word_tokens

_SHORT_CJK_RE = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
TRIGRAM_MIN_CHARS = 3


def quote_terms(terms: list[str]) -> str | None:
    """The MATCH expression ANDing ``terms``, each quoted (its own quotes dropped); None for none."""
    if not terms:
        return None
    return " AND ".join('"' + term.replace('"', "") + '"' for term in terms)


def build_fts_query(raw: str) -> str | None:
    """``buildFtsQuery``: AND of quoted Unicode word tokens, or None if there are none.

    ``None`` means the keyword leg is skipped. Case is preserved; there is no
    stop-word removal and no prefix matching.
    """
    tokens = [js_trim(t) for t in word_tokens(raw)]
    return quote_terms([t for t in tokens if t])


@dataclass(frozen=True)
class KeywordSearchPlan:
    """How one query is run against ``chunks_fts``.

    ``match_query`` feeds ``MATCH ?`` (None: no MATCH clause, rank is the
    literal 0); each ``substring_terms`` entry adds ``AND text LIKE '%term%'``.
    """

    match_query: str | None
    substring_terms: tuple[str, ...]


def plan_keyword_search(query: str, fts_tokenizer: str = "unicode61") -> KeywordSearchPlan:
    """``planKeywordSearch``: split query tokens into MATCH terms and LIKE terms.

    Only the trigram tokenizer produces substring terms: tokens containing kana,
    CJK or Hangul that are shorter than three code points.
    """
    if fts_tokenizer != "trigram":
        return KeywordSearchPlan(build_fts_query(query), ())
    tokens = [t for t in (js_trim(t) for t in word_tokens(query)) if t]
    match_terms: list[str] = []
    substring_terms: list[str] = []
    for token in tokens:
        if _SHORT_CJK_RE.search(token) and len(token) < TRIGRAM_MIN_CHARS:
            substring_terms.append(token)
        else:
            match_terms.append(token)
    return KeywordSearchPlan(quote_terms(match_terms), tuple(substring_terms))


def escape_like_pattern(term: str) -> str:
    """Escape ``\\``, ``%`` and ``_`` for ``LIKE ? ESCAPE '\\'``."""
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
