"""Reading one ``openclaw.json`` (or a file it ``$include``s) without trusting it.

The config is the user's, but memdesk reads it on every agent view, doctor run and
OpenClaw-profile search, so a hostile or odd file must cost one clear line, fast:

* only a regular file is read: ``O_NONBLOCK`` so opening a FIFO never waits for a
  writer, then ``fstat`` refuses FIFOs, devices (``/dev/zero``), sockets and folders;
* at most :data:`MAX_CONFIG_BYTES` (OpenClaw configs are a few KB), counted while
  reading too, in case the file grows;
* bytes that are not UTF-8 are read as U+FFFD, exactly as OpenClaw's
  ``fs.readFileSync(path, "utf-8")`` reads them (so memdesk sees the config the agent
  runs with), and a warning names the first such byte;
* nesting deeper than :data:`MAX_NESTING` is refused before any parser recurses;
* plain JSON (a subset of JSON5 with the same values) is parsed by the stdlib in
  milliseconds, and so is the JSON5 configs use every day (comments, trailing commas,
  unquoted keys, single quotes), turned into JSON first (:func:`json5_as_json`); only
  rarer JSON5 (hex numbers, escapes only JSON5 has) goes to the ``json5`` package,
  which is pure Python and slow (11 to 21 ms per KiB here), and only up to
  :data:`MAX_JSON5_BYTES` so that it stays under a second.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import json5

from memdesk.core import diskio, errors

MAX_CONFIG_BYTES = 1 << 20
MAX_JSON5_BYTES = 16 << 10
# Real configs nest about 8 levels; the json5 package recurses some 20 frames per level,
# so 32 also keeps it well inside Python's recursion limit.
MAX_NESTING = 32

# Strings (either quote, a backslash escapes anything, a line ends an unterminated one so
# that a stray quote costs one line, not the file), comments, and the brackets that nest.
_STRUCTURE = re.compile(
    r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
    r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
    r"|//[^\n]*"
    r"|/\*.*?(?:\*/|\Z)"
    r"|[\[\]{}]",
    re.S,
)


class OpenClawConfigError(errors.MemdeskError):
    """``openclaw.json`` (or a file it includes) cannot be read or parsed."""


def _too_large(path: Path, size: int) -> OpenClawConfigError:
    return OpenClawConfigError(
        f"{path}: {size:,} bytes is over the {MAX_CONFIG_BYTES // 1024:,} KiB limit for an OpenClaw "
        "config file; not read"
    )


def read_bytes(path: Path) -> bytes:
    """The bytes of the regular file ``path``, refusing anything that could hang or flood."""
    try:
        # stat first (it follows a symlink, as OpenClaw does): a device is refused
        # before it is even opened.
        kind = diskio.non_regular_kind(os.stat(path).st_mode)
        if kind is not None:
            raise OpenClawConfigError(f"{path}: is {kind}, not a regular file; not read")
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
        fd = os.open(path, flags)
    except OSError as exc:
        raise OpenClawConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        # again on what was opened: it may have been swapped since
        kind = diskio.non_regular_kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise OpenClawConfigError(f"{path}: is {kind}, not a regular file; not read")
        return diskio.read_bounded(fd, MAX_CONFIG_BYTES, lambda size: _too_large(path, size))
    except OSError as exc:
        raise OpenClawConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def decode(data: bytes, path: Path, warnings: list[str]) -> str:
    """UTF-8 text; bad bytes become U+FFFD as in Node (OpenClaw reads the file so), with a warning."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        others = text.count("\ufffd") - data.decode("utf-8", errors="ignore").count("\ufffd") - 1
        line = data.count(b"\n", 0, exc.start) + 1
        more = f" and {others} more place{'s' if others != 1 else ''}" if others > 0 else ""
        warnings.append(
            f"{path}: not valid UTF-8 at byte {exc.start} (line {line}){more}; read as U+FFFD, "
            "as OpenClaw reads it"
        )
        return text


def nesting_depth(text: str) -> int:
    """How deep objects and arrays nest, ignoring brackets in strings and comments."""
    if text.count("{") + text.count("[") <= MAX_NESTING:
        return 0  # cannot be deeper than the limit: skip the scan
    depth = deepest = 0
    for match in _STRUCTURE.finditer(text):
        token = match.group()
        if token in ("{", "["):
            depth += 1
            deepest = max(deepest, depth)
        elif token in ("}", "]"):
            depth = max(0, depth - 1)
    return deepest


