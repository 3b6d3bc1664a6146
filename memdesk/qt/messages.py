"""The core's messages in the UI's language (see ``memdesk.core.messages``)."""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication

from memdesk.core.messages import CONTEXT, Message

log = logging.getLogger(__name__)


def without_path(text: str, path: str) -> str:
    """``text`` without the ``"{path}: "`` (in Chinese ``"{path}："``) that the core's
    reasons about a file start with, where the UI already names the file."""
    for sep in (": ", "："):
        text = text.removeprefix(f"{path}{sep}")
    return text


def text(value: object) -> str:
    """``value`` as the UI shows it: a core ``Message`` translated (its ``Message``
    arguments too), an exception by its message, anything else as ``str(value)``.

    A message the .ts file does not have, or a translation whose fields do not fit
    the arguments, is shown in English rather than hidden.
    """
    if isinstance(value, BaseException):
        first = value.args[0] if len(value.args) == 1 else None
        return text(first) if isinstance(first, Message) else str(value)
    if not isinstance(value, Message):
        return str(value)
    translated = QCoreApplication.translate(CONTEXT, value.template)
    if not value.args:
        return translated
    args = {name: text(arg) if isinstance(arg, Message) else arg for name, arg in value.args.items()}
    try:
        return translated.format_map(args)
    except (KeyError, IndexError, ValueError) as exc:
        log.warning("translation of %r does not fit its arguments (%s)", value.template, exc)
        return value.template.format_map(args)
