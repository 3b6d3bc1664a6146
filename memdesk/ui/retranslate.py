"""Switching the interface language while memdesk runs, without a restart.

Qt widgets keep the text they were given; a new ``QTranslator`` changes only what is
translated from then on. Rather than give every widget a ``retranslate`` method (and
keep it in step with its constructor), the switch reads the catalogue both languages
share (``resources/translations/*.ts``: each message's context, English source and
translation) and rewrites every text on screen that is a catalogued message in the
old language: window titles, labels (rich text too, tag by tag), buttons, actions and
menus, tabs, placeholders, tooltips, combo and list items, table headers. A message
with fields (``{n} files``) is recognised by its template and refilled with the same
values. Views over item models repaint, and their models translate as they paint.
Text that is no catalogued message (a note's name, a path, the user's query) is left
alone. Widgets built later use the new translator anyway.
"""

from __future__ import annotations

import functools
import logging
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, Qt, QTranslator
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QTableView,
    QTableWidget,
    QTabWidget,
    QTextEdit,
    QTreeView,
    QWidget,
)

from memdesk.qt import translations
from memdesk.ui import fitted_label

log = logging.getLogger(__name__)

# A str.format field: {0}, {path}, {size:.1f}.
_FIELD = re.compile(r"\{([^{}:!]*)(?:[:!][^{}]*)?\}")
_TAG = re.compile(r"(<[^>]*>)")
# A message with fields is recognised by its template only when this much of it is its
# own text: "Text {0}" would claim "Text weight 0.25 → 1.00".
MIN_LITERAL = 8
SEPARATOR = " · "  # between the messages of one status line


@dataclass(frozen=True)
class _Message:
    context: str
    source: str
    translation: str


@functools.cache
def _catalogue(language: str) -> tuple[_Message, ...]:
    """Every finished message of ``memdesk_<language>.ts`` (empty when there is none)."""
    path = translations.translations_dir() / f"memdesk_{language}.ts"
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        log.warning("cannot read %s (%s): texts already shown keep their language", path, exc)
        return ()
    found = []
    for context in root.iter("context"):
        name = context.findtext("name", "")
        if name in translations.QT_GAPS:
            continue  # Qt's own widgets retranslate these; "File" elsewhere is no such message
        for message in context.iter("message"):
            translation = message.find("translation")
            if translation is None or translation.get("type") in ("obsolete", "vanished", "unfinished"):
                continue
            text = "".join(translation.itertext())
            if text:
                found.append(_Message(name, message.findtext("source", ""), text))
    return tuple(found)


class _Rewriter:
    """Maps a text shown in the old language to the same message in the new one."""

    def __init__(self, old: str | None, new: str | None) -> None:
        language = old or new
        messages = _catalogue(language) if language else ()
        self._exact: dict[str, list[_Message]] = {}
        # The classes of the widget being rewritten and of its parents: tr()'s contexts.
        # One Chinese text can translate several English ones ("时间衰减": "Decay" in the
        # results' header, "Temporal decay" in the tuning panel); the nearest context wins.
        self.contexts: tuple[str, ...] = ()
        self._templates: list[tuple[str, re.Pattern[str], list[str], _Message, int]] = []
        for message in messages:
            shown = message.translation if old else message.source
            self._exact.setdefault(shown, []).append(message)
            names = [m.group(1) for m in _FIELD.finditer(shown)]
            literal = _FIELD.sub("", shown)
            if not names or len(literal.strip()) < MIN_LITERAL:
                continue  # "{0}", "{a}: {b}" or "Text {0}" would match text that is no such message
            parts = _FIELD.split(shown)
            # split() alternates literal text and field names; fields become lazy groups.
            pattern = "".join(re.escape(part) if i % 2 == 0 else "(.+?)" for i, part in enumerate(parts))
            prefix = parts[0]
            self._templates.append(
                (prefix, re.compile(f"^{pattern}$", re.DOTALL), names, message, len(literal))
            )

    def __call__(self, text: str) -> str | None:
        """``text`` in the new language, or None when it is no catalogued message."""
        if not text:
            return None
        if "<" in text and _TAG.search(text):
            pieces = _TAG.split(text)
            changed = False
            for i in range(0, len(pieces), 2):
                core = pieces[i].strip()
                new = self._plain(core) if core else None
                if new is not None:
                    pieces[i] = pieces[i].replace(core, new)
                    changed = True
            return "".join(pieces) if changed else None
        whole = self._plain(text)
        if whole is None and SEPARATOR in text:  # a status line of several messages
            parts = text.split(SEPARATOR)
            rewritten = [self._plain(part) for part in parts]
            if any(r is not None for r in rewritten):
                return SEPARATOR.join(
                    r if r is not None else p for r, p in zip(rewritten, parts, strict=True)
                )
        return whole

    def _nearest(self, messages: list[_Message]) -> _Message:
        ranked = [m for c in self.contexts for m in messages if m.context == c]
        return (ranked or messages)[0]

    def _plain(self, text: str) -> str | None:
        exact = self._exact.get(text)
        if exact:
            message = self._nearest(exact)
            return QCoreApplication.translate(message.context, message.source)
        matches: list[tuple[_Message, re.Match[str], list[str]]] = []
        for prefix, pattern, names, message, literal in self._templates:
            if not text.startswith(prefix) or literal * 3 < len(text):
                continue  # mostly values: too likely a coincidence
            match = pattern.match(text)
            if match is not None:
                matches.append((message, match, names))
        if matches:
            message = self._nearest([m for m, _match, _names in matches])
            _message, match, names = next(item for item in matches if item[0] is message)
            values: dict[str, str] = {}
            for name, value in zip(names, match.groups(), strict=True):
                inner = self._plain(value)  # a translated value inside ("3 private")
                values.setdefault(name, inner if inner is not None else value)
            template = QCoreApplication.translate(message.context, message.source)
            return _FIELD.sub(functools.partial(_fill, values), template)
        return None


