"""Which lines of a chunk state a fact's current value, and which only ask or plan.

A memory is a record over time: "Ferry owner: Priya" in October and "Ferry owner:
Sam" in November state one fact twice, and for a question about the current state
the later statement is the answer. Pure functions over chunk text, used by the
memdesk profile's ranking (``ranking.py``) only for current-state questions
(``temporal.asks_current_state``):

- **statements**: a line that sets a subject to a value, found by its structure, not
  by its words: "subject: value" (any script, full-width colon too) with a short
  subject and a short value, "X is now Y", "X switched from A to B", "X 改为 Y",
  "X 由 Y 接手". Two statements are about the same fact when their subjects share
  most of their words (CJK characters count as words). A colon after a label that
  starts three or more lines of one chunk is a speaker or a field of a form
  (a dialog "- Caroline: ..."), not a subject.
- **open lines**: a question ("Who owns Ferry long-term?", "…吗？"), a to-do
  ("- [ ] …", "TODO") or a plan ("we will decide…", "下周再定"). Such a line is not
  an answer, so a chunk whose lines that match the query are all open lines does
  not take the current-state bonus.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable

from memdesk.core.base import lexical
from memdesk.core.search import temporal

# List markers, numbering and check boxes before a line's text; markdown emphasis in it.
_LEAD = re.compile(r"^\s*(?:>\s*)*(?:[-*+•]\s+|\d{1,3}[.)、]\s*|#{1,6}\s+)?(?:\[[ xX]\]\s*)?")
_EMPHASIS = re.compile(r"\*\*|__|[`*]")
_TODO_BOX = re.compile(r"^\s*(?:[-*+]\s+)?\[ \]")
# A question: a question mark ending a clause, or a sentence-final question particle.
_QUESTION = re.compile(r"[?？](?:\s|$|[)）\]】」』\"'*_])|[?？]\s*$|[吗呢][?？。]?\s*$")
# Plans and things not decided yet. Structural markers (TODO/TBD) and the future or
# undecided forms of a sentence, English and Chinese; deliberately not the words of
# any particular question.
_PLAN = re.compile(
    r"\b(?:TODO|TBD|FIXME)\b|\b(?:will|shall|going to|plan(?:s|ned)? to|to be decided|"
    r"not (?:yet )?decided|undecided|pending|next week|next month)\b"
    r"|待定|待议|再定|再说|先挂着|计划|打算|将要|准备|下周|下个月|还没|尚未|未定",
    re.IGNORECASE,
)
# "X is now Y", "X are now Y", "X is Y now" (English): the subject before the verb.
_IS_NOW = re.compile(r"^(?P<subject>.{1,60}?)\s+(?:is|are)\s+now\s+(?P<value>.+)$", re.IGNORECASE)
# "X switched/changed/moved/went (from A) to B".
_SWITCHED = re.compile(
    r"^(?P<subject>.{1,60}?)\s+(?:has\s+|have\s+)?(?:switched|changed|moved|went|changes|switches|moves)"
    r"(?:\s+from\s+.+?)?\s+to\s+(?P<value>.+)$",
    re.IGNORECASE,
)
# "X (从 A) 改为/改成/换成/改到/变成 B" (Chinese): the subject before the change.
_ZH_CHANGED = re.compile(
    r"^(?P<subject>[^，。；：:]{1,20}?)(?:从.{1,20}?)?(?:改为|改成|换成|改到|变成|变为)(?P<value>.+)$"
)
# "X 由 Y 接手/负责/接任" (Chinese): Y takes X over.
_ZH_TAKEN = re.compile(r"^(?P<subject>[^，。；：:]{1,20}?)由(?P<value>.{1,20}?)(?:接手|负责|接任|接管)")
# "subject: value" with a short subject.
_COLON = re.compile(r"^(?P<subject>[^:：]{1,40}?)\s*[:：]\s*(?P<value>\S.*)$")
# Where a value's first clause ends.
_CLAUSE_END = re.compile(r"[,;.!。，；！(（]\s|[,;!。，；！(（]|\.$|\s[—–-]\s")
# A value longer than this many words (CJK characters count 1/2) is a sentence, not a value.
MAX_VALUE_WORDS = 8
MAX_SUBJECT_WORDS = 5
# An open line is an item of a list or a note's sentence: a longer line is a paragraph of
# prose ("…the station will close in 2030…"), whose future tense asks nothing. On XQuAD-en
# dev (one-line Wikipedia paragraphs) plan words withheld recency from passages of its
# current-state questions and cost 0.0021 nDCG@10 until open lines were limited to this.
MAX_OPEN_WORDS = 30
# A label starting this many lines of one chunk is a speaker or a form's field.
LABEL_REPEATS = 3
# Two subjects name the same fact when they share this share of all their words (Jaccard).
SAME_SUBJECT = 0.5


@dataclasses.dataclass(frozen=True)
class Statement:
    """One line that sets ``subject`` to ``value``; ``line`` is its note line (1-based)."""

    line: int
    subject: frozenset[str]
    value: str
    text: str  # the line as written, stripped of list markers and emphasis
    words: frozenset[str] = frozenset()  # the value's words


# A quoted line in an explanation is cut to this many characters.
QUOTE_CHARS = 100


def _clean(line: str) -> str:
    return _EMPHASIS.sub("", _LEAD.sub("", line, count=1)).strip()


def quote(text: str) -> str:
    """A line as an explanation quotes it: cut to ``QUOTE_CHARS`` with an ellipsis."""
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1].rstrip() + "…"


def _words(text: str) -> frozenset[str]:
    """Content words, crudely stemmed (``owner``/``owns`` → ``own``), CJK characters and bigrams."""
    out = set()
    for token in lexical.mmr_tokens(text):
        if token in lexical.STOP_WORDS:
            continue
        out.add(_stem(token))
    return frozenset(out)


def _stem(token: str) -> str:
    if token.isascii() and token.isalpha() and len(token) >= 4 and not token.endswith("ss"):
        for suffix in ("ers", "ing", "er", "ed", "es", "s"):
            if token.endswith(suffix) and len(token) - len(suffix) >= 3:
                return token[: -len(suffix)]
    return token


def _size(text: str) -> float:
    """A value's length in words, a CJK character counting as half a word."""
    cjk = sum(1 for ch in text if lexical.is_cjk(ch))
    return len(re.findall(r"[^\W\d_]+|\d+", re.sub(f"[{lexical._CJK_CLASS}]", " ", text))) + cjk / 2


