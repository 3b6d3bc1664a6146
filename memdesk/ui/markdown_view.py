"""Markdown to the HTML subset ``QTextBrowser`` renders: tables with grid lines, code
blocks on a tinted background, task lists as ☐/☑. Raw HTML stays text, and nothing
remote is loaded (``SafePreview.loadResource`` refuses every resource)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.tasklists import tasklists_plugin
from PySide6.QtGui import QPalette

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