# JSON5's everyday syntax, token by token: strings, comments, identifiers (unquoted keys
# and the literals), white space, colons, commas, closing brackets, anything else.
_TOKEN = re.compile(
    r"""(?P<dq>"(?:[^"\\\n\r]|\\[^\n\r])*")
    |(?P<sq>'(?:[^'\\\n\r]|\\[^\n\r])*')
    |(?P<lc>//[^\n\r\u2028\u2029]*)
    |(?P<bc>/\*.*?\*/)
    |(?P<id>[A-Za-z_$][\w$]*)
    |(?P<ws>[ \t\n\r]+)
    |(?P<colon>:)
    |(?P<comma>,)
    |(?P<close>[}\]])
    |(?P<open>[{\[])
    |(?P<other>[^"'/A-Za-z_$ \t\n\r:,{}\[\]]+|.)""",
    re.S | re.X,
)
_SKIPPED = frozenset({"ws", "lc", "bc"})


def json5_as_json(text: str) -> str | None:
    """``text`` in strict JSON with the same value, for the JSON5 most configs use
    (comments, trailing commas, unquoted keys, plain single-quoted strings); None for
    anything else (hex numbers, escapes only JSON5 has...), which the ``json5`` package
    then parses. Comments keep their line breaks, so JSON's line numbers stay right.

    Whatever this turns into JSON, ``json.loads`` still checks: text it cannot parse is
    handed to ``json5`` (small files) or reported (large ones), never guessed at.
    """
    tokens = [(m.lastgroup or "other", m.group()) for m in _TOKEN.finditer(text)]
    following = [""] * len(tokens)  # the kind of the next significant token after each
    upcoming = ""
    for i in range(len(tokens) - 1, -1, -1):
        following[i] = upcoming
        if tokens[i][0] not in _SKIPPED:
            upcoming = tokens[i][0]
    out: list[str] = []
    last = ""  # the last significant token kept
    for (kind, value), ahead in zip(tokens, following, strict=True):
        if kind in ("lc", "bc"):
            out.append("\n" * value.count("\n") or " ")
            continue
        if kind == "ws":
            out.append(value)
            continue
        if kind == "sq":
            inner = value[1:-1]
            if "\\" in inner or '"' in inner:
                return None
            value = f'"{inner}"'
        elif kind == "id" and ahead == "colon":
            value = f'"{value}"'
        elif kind == "comma" and ahead == "close" and last not in ("open", "comma", ""):
            out.append(" ")  # a trailing comma
            last = kind
            continue
        out.append(value)
        last = kind
    return "".join(out)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def parse(text: str, path: Path) -> Any:
    """The JSON5 value of ``text``; ``OpenClawConfigError`` (one line, naming ``path``) if not."""
    depth = nesting_depth(text)
    if depth > MAX_NESTING:
        raise OpenClawConfigError(
            f"{path}: objects and arrays nest {depth} levels deep, over the limit of {MAX_NESTING}; not read"
        )
    # JSON5 counts a byte-order mark as white space; the stdlib's JSON does not.
    body = text[1:] if text.startswith("\ufeff") else text
    try:
        return json.loads(body)  # strict JSON is JSON5 with the same values, and fast
    except json.JSONDecodeError as exc:
        json_error = exc
    except RecursionError:  # the bracket scan above makes this unreachable; kept as a guard
        raise OpenClawConfigError(f"{path}: nested too deeply to read") from None
    translated = json5_as_json(body)
    if translated is not None:
        try:
            return json.loads(translated)
        except json.JSONDecodeError as exc:
            json_error = exc  # its line is the source's line
    size = len(body.encode("utf-8", errors="surrogatepass"))
    if size > MAX_JSON5_BYTES:
        raise OpenClawConfigError(
            f"{path}: {json_error.msg} at line {json_error.lineno} column {json_error.colno} (if that is "
            f"JSON5 syntax memdesk reads only through the json5 package: {size // 1024:,} KiB is over "
            f"the {MAX_JSON5_BYTES // 1024} KiB memdesk parses with the json5 package)"
        )
    try:
        return json5.loads(body)
    except RecursionError:
        raise OpenClawConfigError(f"{path}: nested too deeply to read") from None
    except ValueError as exc:
        raise OpenClawConfigError(f"{path}: not valid JSON5 ({_one_line(str(exc))})") from None


def read(path: Path, warnings: list[str]) -> Any:
    """Read, decode and parse one config file."""
    return parse(decode(read_bytes(path), path, warnings), path)