# A heading names a topic and a task item an action ("## Final review — vector store ✅",
# "- [x] Curate MEMORY.md (deploy day, auth)"): neither tells how a subject stood.
_NOT_A_STATE = re.compile(r"^\s*(?:#|(?:[-*+]\s+)?\[[ xX]\])")
# Where a line's clauses end (what an explanation quotes of a long line).
_CLAUSES = re.compile(r"(?<=[.;!?。；！？])\s+|[;；]\s*|,\s+(?=also\b|and\b|but\b|so\b)")
# "Thursday → Tuesday → Wednesday": a value told with its history; the last is the current one.
_ARROW = re.compile(r"\s*(?:→|->|=>|⇒|⟶)\s*")


def _first_clause(value: str) -> str:
    match = _CLAUSE_END.search(value)
    clause = (value[: match.start()] if match else value).strip()
    return _ARROW.split(clause)[-1].strip()


def is_open(line: str) -> bool:
    """True when ``line`` asks or plans rather than states: a question, a to-do, a plan."""
    if _TODO_BOX.match(line):
        return True
    text = _EMPHASIS.sub("", line)
    return _QUESTION.search(text) is not None or _PLAN.search(text) is not None


def _statement(cleaned: str, labels: frozenset[str]) -> tuple[str, str] | None:
    """(subject, value) of one cleaned line, or None when it states nothing."""
    colon = _COLON.match(cleaned)
    body = cleaned
    if colon is not None and colon["subject"].strip().lower() in labels:
        # "- Caroline: my job is now remote": the speaker is not the subject; what they say may be.
        body = colon["value"]
        colon = None
    for pattern in (_IS_NOW, _SWITCHED, _ZH_CHANGED, _ZH_TAKEN):
        match = pattern.match(body)
        if match is not None:
            subject = match["subject"].strip()
            # "Mara: offline mode is now …": the subject is the clause's own, after any label.
            if ":" in subject or "：" in subject:
                subject = re.split(r"[:：]", subject)[-1].strip()
            return subject, _first_clause(match["value"])
    if colon is None:
        return None
    return colon["subject"].strip(), _first_clause(colon["value"])


