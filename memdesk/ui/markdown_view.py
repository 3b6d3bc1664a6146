"""Markdown as the editor shows it: the highlighting of the text being edited
(``MarkdownHighlighter``) and the rendered preview (``SafePreview``).

The preview renders to the HTML subset ``QTextBrowser`` shows: tables with grid lines,
code blocks on a tinted background, task lists as ☐/☑. Raw HTML stays text, and
nothing remote is loaded (``SafePreview.loadResource`` refuses every resource)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.tasklists import tasklists_plugin
from PySide6.QtCore import QRegularExpression, QUrl
from PySide6.QtGui import QColor, QFont, QPalette, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from memdesk.core.agent import annotate
from memdesk.ui import theme


def make_renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    md.use(tasklists_plugin)
    # QTextBrowser draws no <input>: show the box as a character instead.
    md.add_render_rule("html_inline", _render_html_inline)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("table_open", lambda *a: '<table border="1" cellspacing="0" cellpadding="4">\n')
    return md


def _render_html_inline(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    content = tokens[idx].content
    if "task-list-item-checkbox" in content:
        return "☑" if 'checked="checked"' in content else "☐"
    return html.escape(content)  # only plugins make html_inline tokens (raw HTML is off)


def _render_image(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    # Images are never loaded (they could be remote): show their alt text instead.
    alt = self.renderInlineAsText(tokens[idx].children or [], options, env)
    return f"<i>[{html.escape(alt or str(tokens[idx].attrGet('src') or ''))}]</i>"


def style_sheet(palette: QPalette) -> str:
    """The preview's CSS, from the palette (readable in light and dark themes)."""
    code_bg = theme.code_background(palette).name()
    grid = theme.muted_text(palette).name()
    return (
        f"pre {{ background-color: {code_bg}; padding: 6px; }}"
        f"code {{ background-color: {code_bg}; }}"
        f"table {{ border-collapse: collapse; border-color: {grid}; }}"
        f"th {{ background-color: {code_bg}; }}"
        "th, td { padding: 3px 6px; }"
        f"blockquote {{ color: {grid}; }}"
        "li.task-list-item { list-style-type: none; }"
    )


def _fmt(
    color: str, *, bold: bool = False, italic: bool = False, mono: bool = False, background: str | None = None
) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    if italic:
        fmt.setFontItalic(True)
    if mono:
        fmt.setFontFixedPitch(True)
    if background:
        fmt.setBackground(QColor(background))
    return fmt


# Markdown colours for light and dark bases (each readable on its own kind of base).
_LIGHT_COLORS = {
    "heading": "#1f4e8c",
    "list": "#a0522d",
    "quote": "#5f6b7a",
    "code": "#8b1a5a",
    "code_bg": "#f3eef2",
    "link": "#0b6e4f",
    "fence_bg": "#f6f3f5",
    "annotation": "#6a3fb5",
    "annotation_bg": "#efe8fb",
    "annotation_ignored": "#8a8594",
}
_DARK_COLORS = {
    "heading": "#7fb2f0",
    "list": "#e0a070",
    "quote": "#a3adba",
    "code": "#f0a0c8",
    "code_bg": "#3a2f36",
    "link": "#6fd3a8",
    "fence_bg": "#2f2a2e",
    "annotation": "#c9b3f5",
    "annotation_bg": "#342c44",
    "annotation_ignored": "#8f8a99",
}


class MarkdownHighlighter(QSyntaxHighlighter):
    """Headings, emphasis, code, links, lists and quotes; fenced code spans blocks.

    Colours come in a light and a dark set, picked from the palette's base colour.
    An annotation the agent will not honour in this note (``rel``: importance in a daily
    note, a project comment without a name) is struck through in grey; the editor's
    tooltip says why.
    """

    _IN_FENCE = 1

    def __init__(self, document: QTextDocument, *, dark: bool = False, rel: str = "") -> None:
        super().__init__(document)
        self.dark = dark
        self.rel = rel
        c = _DARK_COLORS if dark else _LIGHT_COLORS
        strong = QTextCharFormat()
        strong.setFontWeight(QFont.Weight.Bold)
        em = QTextCharFormat()
        em.setFontItalic(True)
        self._rules: list[tuple[QRegularExpression, QTextCharFormat]] = [
            (QRegularExpression(r"^#{1,6}\s.*$"), _fmt(c["heading"], bold=True)),
            (QRegularExpression(r"^\s*([-*+]|\d+[.)])\s"), _fmt(c["list"], bold=True)),
            (QRegularExpression(r"^\s*>.*$"), _fmt(c["quote"], italic=True)),
            (QRegularExpression(r"\*\*[^*]+\*\*|__[^_]+__"), strong),
            (QRegularExpression(r"(?<![*\w])\*[^*\s][^*]*\*(?!\*)|(?<![_\w])_[^_\s][^_]*_(?!_)"), em),
            (QRegularExpression(r"`[^`]+`"), _fmt(c["code"], mono=True, background=c["code_bg"])),
            (QRegularExpression(r"!?\[[^\]]*\]\([^)]*\)"), _fmt(c["link"])),
            # OpenClaw's recall annotations (<!-- importance: 7 -->, project, trigger).
            (
                QRegularExpression(
                    r"<!--\s*(?:trigger|importance|project)\s*:.*?-->",
                    QRegularExpression.PatternOption.CaseInsensitiveOption,
                ),
                _fmt(c["annotation"], bold=True, background=c["annotation_bg"]),
            ),
        ]
        self._fence = _fmt(c["code"], mono=True, background=c["fence_bg"])
        self._ignored = _fmt(c["annotation_ignored"], italic=True, background=c["annotation_bg"])
        self._ignored.setFontStrikeOut(True)

    def highlightBlock(self, text: str) -> None:  # Qt override
        is_fence_line = text.lstrip().startswith(("```", "~~~"))
        in_fence = self.previousBlockState() == self._IN_FENCE
        if in_fence or is_fence_line:
            self.setFormat(0, len(text), self._fence)
            # A fence line inside a fence closes it; anywhere else it opens one.
            self.setCurrentBlockState(-1 if in_fence and is_fence_line else self._IN_FENCE)
            return
        self.setCurrentBlockState(-1)
        for pattern, fmt in self._rules:
            matches = pattern.globalMatch(text)
            while matches.hasNext():
                match = matches.next()
                self.setFormat(match.capturedStart(), match.capturedLength(), fmt)
        for start, end, kind, value in annotate.annotation_spans(text):
            if annotate.ignored_annotation(self.rel, text, kind, value) is not None:
                self.setFormat(start, end - start, self._ignored)

    def set_rel(self, rel: str) -> None:
        """The note was renamed: what it honours may have changed with its name."""
        self.rel = rel
        self.rehighlight()


class SafePreview(QTextBrowser):
    """Rendered Markdown that never fetches anything: no images at all, links not followed.

    ``loadResource`` returning nothing is not enough: QTextDocument then reads
    ``file:`` and relative image URLs from disk itself (a note could show any image
    on the machine). So the renderer (``markdown_view``) emits no ``<img>`` at all
    (an image shows as its alt text), and raw HTML is off.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("preview")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)

    def loadResource(self, kind: int, url: QUrl | str) -> Any:  # Qt override
        return None  # remote resources and style sheets stay unloaded, whatever their scheme

    def show_markdown(self, md: MarkdownIt, text: str) -> None:
        self.document().setDefaultStyleSheet(style_sheet(self.palette()))
        self.setHtml(md.render(text))
