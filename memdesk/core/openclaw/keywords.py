"""Keyword extraction for FTS-only mode (``query-expansion.ts``).

Used only when no embedding provider exists: the query is lowercased, split on
whitespace and Unicode punctuation, tokenized per script (kana, Han, Hangul,
other), and filtered through multilingual stop-word lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import is_js_whitespace, is_unicode_punct_or_symbol, is_unicode_punctuation, js_lower, js_trim

STOP_WORDS_EN = frozenset(
    "a an the this that these those i me my we our you your he she it they them is are was were be "
    "been being have has had do does did will would could should can may might in on at to for of "
    "with by from about into through during before after above below between under over and or but "
    "if then because as while when where what which who how why yesterday today tomorrow earlier "
    "later recently ago just now thing things stuff something anything everything nothing please "
    "help find show get tell give".split()
)
STOP_WORDS_ES = frozenset(
    "el la los las un una unos unas este esta ese esa yo me mi nosotros nosotras tu tus usted "
    "ustedes ellos ellas de del a en con por para sobre entre y o pero si porque como es son fue "
    "fueron ser estar haber tener hacer ayer hoy mañana antes despues después ahora recientemente "
    "que qué cómo cuando cuándo donde dónde porqué favor ayuda".split()
)
STOP_WORDS_PT = frozenset(
    "o a os as um uma uns umas este esta esse essa eu me meu minha nos nós você vocês ele ela eles "
    "elas de do da em com por para sobre entre e ou mas se porque como é são foi foram ser estar ter "
    "fazer ontem hoje amanhã antes depois agora recentemente que quê quando onde porquê favor "
    "ajuda".split()
)
# "من فضلك" is a two-word entry; it can never equal a single token but is kept verbatim.
STOP_WORDS_AR = frozenset(
    "ال و أو لكن ثم بل أنا نحن هو هي هم هذا هذه ذلك تلك هنا هناك من إلى الى في على عن مع بين ل ب ك "
    "كان كانت يكون تكون صار أصبح يمكن ممكن بالأمس امس اليوم غدا الآن قبل بعد مؤخرا لماذا كيف ماذا متى "
    "أين هل فضلا ساعد".split()
) | {"من فضلك"}
STOP_WORDS_KO = frozenset(
    "은 는 이 가 을 를 의 에 에서 로 으로 와 과 도 만 까지 부터 한테 에게 께 처럼 같이 보다 마다 밖에 대로 "
    "나 나는 내가 나를 너 우리 저 저희 그 그녀 그들 이것 저것 그것 여기 저기 거기 있다 없다 하다 되다 "
    "이다 아니다 보다 주다 오다 가다 것 거 등 수 때 곳 중 분 잘 더 또 매우 정말 아주 많이 너무 좀 그리고 "
    "하지만 그래서 그런데 그러나 또는 그러면 왜 어떻게 뭐 언제 어디 누구 무엇 어떤 어제 오늘 내일 최근 "
    "지금 아까 나중 전에 제발 부탁".split()
)
STOP_WORDS_JA = frozenset(
    "これ それ あれ この その あの ここ そこ あそこ する した して です ます いる ある なる できる の こと "
    "もの ため そして しかし また でも から まで より だけ なぜ どう 何 いつ どこ 誰 どれ 昨日 今日 明日 "
    "最近 今 さっき 前 後".split()
)
STOP_WORDS_ZH = frozenset(
    "我 我们 你 你们 他 她 它 他们 这 那 这个 那个 这些 那些 的 了 着 过 得 地 吗 呢 吧 啊 呀 嘛 啦 是 有 "
    "在 被 把 给 让 用 到 去 来 做 说 看 找 想 要 能 会 可以 和 与 或 但 但是 因为 所以 如果 虽然 而 也 都 "
    "就 还 又 再 才 只 之前 以前 之后 以后 刚才 现在 昨天 今天 明天 最近 东西 事情 事 什么 哪个 哪些 "
    "怎么 为什么 多少 请 帮 帮忙 告诉".split()
)
ALL_STOP_WORDS = (
    STOP_WORDS_EN
    | STOP_WORDS_ES
    | STOP_WORDS_PT
    | STOP_WORDS_AR
    | STOP_WORDS_ZH
    | STOP_WORDS_KO
    | STOP_WORDS_JA
)

# Longest particle first, so "에서" wins over "서"-less single-syllable ones.
KO_TRAILING_PARTICLES: tuple[str, ...] = tuple(
    sorted(
        "에서 으로 에게 한테 처럼 같이 보다 까지 부터 마다 밖에 대로 은 는 이 가 을 를 의 에 로 와 과 도 만".split(),
        key=len,
        reverse=True,
    )
)

_KANA_RE = re.compile("[\u3040-\u30ff]")
_HAN_RE = re.compile("[\u4e00-\u9fff]")
_HAN_ONLY_RE = re.compile("^[\u4e00-\u9fff]+$")
_HANGUL_RE = re.compile("[\uac00-\ud7af\u3131-\u3163]")
_HANGUL_SYLLABLE_RE = re.compile("[\uac00-\ud7af]")
_JA_PARTS_RE = re.compile("[a-z0-9_]+|[\u30a0-\u30ffー]+|[\u4e00-\u9fff]+|[\u3040-\u309f]{2,}")
_ASCII_WORD_I_RE = re.compile(r"^[a-zA-Z0-9_]+$")
_ASCII_LETTERS_RE = re.compile(r"^[a-zA-Z]+$")
_ASCII_DIGITS_RE = re.compile(r"^[0-9]+$")  # JS \d is ASCII-only


def is_query_stop_word(token: str) -> bool:
    """True if ``token`` is in any language's stop-word list."""
    return token in ALL_STOP_WORDS