@functools.lru_cache(maxsize=4096)
def scan(text: str, start_line: int) -> tuple[tuple[Statement, ...], frozenset[int]]:
    """The statements of a chunk and the note lines that are open (question, to-do, plan)."""
    raw = text.split("\n")
    cleaned = [_clean(line) for line in raw]
    counts: dict[str, int] = {}
    for line in cleaned:
        colon = _COLON.match(line)
        if colon is not None:
            key = colon["subject"].strip().lower()
            counts[key] = counts.get(key, 0) + 1
    labels = frozenset(k for k, n in counts.items() if n >= LABEL_REPEATS)
    statements: list[Statement] = []
    open_lines: set[int] = set()
    for k, (line, clean) in enumerate(zip(raw, cleaned, strict=True)):
        number = start_line + k
        if not clean:
            continue
        if _size(clean) <= MAX_OPEN_WORDS and is_open(line):
            open_lines.add(number)
            continue
        found = _statement(clean, labels)
        if found is None:
            continue
        subject, value = found
        subject_words = _words(subject)
        if (
            not subject_words
            or not value
            or _size(subject) > MAX_SUBJECT_WORDS
            or _size(value) > MAX_VALUE_WORDS
        ):
            continue
        value_words = _words(temporal.CURRENT_STATE.sub(" ", value))
        statements.append(Statement(number, subject_words, _normal_value(value), quote(clean), value_words))
    return tuple(statements), frozenset(open_lines)


def _normal_value(value: str) -> str:
    return " ".join(lexical.normalize(value).replace("*", "").split()).strip(" .。")


def query_words(query: str) -> frozenset[str]:
    """The query's content words, as ``Statement.subject`` holds them, without the words
    that ask for the current state ("now", "现在"): they name no subject."""
    return _words(temporal.CURRENT_STATE.sub(" ", query))


def matching_lines(text: str, start_line: int, words: frozenset[str]) -> list[int]:
    """The note lines of a chunk that share the most of ``words`` (at least one), in order."""
    best = 0
    found: list[int] = []
    for k, line in enumerate(text.split("\n")):
        shared = len(_words(line) & words)
        if shared == 0 or shared < best:
            continue
        if shared > best:
            best, found = shared, []
        found.append(start_line + k)
    return found


def same_subject(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two statements' subjects name the same fact: they share at least half of their
    words together ("Ferry owner" and "Ferry"; not "Ferry batch commits" and "Ferry owner")."""
    if not a or not b:
        return False
    return len(a & b) >= SAME_SUBJECT * len(a | b)


def about(statements: Iterable[Statement], words: frozenset[str]) -> list[Statement]:
    """The statements whose subject the query names: at least half of its words are the
    query's ("Ferry owner" for "who owns Ferry now", not "Ferry batch commits"), and the
    statement shares two words with the query ("Harbor: 155-query golden set" does not
    answer "what is the Chinese recall in Harbor now")."""
    return [
        s
        for s in statements
        if 2 * len(s.subject & words) >= len(s.subject) and len((s.subject | s.words) & words) >= 2
    ]


def _has_cjk(text: str) -> bool:
    return any(lexical.is_cjk(ch) for ch in text)


def changed(old: Statement, new: Statement) -> bool:
    """The two values differ. Values in different scripts are not compared: "Chen Yuqing"
    and "陈雨晴" may be one person, and a restatement in another language is no change."""
    if _has_cjk(old.value) != _has_cjk(new.value):
        return False
    # Compared as words: "now Wednesday 📅" and "Wednesday." are one value.
    return old.words != new.words


def older_statement(text: str, start_line: int, new: Statement) -> tuple[int, str] | None:
    """The line of an older chunk that ``new`` supersedes, as (note line, text), or None.

    An explicit statement of the same subject with another value first ("Ferry owner:
    Priya"); failing that, any line that names every word of the subject but not the
    new value ("nobody owns Ferry yet", "Ferry 还是没人负责"): the older state, told in
    a sentence. A line that already names the new value is no older state.
    """
    statements, _ = scan(text, start_line)
    same = [old for old in statements if same_subject(old.subject, new.subject)]
    for old in same:
        if changed(old, new):
            return old.line, old.text
    if same or len(new.subject) < 2:
        # Stated before with the same value (or in another script): a restatement. A
        # one-word subject names a thing, not a fact about it: every line naming the
        # thing would count as its older state.
        return None
    value = new.words
    for k, line in enumerate(text.split("\n")):
        if _NOT_A_STATE.match(line):
            continue
        words = _words(line)
        if new.subject <= words and not (value and value <= words):
            # Quote the clause that names the subject: in a long line it may come last.
            clauses = [c for c in _CLAUSES.split(_clean(line)) if new.subject <= _words(c)]
            return start_line + k, quote(clauses[0].strip() if clauses else _clean(line))
    return None
