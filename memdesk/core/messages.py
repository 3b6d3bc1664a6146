"""Text the core shows to people, translatable by the UI without the core knowing Qt.

A user-visible sentence (an error, a skip reason, why search is keyword-only, a
doctor finding) is written as an English template with named fields and wrapped in
``QT_TRANSLATE_NOOP("core", ...)``: a no-op here, named so that PySide6's ``lupdate``
catalogues the template in ``resources/translations/*.ts`` like any ``tr()`` string.
:func:`msg` fills it in as a :class:`Message`, which *is* the English text (a ``str``:
the CLI, JSON output, logs and exceptions use it unchanged) and also keeps the template
and its arguments, so the Qt layer (``memdesk.qt.messages.text``) can translate the
template and format the same arguments into it.

    raise errors.WorkspaceError(msg(QT_TRANSLATE_NOOP("core", "{path} is not a folder"), path=p))

Fields are ``str.format`` fields (``{count:,}`` works); an argument that is itself a
``Message`` is translated too. Text built by concatenating messages is a plain ``str``
and stays English: pass the parts as arguments of one template instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

# The translation context of every core template (the .ts file's <context><name>).
CONTEXT = "core"


# Named as in Qt because that name is what lupdate looks for.
def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Marks ``text`` as a template of translation ``context``; returns it unchanged."""
    return text


class Message(str):
    """English text that remembers the template and arguments it was made from."""

    template: str
    args: Mapping[str, object]

    def __new__(cls, template: str, args: Mapping[str, Any] | None = None) -> Message:
        values = dict(args or {})
        # No arguments: the template is the text as-is (no brace escaping needed).
        self = super().__new__(cls, template.format_map(values) if values else template)
        self.template = template
        self.args = MappingProxyType(values)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled (multiprocessing, copy) with its template, not as the finished text.
        return (Message, (self.template, dict(self.args)))


def msg(template: str, /, **args: object) -> Message:
    """``template`` (a ``QT_TRANSLATE_NOOP("core", ...)`` literal) filled in with ``args``."""
    return Message(template, args)


def of(exc: BaseException) -> str:
    """An exception's text, as a ``Message`` when it was raised with one (``str(exc)``
    would keep only the English)."""
    first = exc.args[0] if len(exc.args) == 1 else None
    return first if isinstance(first, Message) else str(exc)


# A stored message (``dumps``) is JSON under this key; plain text never starts with it
# (a stored reason starts with a path or a sentence).
_STORED_KEY = '{"message":'


def _plain(value: object) -> object:
    if isinstance(value, Message):
        return {"message": value.template, "args": {k: _plain(v) for k, v in value.args.items()}}
    if value is None or isinstance(value, bool | int | float):
        return value
    return str(value)


def dumps(text: str) -> str:
    """``text`` as kept in the index: a ``Message`` as JSON with its template and
    arguments, so a reason read back later (``loads``) is still translatable; plain
    text as it is."""
    if not isinstance(text, Message):
        return str(text)
    return json.dumps(_plain(text), ensure_ascii=False)


def _revive(value: object) -> object:
    if isinstance(value, dict) and isinstance(value.get("message"), str):
        args = value.get("args")
        return Message(value["message"], {k: _revive(v) for k, v in (args or {}).items()})
    return value


def loads(stored: str) -> str:
    """The text ``dumps`` kept: a ``Message`` again, or the plain text (also for
    reasons an older version stored in English)."""
    if not stored.startswith(_STORED_KEY):
        return stored
    try:
        revived = _revive(json.loads(stored))
    except (ValueError, KeyError, IndexError):
        return stored
    return revived if isinstance(revived, Message) else stored
