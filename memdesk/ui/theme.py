"""Colours derived from the palette, so highlights stay readable in light and dark themes."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved ``t`` of the way towards ``b``."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


def match_background(palette: QPalette) -> QColor:
    """Behind a matched term: amber, deep on dark bases and pale on light ones."""
    base = palette.color(QPalette.ColorRole.Base)
    return _mix(base, QColor(255, 196, 0), 0.3 if is_dark(palette) else 0.6)


def match_foreground(palette: QPalette) -> QColor:
    return palette.color(QPalette.ColorRole.Text)


def hit_lines_background(palette: QPalette) -> QColor:
    """Behind the lines of an opened hit's chunk (weaker than a matched line)."""
    base = palette.color(QPalette.ColorRole.Base)
    return _mix(base, palette.color(QPalette.ColorRole.Highlight), 0.12)


def matched_line_background(palette: QPalette) -> QColor:
    """Behind a line of the opened hit that holds a matched term."""
    return _mix(
        palette.color(QPalette.ColorRole.Base), QColor(255, 196, 0), 0.3 if is_dark(palette) else 0.35
    )


def find_background(palette: QPalette) -> QColor:
    """Behind the other matches of Ctrl+F find."""
    return _mix(
        palette.color(QPalette.ColorRole.Base), QColor(80, 200, 120), 0.35 if is_dark(palette) else 0.4
    )


def code_background(palette: QPalette) -> QColor:
    """Behind code blocks and table headers in the preview."""
    return _mix(
        palette.color(QPalette.ColorRole.Base),
        palette.color(QPalette.ColorRole.Text),
        0.08 if is_dark(palette) else 0.06,
    )


def banner_background(palette: QPalette) -> QColor:
    """The model banner: a light amber wash over the window colour."""
    return _mix(
        palette.color(QPalette.ColorRole.Window), QColor(255, 196, 0), 0.18 if is_dark(palette) else 0.22
    )


def score_bar(palette: QPalette) -> QColor:
    """The bar behind a score: the selection colour, see-through so the number reads."""
    color = QColor(palette.color(QPalette.ColorRole.Highlight))
    color.setAlpha(120 if is_dark(palette) else 80)
    return color


def muted_text(palette: QPalette) -> QColor:
    return _mix(palette.color(QPalette.ColorRole.Text), palette.color(QPalette.ColorRole.Base), 0.4)


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours (tests check highlights stay above 4.5)."""

    def luminance(c: QColor) -> float:
        def channel(v: int) -> float:
            s = v / 255
            return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(c.red()) + 0.7152 * channel(c.green()) + 0.0722 * channel(c.blue())

    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def dark_palette() -> QPalette:
    """A dark palette for screenshots and tests (Fusion-like)."""
    p = QPalette()
    # Base a little lighter than the window: Fusion outlines check boxes with a darker
    # window tone, which vanishes on a base darker than the window.
    window, base, text = QColor(40, 40, 43), QColor(50, 50, 54), QColor(230, 230, 230)
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        p.setColor(group, QPalette.ColorRole.Window, window)
        p.setColor(group, QPalette.ColorRole.WindowText, text)
        p.setColor(group, QPalette.ColorRole.Base, base)
        p.setColor(group, QPalette.ColorRole.AlternateBase, QColor(57, 57, 61))
        p.setColor(group, QPalette.ColorRole.Text, text)
        p.setColor(group, QPalette.ColorRole.Button, window)
        p.setColor(group, QPalette.ColorRole.ButtonText, text)
        p.setColor(group, QPalette.ColorRole.Highlight, QColor(42, 130, 218))
        p.setColor(group, QPalette.ColorRole.HighlightedText, QColor(255, 255, 255))
        p.setColor(group, QPalette.ColorRole.ToolTipBase, base)
        p.setColor(group, QPalette.ColorRole.ToolTipText, text)
        p.setColor(group, QPalette.ColorRole.PlaceholderText, QColor(140, 140, 140))
        p.setColor(group, QPalette.ColorRole.Link, QColor(110, 170, 255))
        p.setColor(group, QPalette.ColorRole.Mid, QColor(90, 90, 95))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor(120, 120, 120))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText, QColor(120, 120, 120))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor(120, 120, 120))
    return p
