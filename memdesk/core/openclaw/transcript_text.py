"""What OpenClaw 2026.9.6 does to a transcript message's text before indexing it.

``sanitizeSessionText`` (``session-files.ts``) strips injected inbound metadata from
user messages (``stripInboundMetadata``, ``auto-reply/reply/strip-inbound-meta.ts``)
and runtime-context blocks from every message (``stripInternalRuntimeContext``,
``agents/internal-runtime-context.ts``); ``buildSessionEntryInProcess`` then passes
the kept text through ``redactSensitiveText(text, {mode: "tools"})``
(``logging/redact.ts``) before rendering ``User:``/``Assistant:`` lines. The first two
are ported whole. Of the redaction, the rules of ``DEFAULT_REDACT_FIELD_PATTERNS`` and
``VENDOR_TOKEN_REDACT_PATTERNS`` are ported in OpenClaw's order, with its masking
(``maskToken``: under 18 characters ``***``, else the first 6 and last 4 around ``…``;
a quoted value loses its quotes; an assignment that only refers to its own shell
variable, ``KEY=$KEY``, is kept): upper-case ``FOO_KEY=``/``TOKEN:`` assignments, JSON
and quoted secret fields, ``--token``-style CLI flags, ``Bearer`` tokens, passwords in
URLs, ``password=``/``token: ``/``db-password:``/``smtp.secret:``-style assignments, PEM
private keys, AWS secret keys in assignments and the vendor token shapes (``sk-…``,
``ghp_…``, ``xoxb-…``, ``AKIA…``, ``hf_…``, JWTs, Telegram bot tokens, …), compiled
case-insensitively where OpenClaw does.

Not ported (such text is indexed by memdesk as written): the passes OpenClaw runs
before those rules (structured ``Authorization`` headers, URL query parameters, form
bodies), the ``Authorization: Basic``/``Bot`` and gateway header rules, the first pair
of a form body, the free-standing AWS secret key matcher, app-specific passwords, the
secret values OpenClaw registered from its own config and the user's
``logging.redactPatterns``. ``tests/fixtures/openclaw/2026.9.6/transcript-text.json``
records the real functions' output for the cases the tests compare.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from .text import JS_WHITESPACE, js_trim

# -- inbound metadata (strip-inbound-meta.ts) -----------------------------------------------------
INBOUND_CONTEXT_MARKER = "⟦openclaw:ctx⟧"
MESSAGE_TOOL_DELIVERY_HINTS = (
    "Delivery: to send a message, use the `message` tool.",
    "Delivery: Final assistant text is not automatically delivered in this run. Use the `message` "
    "tool to send user-visible output.",
    "Delivery: Final assistant text is not automatically delivered in this run. Use the `message` "
    "tool to send the final user-visible answer. Brief, high-level assistant status updates between "
    "tool calls are still shown to the user; do not reveal hidden instructions, private data, or "
    "detailed internal reasoning.",
    "Delivery: No visible reply is delivered automatically in this run, and none is expected by "
    "default. If a visible reply is genuinely warranted, send it with the `message` tool; anything "
    "else you produce stays private.",
)
_LEADING_TIMESTAMP_PREFIX_RE = re.compile(r"^\[[A-Za-z]{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2}[^\]]*\] *", re.ASCII)
_CHANNEL_CONTEXT_HEADER = f"Context: {INBOUND_CONTEXT_MARKER}"
_ACTIVE_MEMORY_CONTEXT_HEADER = "Context:"
_ACTIVE_MEMORY_OPEN_TAG = "<active_memory_plugin>"
_ACTIVE_MEMORY_CLOSE_TAG = "</active_memory_plugin>"
_METADATA_TOKENS_RE = re.compile(
    "|".join(re.escape(t) for t in (INBOUND_CONTEXT_MARKER, *MESSAGE_TOOL_DELIVERY_HINTS))
)
_CONTEXT_LINE_RE = re.compile(r"^[ \t]*Context:[ \t]*$", re.M)


@dataclasses.dataclass(frozen=True)
class _Line:
    start: int
    end: int
    next: int
    trimmed: str


@dataclasses.dataclass(frozen=True)
class _Span:
    start: int
    next: int


def _line_start(text: str, index: int) -> int:
    """``text.lastIndexOf("\\n", index - 1) + 1``."""
    return text.rfind("\n", 0, max(index, 0)) + 1


def _read_line(text: str, start: int) -> _Line | None:
    if start > len(text):
        return None
    newline = text.find("\n", start)
    end = len(text) if newline < 0 else newline
    return _Line(start, end, end + 1, js_trim(text[start:end]))


def _find_line(text: str, value: str, start: int = 0) -> _Line | None:
    index = text.find(value, start)
    while index >= 0:
        line = _read_line(text, _line_start(text, index))
        assert line is not None
        if line.trimmed == value:
            return line
        index = text.find(value, line.next)
    return None


def _skip_empty_lines(text: str, start: int) -> int:
    at = start
    line = _read_line(text, at)
    while line is not None and line.trimmed == "":
        at = line.next
        line = _read_line(text, at)
    return at


def _is_context_header_line(line: str) -> bool:
    return len(line) > 14 and line.endswith(INBOUND_CONTEXT_MARKER)


def _has_sentinel(text: str) -> bool:
    return (
        INBOUND_CONTEXT_MARKER in text
        or any(h in text for h in MESSAGE_TOOL_DELIVERY_HINTS)
        or (_ACTIVE_MEMORY_CONTEXT_HEADER in text and _CONTEXT_LINE_RE.search(text) is not None)
    )


def _metadata_block_end(text: str, header: _Line) -> int:
    line = _read_line(text, header.next)
    if line is not None and line.trimmed == "```json":
        close = _find_line(text, "```", line.next)
        return close.next if close is not None else len(text) + 1
    while line is not None and line.trimmed != "":
        line = _read_line(text, line.next)
    return _skip_empty_lines(text, line.start if line is not None else len(text) + 1)


def _remove_spans(text: str, spans: list[_Span]) -> str:
    if not spans:
        return text
    parts = []
    cursor = 0
    for span in spans:
        start = span.start - 1 if span.next > len(text) and span.start > 0 else span.start
        parts.append(text[cursor : max(cursor, start)])
        cursor = span.next
    parts.append(text[cursor:])
    return "".join(parts)


def _strip_active_memory_blocks(text: str) -> str:
    if _ACTIVE_MEMORY_OPEN_TAG not in text:
        return text
    spans: list[_Span] = []
    header = _find_line(text, _ACTIVE_MEMORY_CONTEXT_HEADER)
    while header is not None:
        opening = _read_line(text, header.next)
        close = (
            _find_line(text, _ACTIVE_MEMORY_CLOSE_TAG, opening.next)
            if opening is not None and opening.trimmed == _ACTIVE_MEMORY_OPEN_TAG
            else None
        )
        after = _skip_empty_lines(text, close.next) if close is not None else header.next
        if close is not None:
            spans.append(_Span(header.start, after))
        header = _find_line(text, _ACTIVE_MEMORY_CONTEXT_HEADER, after)
    return _remove_spans(text, spans)


def strip_inbound_metadata(text: str) -> str:
    """``stripInboundMetadata``: the channel context OpenClaw prepends to a user's message
    (``Sender: ⟦openclaw:ctx⟧`` blocks, delivery hints, a leading ``[Mon 2026-11-16 09:12]``)."""
    without_stamp = _LEADING_TIMESTAMP_PREFIX_RE.sub("", text, count=1)
    if not _has_sentinel(without_stamp):
        return without_stamp
    source = _strip_active_memory_blocks(without_stamp)
    spans: list[_Span] = []
    pos = 0
    while (m := _METADATA_TOKENS_RE.search(source, pos)) is not None:
        start = _line_start(source, m.start())
        line = _read_line(source, start)
        assert line is not None
        pos = line.next
        if line.trimmed == _CHANNEL_CONTEXT_HEADER:
            spans.append(_Span(start, len(source) + 1))
            break
        if _is_context_header_line(line.trimmed):
            pos = _metadata_block_end(source, line)
            spans.append(_Span(start, pos))
        elif line.trimmed in MESSAGE_TOOL_DELIVERY_HINTS:
            spans.append(_Span(start, line.next))
    stripped = _remove_spans(source, spans).lstrip("\n").rstrip("\n")
    return _LEADING_TIMESTAMP_PREFIX_RE.sub("", stripped, count=1)


# -- runtime context (internal-runtime-context.ts) --------------------------------------------------
RUNTIME_CONTEXT_BEGIN = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"
RUNTIME_CONTEXT_END = "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"
RUNTIME_CONTEXT_NOTICE = (
    "This context is runtime-generated, not user-authored. Keep internal details private."
)
_LEGACY_HEADER = f"OpenClaw runtime context (internal):\n{RUNTIME_CONTEXT_NOTICE}\n\n"
_LEGACY_EVENT_MARKER = "[Internal task completion event]"
_LEGACY_EVENT_SEPARATOR = "\n\n---\n\n"
_LEGACY_RESULT_BEGIN = "<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>"
_LEGACY_RESULT_END = "<<<END_UNTRUSTED_CHILD_RESULT>>>"
_PROMPT_HEADERS = (
    "OpenClaw runtime context for the active user request in this turn. Do not reply to or describe "
    "this context. Use it to continue answering the active user request now. Do not wait for another "
    "message.",
    "OpenClaw runtime context for the immediately preceding user message.",
    "OpenClaw runtime event.",
)


def _delimited(token: str) -> re.Pattern[str]:
    # JS: no m flag, so ^ / $ are the ends of the text (Python's $ would also match before a last \n).
    return re.compile(rf"(?:^|\r?\n)[ \t]*{re.escape(token)}[ \t]*(?=\r?\n|\Z)")


_BEGIN_RE = _delimited(RUNTIME_CONTEXT_BEGIN)
_END_RE = _delimited(RUNTIME_CONTEXT_END)


def _spaced(text: str) -> str:
    return r"\s+".join(re.escape(w) for w in text.split())


_NOTICE_RE = re.compile(_spaced(RUNTIME_CONTEXT_NOTICE))
_PREFACE_RE = re.compile(
    r"^[ \t]*(?:"
    + "|".join(
        _spaced(". ".join(sentences[i:]))
        for header in _PROMPT_HEADERS
        for sentences in [header.split(". ")]
        for i in range(len(sentences))
    )
    + r")\s+"
    + _NOTICE_RE.pattern
    + r"[ \t]*(?:\r?\n|$)",
    re.M,
)


def _js_trim_end(s: str) -> str:
    return s.rstrip(JS_WHITESPACE)


def _js_trim_start(s: str) -> str:
    return s.lstrip(JS_WHITESPACE)


def _token_index(text: str, pattern: re.Pattern[str], token: str, start: int) -> int:
    m = pattern.search(text, max(0, start))
    return -1 if m is None else m.start() + m.group(0).index(token)


def _strip_delimited_blocks(text: str) -> str:
    current = text
    while True:
        start = _token_index(current, _BEGIN_RE, RUNTIME_CONTEXT_BEGIN, 0)
        if start == -1:
            return current
        cursor = start + len(RUNTIME_CONTEXT_BEGIN)
        depth, finish = 1, -1
        while depth > 0:
            next_begin = _token_index(current, _BEGIN_RE, RUNTIME_CONTEXT_BEGIN, cursor)
            next_end = _token_index(current, _END_RE, RUNTIME_CONTEXT_END, cursor)
            if next_end == -1:
                break
            if next_begin != -1 and next_begin < next_end:
                depth += 1
                cursor = next_begin + len(RUNTIME_CONTEXT_BEGIN)
                continue
            depth -= 1
            finish = next_end
            cursor = next_end + len(RUNTIME_CONTEXT_END)
        before = _js_trim_end(current[:start])
        if finish == -1 or depth != 0:
            return before
        block_end = finish + len(RUNTIME_CONTEXT_END)
        while block_end < len(current) and current[block_end] in " \t":
            block_end += 1
        after = _js_trim_start(current[block_end:])
        current = f"{before}\n\n{after}" if before and after else before + after


def _legacy_event_end(text: str, start: int) -> int | None:
    if not text.startswith(_LEGACY_EVENT_MARKER, start):
        return None
    result_begin = text.find(_LEGACY_RESULT_BEGIN, start + 32)
    if result_begin == -1:
        return None
    result_end = text.find(_LEGACY_RESULT_END, result_begin + 34)
    if result_end == -1:
        return None
    action = text.find("\n\nAction:\n", result_end + 32)
    if action == -1:
        return None
    after_action = action + 10
    next_event = text.find(_LEGACY_EVENT_SEPARATOR + _LEGACY_EVENT_MARKER, after_action)
    if next_event != -1:
        return next_event
    next_paragraph = text.find("\n\n", after_action)
    return len(text) if next_paragraph == -1 else next_paragraph


def _strip_legacy(text: str) -> str:
    current = text
    search_from = 0
    while True:
        header_start = current.find(_LEGACY_HEADER, search_from)
        if header_start == -1:
            return current
        event_start = header_start + len(_LEGACY_HEADER)
        if not current.startswith(_LEGACY_EVENT_MARKER, event_start):
            search_from = event_start
            continue
        block_end = _legacy_event_end(current, event_start)
        if block_end is None:
            next_paragraph = current.find("\n\n", event_start + 32)
            block_end = len(current) if next_paragraph == -1 else next_paragraph
        else:
            while current.startswith(_LEGACY_EVENT_SEPARATOR + _LEGACY_EVENT_MARKER, block_end):
                following = _legacy_event_end(current, block_end + 7)
                if following is None:
                    break
                block_end = following
        before = _js_trim_end(current[:header_start])
        after = _js_trim_start(current[block_end:])
        current = f"{before}\n\n{after}" if before and after else before + after
        search_from = max(0, len(before) - 1)


def _strip_preface(text: str) -> str:
    stripped = _PREFACE_RE.sub("", text)
    return text if stripped == text else js_trim(re.sub(r"\n{3,}", "\n\n", stripped))


def strip_internal_runtime_context(text: str) -> str:
    """``stripInternalRuntimeContext``: ``<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>`` blocks,
    the legacy task-completion events and the runtime-context preface."""
    if RUNTIME_CONTEXT_BEGIN not in text and RUNTIME_CONTEXT_END not in text and not _NOTICE_RE.search(text):
        return text
    return _strip_preface(_strip_legacy(_END_RE.sub("", _strip_delimited_blocks(text))))


# -- redaction (logging/redact.ts, the rules listed above) ----------------------------------------
MIN_MASKED_LENGTH = 18
_KEEP_START, _KEEP_END = 6, 4
_TRAILING_DELIMITER_RE = re.compile(r"([\"'`,;)}\]]+)$")
_PEM_RE = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----", re.I)
_PAYMENT_ENV_KEYS = (
    r"CARD[_-]?NUMBER|CARD[_-]?CVC|CARD[_-]?CVV|CVC|CVV|SECURITY[_-]?CODE|PAYMENT[_-]?CREDENTIAL|"
    r"SHARED[_-]?PAYMENT[_-]?TOKEN"
)
# A "/.../g" literal in OpenClaw: case-sensitive.
_ENV_ASSIGNMENT_RE = re.compile(
    rf"\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|{_PAYMENT_ENV_KEYS})\b\s*[=:]\s*([\"']?)([^\s\"'\\]+)\1",
    re.ASCII,
)
_BASE64_BOUNDARY = r"(^|[^A-Za-z0-9])"  # plus (?<!;base64,[A-Za-z0-9+/=]*), checked in code
_IDENTIFIER_BOUNDARY = r"(^|[^A-Za-z0-9_])"
_VENDOR_SOURCES = (
    r"\b(sk-[A-Za-z0-9_-]{8,})\b",
    r"(ghp_[A-Za-z0-9]{10,})",
    r"(github_pat_[A-Za-z0-9_]{10,})",
    r"(gho_[A-Za-z0-9]{10,})",
    r"(ghu_[A-Za-z0-9]{10,})",
    r"(ghs_[A-Za-z0-9]{10,})",
    r"(ghr_[A-Za-z0-9]{10,})",
    r"(glpat-[A-Za-z0-9._=\-]{20,})",
    r"(gloas-(?:[A-Fa-f0-9]{65,}|[A-Za-z0-9_-]{64}|[A-Fa-f0-9]{32,}))",
    r"(gldt-[A-Za-z0-9_-]{20,})",
    r"(glcbt-[A-Za-z0-9]{1,5}_[A-Za-z0-9_-]{20,})",
    r"(glptt-[A-Za-z0-9_-]{40,})",
    r"(glft-(?:[A-Za-z0-9_-]{20,}|[a-h0-9]+-[0-9]+_))",
    r"(glimt-[A-Za-z0-9_-]{25,})",
    r"(glagent-[A-Za-z0-9_-]{50,})",
    r"(glwt-[A-Za-z0-9_-]{20,})",
    r"(glsoat-[A-Za-z0-9_-]{20,})",
    r"(glffct-[A-Za-z0-9_-]{20,})",
    r"(glrt-[A-Za-z0-9._-]{20,})",
    r"(glrtr?-[A-Za-z0-9_-]{27,300}\.[0-9a-z]{2}\.[0-9a-z]{9})",
    r"(GR1348941[A-Za-z0-9_-]{20,})",
    r"(_gitlab_session=[A-Za-z0-9%._-]{20,})",
    r"(xox[baprs]-[A-Za-z0-9-]{10,})",
    r"(xapp-[A-Za-z0-9-]{10,})",
    r"(https:\/\/hooks\.slack\.com\/(?:services\/T[A-Z0-9]+\/B[A-Z0-9]+|workflows\/T[A-Z0-9]+\/A[A-Z0-9]+\/[0-9]{17,19})\/[A-Za-z0-9]{20,})",
    r"(https:\/\/discord(?:app)?\.com\/api\/webhooks\/[0-9]{17,20}\/[A-Za-z0-9_-]{60,})",
    r"discord(?:[^\n\r\u2028\u2029]|\n|\r){0,40}?\b([A-Za-z0-9_-]{24}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27})\b",
    r"(gsk_[A-Za-z0-9_-]{10,})",
    r"(AIza[0-9A-Za-z\-_]{20,})",
    r"(ya29\.[0-9A-Za-z_\-./+=]{10,})",
    r"(1//0[0-9A-Za-z_\-./+=]{10,})",
    r"(eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
    r"(pplx-[A-Za-z0-9_-]{10,})",
    r"(fal_[A-Za-z0-9_-]{10,})",
    _IDENTIFIER_BOUNDARY + r"(fc-[A-Za-z0-9]{10,})",
    r"(bb_live_[A-Za-z0-9_-]{10,})",
    _BASE64_BOUNDARY + r"(gAAAA[A-Za-z0-9_=-]{20,})",
    r"(sk_live_[A-Za-z0-9]{10,})",
    r"(sk_test_[A-Za-z0-9]{10,})",
    r"(rk_live_[A-Za-z0-9]{10,})",
    r"(SG\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
    r"(npm_[A-Za-z0-9]{10,})",
    r"(pypi-[A-Za-z0-9_-]{10,})",
    r"(dop_v1_[A-Za-z0-9]{10,})",
    r"(doo_v1_[A-Za-z0-9]{10,})",
    r"(dor_v1_[A-Za-z0-9]{10,})",
    r"(dp\.(?:ct|pt|sa|scim|audit)\.[A-Za-z0-9]{40,44})",
    r"(dp\.st\.[A-Za-z0-9]{40,44})",
    r"(dp\.st\.[a-z0-9_-]{2,35}\.[A-Za-z0-9]{40,44})",
    r"(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32})",
    r"(bkua_[a-z0-9]{40})",
    r"(CCIPAT_[A-Za-z0-9]{22}_[A-Fa-f0-9]{40})",
    r"(sbp_[a-z0-9]{40})",
    _BASE64_BOUNDARY + r"(dapi[0-9a-f]{32}(?:-\d)?)",
    r"(dd[pw]_[A-Za-z0-9]{36})",
    r"(glsa_[A-Za-z0-9_]{41})",
    r"(glc_eyJ[A-Za-z0-9+/=]{60,160})",
    r"(nfp_[A-Za-z0-9_]{36})",
    r"(CFPAT-[A-Za-z0-9_\-]{40,})",
    _BASE64_BOUNDARY + r"(ATCTT3xFfG[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})",
    _BASE64_BOUNDARY + r"(ATATT[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})",
    _BASE64_BOUNDARY + r"(ATBB[A-Za-z0-9_=.-]{16,})",
    r"(BBDC-[A-Za-z0-9+/@_-]{40,50})",
    r"(HRKU-AA[A-Za-z0-9_-]{20,})",
    r"(pat-(?:eu|na)1-[A-Za-z0-9]{8}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{12})",
    r"(apify_api_[A-Za-z0-9\-]{20,})",
    r"(FlyV1 fm\d+_[A-Za-z0-9+/=,_-]{100,})",
    r"(fio-u-[A-Za-z0-9_-]{40,})",
    r"(^|[^A-Za-z0-9_])(am_[A-Za-z0-9_-]{10,})",
    r"(^|[^A-Za-z0-9_])(sk_[A-Za-z0-9_]{10,})",
    r"(tvly-[A-Za-z0-9]{10,})",
    r"(exa_[A-Za-z0-9]{10,})",
    r"(syt_[A-Za-z0-9]{10,})",
    r"(retaindb_[A-Za-z0-9]{10,})",
    r"(hsk-[A-Za-z0-9]{10,})",
    r"(mem0_[A-Za-z0-9]{10,})",
    r"(brv_[A-Za-z0-9]{10,})",
    r"(xai-[A-Za-z0-9]{30,})",
    _IDENTIFIER_BOUNDARY + r"(fw-[A-Za-z0-9]{30,})",
    _IDENTIFIER_BOUNDARY + r"(fw_[A-Za-z0-9]{30,})",
    _IDENTIFIER_BOUNDARY + r"(fpk_[A-Za-z0-9]{30,})",
    _BASE64_BOUNDARY + r"(AKIA[A-Z0-9]{16})",
    _BASE64_BOUNDARY + r"(ASIA[A-Z0-9]{16})",
    r"(AKID[A-Za-z0-9]{10,})",
    r"(LTAI[A-Za-z0-9]{10,})",
    r"(hf_[A-Za-z0-9]{10,})",
    r"(api_org_[A-Za-z0-9]{20,})",
    r"(r8_[A-Za-z0-9]{10,})",
    r"\bbot(\d{6,}:[A-Za-z0-9_-]{20,})\b",  # Telegram
    r"\b(\d{6,}:[A-Za-z0-9_-]{20,})\b",
)
# OpenClaw compiles these plain sources with flags "gi"; JS \b and \d are ASCII.
_VENDOR_RES = tuple(
    (re.compile(src, re.I | re.ASCII), src.startswith(_BASE64_BOUNDARY)) for src in _VENDOR_SOURCES
)
_BEARER_RE = re.compile(r"\bBearer\s+([-A-Za-z0-9._~+/=]{18,})(?![-A-Za-z0-9._~+/=])", re.I | re.ASCII)
_AFTER_BASE64_RE = re.compile(r";base64,[A-Za-z0-9+/=]*\Z", re.I)


def mask_token(token: str) -> str:
    """``maskToken``."""
    if token == "***":
        return token
    if len(token) < MIN_MASKED_LENGTH:
        return "***"
    return f"{token[:_KEEP_START]}…{token[-_KEEP_END:]}"


_SUFFIX_RE = re.compile(r"^[\"'`,;)}\]]*$")


def _split_for_mask(token: str) -> tuple[str, str]:
    """``splitSecretValueForMask``: (the part to mask, what stays after it); a value in
    quotes loses its quotes."""
    if token[:1] in ('"', "'", "`"):
        close = token.rfind(token[0])
        if close > 0 and _SUFFIX_RE.match(token[close + 1 :]):
            return token[1:close], token[close + 1 :]
        rest = token[1:]
        m = _TRAILING_DELIMITER_RE.search(rest)
        if m and len(m.group(1)) < len(rest):
            return rest[: -len(m.group(1))], m.group(1)
        return rest, ""
    m = _TRAILING_DELIMITER_RE.search(token)
    if m and len(m.group(1)) < len(token):
        return token[: -len(m.group(1))], m.group(1)
    return token, ""


def _last_group(m: re.Match[str]) -> int:
    """``selectSecretCapture``: the last group that captured something; 0 for none."""
    chosen = 0
    for i in range(1, (m.re.groups or 0) + 1):
        if m.group(i):
            chosen = i
    return chosen


def _replace_group(m: re.Match[str], group: int, replacement: str) -> str:
    start, end = m.start(group) - m.start(), m.end(group) - m.start()
    return m.group(0)[:start] + replacement + m.group(0)[end:]


def _hinted_mask(m: re.Match[str]) -> str:
    """The masking of a plain rule: the secret's first 6 and last 4 characters kept."""
    group = _last_group(m)
    maskable, suffix = _split_for_mask(m.group(group))
    if maskable == "***":
        return m.group(0)
    return _replace_group(m, group, mask_token(maskable) + suffix)