def _is_valid_keyword(token: str) -> bool:
    if not token:
        return False
    if _ASCII_LETTERS_RE.match(token) and len(token) < 3:
        return False
    if _ASCII_DIGITS_RE.match(token):
        return False
    if all(is_unicode_punct_or_symbol(ch) for ch in token):
        return False
    return True


def _split_segments(normalized: str) -> list[str]:
    """``normalized.split(/[\\s\\p{P}]+/u).filter(Boolean)``."""
    segments: list[str] = []
    buf: list[str] = []
    for ch in normalized:
        if is_js_whitespace(ch) or is_unicode_punctuation(ch):
            if buf:
                segments.append("".join(buf))
                buf = []
        else:
            buf.append(ch)
    if buf:
        segments.append("".join(buf))
    return segments


def _strip_korean_particle(token: str) -> str | None:
    for particle in KO_TRAILING_PARTICLES:
        if len(token) > len(particle) and token.endswith(particle):
            return token[: -len(particle)]
    return None


def _is_useful_korean_stem(stem: str) -> bool:
    # A one-syllable stem ("논의" -> "논") is noise; ASCII stems ("api를" -> "api") are kept.
    if _HANGUL_SYLLABLE_RE.search(stem):
        return len(stem) >= 2
    return bool(_ASCII_WORD_I_RE.match(stem))


def _tokenize(text: str, trigram: bool) -> list[str]:
    tokens: list[str] = []
    for segment in _split_segments(js_lower(js_trim(text))):
        if _KANA_RE.search(segment):
            for part in _JA_PARTS_RE.findall(segment):
                tokens.append(part)
                if _HAN_ONLY_RE.match(part) and not trigram:
                    tokens.extend(part[i] + part[i + 1] for i in range(len(part) - 1))
        elif _HAN_RE.search(segment):
            # Glued ASCII is dropped: only the Han characters of the segment count.
            chars = [ch for ch in segment if _HAN_RE.match(ch)]
            if trigram:
                tokens.append("".join(chars))
            else:
                tokens.extend(chars)
                tokens.extend(chars[i] + chars[i + 1] for i in range(len(chars) - 1))
        elif _HANGUL_RE.search(segment):
            stem = _strip_korean_particle(segment)
            stem_is_stop = stem is not None and stem in STOP_WORDS_KO
            if segment not in STOP_WORDS_KO and not stem_is_stop:
                tokens.append(segment)
            if stem and stem not in STOP_WORDS_KO and _is_useful_korean_stem(stem):
                tokens.append(stem)
        else:
            tokens.append(segment)
    return tokens


def extract_keywords(query: str, fts_tokenizer: str = "unicode61") -> list[str]:
    """``extractKeywords``: ordered, de-duplicated non-stop-word keywords.

    Pure 1-2 letter ASCII words, ASCII digit runs and punctuation/symbol-only
    tokens are dropped. ``fts_tokenizer="trigram"`` keeps Han runs whole
    instead of emitting unigrams and bigrams.
    """
    trigram = fts_tokenizer == "trigram"
    seen: set[str] = set()
    keywords: list[str] = []
    for token in _tokenize(query, trigram):
        if is_query_stop_word(token) or not _is_valid_keyword(token) or token in seen:
            continue
        seen.add(token)
        keywords.append(token)
    return keywords


@dataclass(frozen=True)
class ExpandedQuery:
    """``expandQueryForFts`` result: trimmed original, keywords, ``"orig OR k1 OR k2"``."""

    original: str
    keywords: tuple[str, ...]
    expanded: str


def expand_query_for_fts(query: str, fts_tokenizer: str = "unicode61") -> ExpandedQuery:
    """``expandQueryForFts`` (exported by OpenClaw but unused by its search path)."""
    original = js_trim(query)
    keywords = extract_keywords(original, fts_tokenizer)
    expanded = f"{original} OR {' OR '.join(keywords)}" if keywords else original
    return ExpandedQuery(original, tuple(keywords), expanded)
