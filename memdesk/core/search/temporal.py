"""What a query says about time: does it ask for the current state, and which dates does it name.

Pure functions over the query text and a clock, used by the memdesk profile's
ranking (``ranking.py``): recency only breaks ties when the query asks for the
current state ("what do we use *now*", "最终", "现在"), and a note dated inside a
period the query names ("in July 2023", "on 3 June", "7月14日", "last week") gains
a bounded bonus. Both are deliberately conservative: a query that names no time
ranks exactly as without them.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re

# Words that ask for the state of things today rather than their history. Measured on
# LoCoMo dev: applying recency to every query hurts (-0.03 nDCG@10 at the weight that
# helps current-state questions), gating it on these words costs nothing there.
# A bare "recently" is not one of them: "what forum did Tim join recently?" asks which
# past event, told as recent when it happened, not how things stand today (on LoCoMo
# dev 19 questions were gated by it alone; in 5 it put the newest notes over the
# answer, costing 0.0015 nDCG@10 overall).
# "the most recent" / "latest" do ask for the newest and stay.
CURRENT_STATE = re.compile(
    r"\b(?:now|nowadays|current(?:ly)?|latest|final(?:ly)?|still|these days|today|"
    r"at the moment|any ?more|ended up|end up|in the end|up to date|most recent(?:ly)?)\b"
    r"|现在|目前|最终|最后|最新|如今|当前|眼下|最近|还在",
    re.IGNORECASE,
)

# A question about a duration ("how long has she had her current job?", "since when do
# we deploy on Tuesdays now?") is answered where the period began, not by the newest
# note, whatever its words say about the present. On LoCoMo dev one question was gated
# by "current" and lost 0.64 nDCG@10 to recency (0.0008 overall); no golden question is
# a duration question.
_DURATION = re.compile(r"\bhow long\b|\bsince when\b|多久|多长时间", re.IGNORECASE)

# A question about how one past occasion went ("what did they end up playing during
# the charity event?", "会议期间最后定了什么") is answered where that occasion is told,
# not by the newest note; in the present tense ("what do we use during the standup
# now?") the occasion recurs and the newest note still wins. A question tied to a
# named period ("currently reading in August 2023", "latest project in July 2023") is
# the same: its "current" means then, and the date match ranks that period's notes
# instead. On LoCoMo dev the occasion form gated one question, whose answer recency
# pushed from rank 1 (0.0008 nDCG@10 overall); the period form moved no answer there,
# nor on the golden set.
_DETERMINER = r"(?:the|a|an|our|their|his|her|my|your|that|this)"
_PAST_OCCASION = re.compile(
    rf"\b(?:did|was|were|had)\b.*\bduring {_DETERMINER}\b"
    rf"|\bduring {_DETERMINER}\b.*\b(?:did|was|were|had)\b"
    r"|期间",
    re.IGNORECASE,
)

_MONTHS: dict[str, int] = {}
for _number in range(1, 13):
    _MONTHS[calendar.month_name[_number].lower()] = _number
    _MONTHS[calendar.month_abbr[_number].lower()] = _number
_MONTHS["sept"] = 9
_MONTH = (
    r"(january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d{2})"
# Month names that are also common words: only taken when capitalised or next to a
# day or year ("in May", "May 3", "march 2023"; not "it may rain", "a long march").
_AMBIGUOUS = frozenset(
    {"may", "march", "mar", "jan", "dec", "sep", "oct", "nov", "aug", "jun", "jul", "apr", "feb"}
)

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("ymd", re.compile(rf"\b{_YEAR}[-/.](\d{{1,2}})[-/.](\d{{1,2}})\b")),
    ("mdy", re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?:,?\s+{_YEAR}\b)?", re.IGNORECASE)),
    ("dmy", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR}\b)?", re.IGNORECASE)),
    ("my", re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE)),
    ("zh_ymd", re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")),
    ("zh_ym", re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月(?![\d份]*\s*[日号])")),
    ("m", re.compile(rf"\b{_MONTH}(?=[\s,.?!;:]|$)", re.IGNORECASE)),
    ("y", re.compile(rf"\b(?:in|during|of|since)\s+{_YEAR}\b|{_YEAR}\s*年(?!\s*\d)", re.IGNORECASE)),
)

_RELATIVE: tuple[tuple[re.Pattern[str], int, int], ...] = (
    # (pattern, first day back, last day back) relative to the clock
    (re.compile(r"\byesterday\b|昨天", re.IGNORECASE), 1, 1),
    (re.compile(r"\blast week(?:end)?\b|\ba week ago\b|上周|上个?星期|上个?礼拜", re.IGNORECASE), 13, 1),
    (re.compile(r"\bthis week\b|本周|这周|这个星期", re.IGNORECASE), 6, 0),
    (re.compile(r"\blast month\b|\ba month ago\b|上个?月", re.IGNORECASE), 62, 1),
)


def asks_current_state(query: str, today: dt.date) -> bool:
    """True when the query asks how things are now (so the newer of two answers wins):
    it has a current-state word, and asks neither for a duration nor about a past
    occasion or a named period (``today`` resolves the period words)."""
    return (
        CURRENT_STATE.search(query) is not None
        and _DURATION.search(query) is None
        and _PAST_OCCASION.search(query) is None
        and not date_windows(query, today)
    )


def _month_number(name: str, matched: str, *, standalone: bool) -> int | None:
    key = name.lower().rstrip(".")
    number = _MONTHS.get(key)
    if number is None:
        return None
    if standalone and key in _AMBIGUOUS and not matched[:1].isupper():
        return None
    return number


def _latest_year(month: int, day: int, today: dt.date) -> int:
    """The year in which ``month``/``day`` last fell on or before ``today``."""
    year = today.year
    if (month, day) > (today.month, today.day):
        year -= 1
    return year


def _month_window(year: int, month: int) -> tuple[dt.date, dt.date]:
    return dt.date(year, month, 1), dt.date(year, month, calendar.monthrange(year, month)[1])


def date_windows(query: str, today: dt.date) -> list[tuple[dt.date, dt.date]]:
    """The periods ``query`` names, as inclusive (first, last) dates.

    A date without a year is the latest such date not after ``today``; a bare month
    is that month of the latest year it has been. Relative words count back from
    ``today``. Nothing recognised: an empty list.
    """
    out: list[tuple[dt.date, dt.date]] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(query):
            if any(match.start() < end and match.end() > start for start, end in taken):
                continue
            window = _window(kind, match, today)
            if window is not None:
                out.append(window)
                taken.append((match.start(), match.end()))
    for pattern, first_back, last_back in _RELATIVE:
        if pattern.search(query):
            out.append((today - dt.timedelta(days=first_back), today - dt.timedelta(days=last_back)))
    return out


def _window(kind: str, match: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date] | None:
    g = match.groups()
    try:
        if kind == "ymd":
            day = dt.date(int(g[0]), int(g[1]), int(g[2]))
            return day, day
        if kind in ("mdy", "dmy"):
            name, day_s, year_s = (g[0], g[1], g[2]) if kind == "mdy" else (g[1], g[0], g[2])
            month = _month_number(name, match.group(0), standalone=False)
            if month is None:
                return None
            year = int(year_s) if year_s else _latest_year(month, int(day_s), today)
            day = dt.date(year, month, int(day_s))
            return day, day
        if kind == "my":
            month = _month_number(g[0], match.group(0), standalone=False)
            return None if month is None else _month_window(int(g[1]), month)
        if kind == "zh_ymd":
            month, day_n = int(g[1]), int(g[2])
            year = int(g[0]) if g[0] else _latest_year(month, day_n, today)
            day = dt.date(year, month, day_n)
            return day, day
        if kind == "zh_ym":
            month = int(g[1])
            if not 1 <= month <= 12:
                return None
            year = int(g[0]) if g[0] else _latest_year(month, 1, today)
            return _month_window(year, month)
        if kind == "m":
            month = _month_number(g[0], match.group(0), standalone=True)
            return None if month is None else _month_window(_latest_year(month, 1, today), month)
        if kind == "y":
            year = int(g[0] or g[1])
            return dt.date(year, 1, 1), dt.date(year, 12, 31)
    except ValueError:  # 31 February and friends
        return None
    return None