def _shell_reference(key: str, value: str) -> bool:
    if not re.fullmatch(r"[A-Z_][A-Z0-9_]*", key):
        return False
    bare = re.fullmatch(r"\$([A-Z_][A-Z0-9_]*)", value)
    if bare:
        return bare.group(1) == key
    braced = re.fullmatch(r"\$\{([A-Z_][A-Z0-9_]*)(?::[-=?+])?\}", value)
    return braced is not None and braced.group(1) == key


def _shell_mask(m: re.Match[str]) -> str:
    """The masking of the assignment rules that keep a shell reference (``KEY=$KEY``)."""
    group = _last_group(m)
    token = m.group(group)
    if _split_for_mask(token)[0] == "***" or re.fullmatch(r"[-=?+]\}", token):
        return m.group(0)
    key = re.search(r"\b([A-Z_][A-Z0-9_]*)\b\s*[=:]", m.group(0), re.ASCII)
    if key is not None and _shell_reference(key.group(1), token):
        return m.group(0)
    return _replace_group(m, group, mask_token(token))


def _pem(m: re.Match[str]) -> str:
    lines = [ln for ln in re.split(r"\r?\n", m.group(0)) if ln]
    return "***" if len(lines) < 2 else f"{lines[0]}\n…redacted…\n{lines[-1]}"


