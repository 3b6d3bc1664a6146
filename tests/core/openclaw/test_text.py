"""The JS string helpers against their per-character definitions, and what the keyword
leg's fallback scoring tokenizes.

The helpers run over every character the OpenClaw profiles index and score, so they
are table- and codec-driven; each must equal the plain definition, character by
character, for any string (lone surrogates included: a JS slice can leave them).
"""

from __future__ import annotations

import types
import unicodedata
from pathlib import Path

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.core import engine
from memdesk.core.eval import runner as eval_runner
from memdesk.core.openclaw import keyword_search
from memdesk.core.openclaw import text as oc_text

# Letters, marks, digits, the underscore, CJK, Ext-B, emoji, lone surrogates and the
# case-changing letters whose lower case grows (İ) among anything else.
_TRICKY = [*"aZ_9 -.\n", "é", "e", "\u0301", "İ", "ß", "٣", "Ⅻ", "成", "한", "😀", "\U00020000", "\U0002fa1d"]
_TRICKY += ["\U0002fbff", "\ud83d", "\ude00", "\u0300", "\u2e80", "\ufeff"]
any_text = st.text(alphabet=st.one_of(st.sampled_from(_TRICKY), st.characters()), max_size=60)


def _word_tokens_by_definition(text: str, classes: str) -> list[str]:
    tokens: list[str] = []
    buf: list[str] = []
    for ch in text:
        if ch == "_" or unicodedata.category(ch)[0] in classes:
            buf.append(ch)
        elif buf:
            tokens.append("".join(buf))
            buf = []
    if buf:
        tokens.append("".join(buf))
    return tokens


def _units_by_definition(s: str) -> list[int]:
    units: list[int] = []
    for ch in s:
        cp = ord(ch)
        if cp > 0xFFFF:
            units += [0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)]
        else:
            units.append(cp)
    return units


def _string_by_definition(units: list[int]) -> str:
    out, i = [], 0
    while i < len(units):
        u = units[i]
        if 0xD800 <= u <= 0xDBFF and i + 1 < len(units) and 0xDC00 <= units[i + 1] <= 0xDFFF:
            out.append(chr(0x10000 + ((u - 0xD800) << 10) + (units[i + 1] - 0xDC00)))
            i += 2
        else:
            out.append(chr(u))
            i += 1
    return "".join(out)


@settings(max_examples=400, deadline=None)
@given(any_text)
def test_the_string_helpers_equal_their_per_character_definitions(s: str) -> None:
    assert oc_text.word_tokens(s) == _word_tokens_by_definition(s, "LN")
    assert oc_text.word_tokens(s, marks=True) == _word_tokens_by_definition(s, "LMN")
    units = _units_by_definition(s)
    assert oc_text.to_utf16_units(s) == units
    assert oc_text.utf16_len(s) == len(units)
    for cut in (units[: len(units) // 2], units[1:], units):
        assert oc_text.from_utf16_units(cut) == _string_by_definition(cut)
    cjk = sum(1 for ch in s if oc_text._CJK_WEIGHT_RE.match(ch))
    pairs = sum(1 for ch in s if 0x20000 <= ord(ch) <= 0x2FBFF)
    weighted = len(units) if not cjk else len(units) - pairs + cjk * (oc_text.CJK_CHAR_WEIGHT - 1)
    assert oc_text.estimate_string_chars(s) == (weighted if s else 0)


def test_every_letter_digit_and_mark_of_this_unicode_is_a_word_character() -> None:
    """The word pattern is built from ``unicodedata``: the whole code space, not a sample."""
    everything = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)
    words = "".join(oc_text.word_tokens(everything))
    assert words == "".join(ch for ch in everything if ch == "_" or unicodedata.category(ch)[0] in "LN")
    marked = "".join(oc_text.word_tokens(everything, marks=True))
    assert marked == "".join(ch for ch in everything if ch == "_" or unicodedata.category(ch)[0] in "LMN")


def test_the_word_pattern_keeps_to_its_class_where_re_word_is_wider(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should a Unicode version give ``str.isalnum`` a character outside ``[\\p{L}\\p{N}]``,
    the pattern is the class's own ranges, not ``\\w``."""
    real = unicodedata.category
    monkeypatch.setattr(
        oc_text, "unicodedata", types.SimpleNamespace(category=lambda ch: "Po" if ch == "5" else real(ch))
    )
    oc_text._word_pattern.cache_clear()
    try:
        assert oc_text.word_tokens("a5b _x 成语") == ["a", "b", "_x", "成语"]
        assert oc_text.word_tokens("e\u0301 5", marks=True) == ["e\u0301"]
    finally:
        monkeypatch.undo()
        oc_text._word_pattern.cache_clear()
    assert oc_text.word_tokens("a5b") == ["a5b"]


def test_fts_only_search_tokenizes_each_chunk_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """2026.4 without a model: a query whose words are never all in one chunk falls back
    to one search per keyword, and each row is scored with its text's word tokens.
    Tokenizing a hit's whole text for every keyword and every query cost ~7 s a SciFact
    query; the profile's index tokenizes each chunk once, and the scores are those of
    the definition."""
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    texts = {
        f"memory/n{i}.md": f"Ferry schedule note {i}: the harbour ferry leaves at {i} am. " * 5
        + f"owner {i}."
        for i in range(30)
    }
    for rel, body in texts.items():
        (root / rel).write_text(body, encoding="utf-8")
    tokenized: list[str] = []
    real = keyword_search.word_tokens
    monkeypatch.setattr(keyword_search, "word_tokens", lambda t, **k: tokenized.append(t) or real(t, **k))
    eng = engine.Engine.open(root, model=None, db_path=tmp_path / "index.sqlite", history=False)
    try:
        eng.sync()
        settings = eval_runner.eval_settings("openclaw-2026.4", mmr=False)
        keywords = ("ferry", "harbour", "owner", "zeppelin")
        pools = {
            q: eng.fetch_candidates(q, settings) for q in ("ferry harbour owner zeppelin", "owner ferry moon")
        }
    finally:
        eng.close()
    for body in texts.values():
        assert tokenized.count(body) == 1
    for query, pool in pools.items():
        assert {c.path for c in pool.candidates} == set(texts)
        for c in pool.candidates:
            # FTS-only: each row scored against the keyword that finds it best.
            best = max(
                min(1.0, row.text_score + _lexical_boost(kw, c.path, c.text))
                for kw in keywords
                if kw in query
                for row in keyword_search.search_keyword(_fts(texts), kw, 100)
                if row.path == c.path
            )
            assert c.text_score == best, (query, c.path)


def _fts(texts: dict[str, str]) -> apsw.Connection:
    conn = apsw.Connection(":memory:")
    conn.execute(keyword_search.chunks_fts_ddl())
    for rel, body in texts.items():
        keyword_search.insert_fts_row(conn, id=rel, path=rel, text=body.rstrip("\n"))
    return conn


def _lexical_boost(query: str, path: str, text: str) -> float:
    q = list(dict.fromkeys(t.lower() for t in _word_tokens_by_definition(query, "LN")))
    words = {t.lower() for t in _word_tokens_by_definition(text, "LN")}
    overlap = sum(1 for t in q if t in words)
    path_boost = sum(0.18 for t in q if t in path.lower())
    return (
        overlap / len(q) * 0.45 + overlap / max(len(words), 1) * 0.2 + path_boost + min(len(text) / 160, 0.18)
    )