def _contexts(widget: QWidget | None) -> tuple[str, ...]:
    """tr() contexts nearest first: the widget's classes, then its parents'."""
    names: list[str] = []
    while widget is not None:
        names += [cls.__name__ for cls in type(widget).__mro__]
        widget = widget.parentWidget()
    return tuple(dict.fromkeys(names))


def _fill(values: dict[str, str], field: re.Match[str]) -> str:
    return values.get(field.group(1), field.group(0))


def _rewrite_each(
    count: int, get: Callable[[int], str], set_: Callable[[int, str], None], rewrite: _Rewriter
) -> None:
    for i in range(count):
        new = rewrite(get(i))
        if new is not None:
            set_(i, new)


def _rewrite(get: Callable[[], str], set_: Callable[[str], None], rewrite: _Rewriter) -> None:
    new = rewrite(get())
    if new is not None:
        set_(new)


def _widget(widget: QWidget, rewrite: _Rewriter) -> None:
    _rewrite(widget.windowTitle, widget.setWindowTitle, rewrite)
    _rewrite(widget.toolTip, widget.setToolTip, rewrite)
    if isinstance(widget, fitted_label.FittedLabel):  # shows its full text cut to fit
        _rewrite(widget.full_text, widget.set_full_text, rewrite)
    elif isinstance(widget, QLabel | QAbstractButton):
        _rewrite(widget.text, widget.setText, rewrite)
    if isinstance(widget, QLineEdit | QPlainTextEdit | QTextEdit):
        _rewrite(widget.placeholderText, widget.setPlaceholderText, rewrite)
    if isinstance(widget, QGroupBox):
        _rewrite(widget.title, widget.setTitle, rewrite)
    if isinstance(widget, QTabWidget):
        _rewrite_each(widget.count(), widget.tabText, widget.setTabText, rewrite)
        _rewrite_each(widget.count(), widget.tabToolTip, widget.setTabToolTip, rewrite)
    if isinstance(widget, QComboBox):
        _rewrite_each(widget.count(), widget.itemText, widget.setItemText, rewrite)
    if isinstance(widget, QListWidget):
        for i in range(widget.count()):
            item = widget.item(i)
            _rewrite(item.text, item.setText, rewrite)
            _rewrite(item.toolTip, item.setToolTip, rewrite)
    if isinstance(widget, QTableWidget):
        for i in range(widget.columnCount()):
            header = widget.horizontalHeaderItem(i)
            if header is not None:
                _rewrite(header.text, header.setText, rewrite)
                _rewrite(header.toolTip, header.setToolTip, rewrite)
    if isinstance(widget, QTableView | QTreeView):
        # Item models translate in data()/headerData(): a repaint asks them again.
        model = widget.model()
        view_header = widget.horizontalHeader() if isinstance(widget, QTableView) else widget.header()
        if model is not None and view_header.count() > 0:
            model.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, view_header.count() - 1)
    if isinstance(widget, QAbstractItemView):
        widget.viewport().update()


def retranslate(app: QApplication, old: str | None, new: str | None) -> None:
    """Rewrite every catalogued text on screen from language ``old`` to ``new`` (None:
    English); the new translators must already be installed."""
    if old == new:
        return
    rewrite = _Rewriter(old, new)
    for top in app.topLevelWidgets():
        for widget in [top, *top.findChildren(QWidget)]:
            rewrite.contexts = _contexts(widget)
            _widget(widget, rewrite)
        rewrite.contexts = _contexts(top)
        for action in top.findChildren(QAction):
            _rewrite(action.text, action.setText, rewrite)
            _rewrite(action.toolTip, action.setToolTip, rewrite)


def switch_language(app: QApplication, preference: str) -> str | None:
    """Load the translation for ``preference`` in place of the current one and rewrite
    what is on screen; returns the language now shown (None: English)."""
    old = translations.current_language(app)
    for translator in app.findChildren(QTranslator):
        QCoreApplication.removeTranslator(translator)
        translator.setParent(None)  # gone now, not at the next event loop pass
    new = translations.install(app, preference)
    retranslate(app, old, new)
    return new