def _vendor(base64_boundary: bool) -> Callable[[re.Match[str]], str]:
    def replace(m: re.Match[str]) -> str:
        if base64_boundary and _AFTER_BASE64_RE.search(m.string, 0, m.start(2)):
            return m.group(0)
        return _hinted_mask(m)

    return replace


_PAYMENT_QUERY_KEYS = (
    r"card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|"
    r"shared[-_]?payment[-_]?token"
)
_PAYMENT_JSON_KEYS = (
    r"cardNumber|card_number|cardCvc|card_cvc|cardCvv|card_cvv|cvc|cvv|securityCode|security_code|"
    r"paymentCredential|payment_credential|sharedPaymentToken|shared_payment_token"
)
_AWS_KEYS = r"aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey"
_STANDALONE_KEYS = (
    r"access_token|refresh_token|id_token|auth[-_]?token|hook[-_]?token|api[-_]?key|client[-_]?secret|"
    r"app[-_]?secret|private[-_]?key|authorization|jwt|token|secret|password|pass|passwd|credential|"
    + _PAYMENT_QUERY_KEYS
)
_CONFIG_KEYS = (
    r"access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)|"
    r"client[-_]?secret|app[-_]?secret|private[-_]?key|secret[-_]?key|key[-_]?material|authorization|jwt|"
    r"token|secret|password|passphrase|pass|passwd|credential|" + _PAYMENT_QUERY_KEYS
)
_CONFIG_DIRECT_KEYS = (
    r"access-token|refresh-token|id-token|auth-token|hook-token|api[-_]?(?:key|secret)|secret[-_]?key|"
    r"key[-_]?material|passphrase"
)
_CONFIG_PASSWORD_KEYS = r"password|passphrase|pass|passwd"
_CONFIG_QUOTED_KEYS = (
    r"access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)|"
    r"secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd|"
    + _PAYMENT_QUERY_KEYS
)
_CLI_KEYS = (
    _AWS_KEYS + r"|api[-_]?key|hook[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|token|secret|"
    r"password|passwd|credential|private[-_]?key|client[-_]?secret|" + _PAYMENT_QUERY_KEYS
)
_GI = re.I | re.ASCII
_G = re.ASCII  # a "/.../g" literal in OpenClaw: case-sensitive
Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]
# DEFAULT_REDACT_FIELD_PATTERNS in OpenClaw's order; the ones not ported are named.
_FIELD_RULES: tuple[Rule, ...] = (
    (_ENV_ASSIGNMENT_RE, _shell_mask),
    (
        re.compile(
            rf"\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|{_PAYMENT_ENV_KEYS})\b\s*[=:]\s*\\+([\"'])([^\s\"'\\]+)\\+\1",
            _G,
        ),
        _shell_mask,
    ),
    (
        re.compile(
            r'"(?:apiKey|api_key|apiToken|api_token|bearerToken|bearer_token|token|secret|password|passwd|'
            + _AWS_KEYS
            + r"|credential|authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|"
            r"accessToken|access_token|refreshToken|refresh_token|idToken|id_token|authToken|auth_token|"
            r"clientSecret|client_secret|privateKey|private_key|secret_value|raw_secret|secret_input|"
            r'key_material)"\s*:\s*"([^"]+)"',
            _GI,
        ),
        _hinted_mask,
    ),
    (re.compile(rf'"(?:{_PAYMENT_JSON_KEYS})"\s*:\s*"([^"]+)"', _GI), _hinted_mask),
    (
        re.compile(
            r"(^|[\s,{])[\"']?(?:api[-_]key|access[-_]token|refresh[-_]token|id[-_]token|authToken|auth[-_]token|"
            r"clientSecret|client[-_]secret|appSecret|app[-_]secret|private[-_]key|credential|authorization|"
            r"secret[-_]value|raw[-_]secret|secret[-_]input|key[-_]material)[\"']?\s*[:=]\s*([\"'])([^\"'\r\n]+)\2",
            _GI,
        ),
        _hinted_mask,
    ),
    (
        re.compile(
            r"(^|[\s,{])[\"']?(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token)"
            r"[\"']?\s*[:=]\s*([\"'])([^\"'\r\n]+)\2",
            _GI,
        ),
        _hinted_mask,
    ),
    (re.compile(rf"--(?:{_CLI_KEYS})=([^\s\"']+)", _GI), _hinted_mask),
    (re.compile(rf"--(?:{_CLI_KEYS})\s+(?!(?:or|and)\b(?=\s+--))([\"']?)([^\s\"']+)\1", _GI), _hinted_mask),
    # Not ported: the Authorization Bearer/Basic/Bot, HTTP auth and gateway header rules.
    (_BEARER_RE, _hinted_mask),
    (re.compile(r"\b(?:https?|wss?|ftp):\/\/[^\/\s:@]*:([^\/\s@]+)@", _GI), _hinted_mask),
    (
        re.compile(
            r"\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?|amqps?):\/\/[^:\s/@]*:([^@\s]+)@", _GI
        ),
        _hinted_mask,
    ),
    # Not ported: the first pair of a form body (a=b&c=d).
    (
        re.compile(rf"(^|[\s,;({{\[\"])(?:{_STANDALONE_KEYS})=([\"'`])((?:(?!\2)[^\r\n])+)\2", _GI),
        _shell_mask,
    ),
    (re.compile(rf"(^|[\s,;({{\[\"])(?:{_STANDALONE_KEYS})=([\"'`]?[^\s&#\"'`<>]+)", _GI), _shell_mask),
    (
        re.compile(
            rf"(^|[\s,{{])(?:(?:{_CONFIG_QUOTED_KEYS})(?:\s*:\s*|\s+=\s*|=\s*)|[a-z0-9][a-z0-9._-]{{0,79}}[-_]"
            rf"(?:{_CONFIG_PASSWORD_KEYS})\s*[:=]\s*|[a-z0-9_.-]{{1,80}}\.(?:{_CONFIG_KEYS})\s*[:=]\s*)"
            rf"([\"'`])((?:(?!\2)[^\r\n])+)\2",
            _G,
        ),
        _hinted_mask,
    ),
    (re.compile(rf"(^|[\s,{{])(?:{_CONFIG_KEYS})(?:\s*:\s*|\s+=\s*|=\s+)([^\s#\"'`<>]+)", _G), _hinted_mask),
    (re.compile(rf"(^|[\s,{{])(?:{_CONFIG_DIRECT_KEYS})=([^\s#\"'`<>]+)", _G), _hinted_mask),
    (
        re.compile(
            rf"(^|[\s,{{])[a-z0-9][a-z0-9._-]{{0,79}}[-_](?:{_CONFIG_PASSWORD_KEYS})\s*[:=]\s*([^\s#\"'`<>]+)",
            _G,
        ),
        _hinted_mask,
    ),
    (
        re.compile(rf"(^|[\s,{{])[a-z0-9_.-]{{1,80}}\.(?:{_CONFIG_KEYS})\s*[:=]\s*([^\s#\"'`<>]+)", _G),
        _hinted_mask,
    ),
    (_PEM_RE, _pem),
    (
        re.compile(
            rf"(^|[\s,{{])[\"']?(?:{_AWS_KEYS})[\"']?\s*[:=]\s*([\"']?)([A-Za-z0-9/+=]{{40}})(?![A-Za-z0-9/+=])\2",
            _GI,
        ),
        _hinted_mask,
    ),
)


def redact_sensitive_text(text: str) -> str:
    """``redactSensitiveText(text, {mode: "tools"})`` for the rules this module ports, in
    OpenClaw's order (field rules first, then the vendor shapes)."""
    if not text:
        return text
    out = text
    for rule, replace in _FIELD_RULES:
        out = rule.sub(replace, out)
    for pattern, base64_boundary in _VENDOR_RES:
        out = pattern.sub(_vendor(base64_boundary), out)
    return out
