"""Colours derived from the palette, so highlights stay readable in light and dark themes."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleOption, QWidget


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved ``t`` of the way towards ``b``."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


def tint(palette: QPalette, color: QColor, amount: float) -> QColor:
    """The palette's base moved ``amount`` of the way towards ``color``: a background
    that keeps the text readable in light and dark themes (diffs, conflict sides)."""
    return _mix(palette.color(QPalette.ColorRole.Base), color, amount)


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
    # Every group, Disabled too: a role left unset there keeps the light default, and a
    # disabled button (Save with nothing to save) shows as a white slab.
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive, QPalette.ColorGroup.Disabled):
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


def indicator_outline(palette: QPalette, *, enabled: bool = True) -> QColor:
    """A check box's frame: text mixed into the base, >= 3:1 against base and window."""
    base = palette.color(QPalette.ColorRole.Base)
    return _mix(base, palette.color(QPalette.ColorRole.Text), 0.6 if enabled else 0.3)


def paint_check_indicator(painter: QPainter, option: QStyleOption) -> None:
    """A check box drawn from the palette: outlined box; ticked = selection colour with a
    tick in its text colour; partly ticked = a selection-coloured square inside."""
    palette = option.palette  # type: ignore[attr-defined]
    state = option.state  # type: ignore[attr-defined]
    enabled = bool(state & QStyle.StateFlag.State_Enabled)
    rect = QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5)  # type: ignore[attr-defined]
    side = min(rect.width(), rect.height())
    rect = QRectF(rect.center().x() - side / 2, rect.center().y() - side / 2, side, side)
    accent = palette.color(QPalette.ColorRole.Highlight)
    if not enabled:
        accent = _mix(palette.color(QPalette.ColorRole.Base), accent, 0.5)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    on = bool(state & QStyle.StateFlag.State_On)
    painter.setPen(QPen(accent if on else indicator_outline(palette, enabled=enabled), 1.0))
    painter.setBrush(accent if on else palette.color(QPalette.ColorRole.Base))
    painter.drawRoundedRect(rect, 2, 2)
    if on:
        pen = QPen(palette.color(QPalette.ColorRole.HighlightedText), max(1.5, side / 7))
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        x, y = rect.left(), rect.top()
        painter.drawPolyline(
            [
                QPointF(x + side * 0.24, y + side * 0.52),
                QPointF(x + side * 0.42, y + side * 0.70),
                QPointF(x + side * 0.76, y + side * 0.30),
            ]
        )
    elif state & QStyle.StateFlag.State_NoChange:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(accent)
        inset = side * 0.27
        painter.drawRect(rect.adjusted(inset, inset, -inset, -inset))
    painter.restore()


class IndicatorStyle(QProxyStyle):
    """Fusion with check boxes drawn from the palette: Fusion outlines them in a darker
    shade of the window colour, which all but vanishes on a dark palette (and is faint on
    a light one)."""

    CHECKS = (
        QStyle.PrimitiveElement.PE_IndicatorCheckBox,
        QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck,
    )

    def drawPrimitive(  # Qt override
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        if element in self.CHECKS:
            paint_check_indicator(painter, option)
            return
        super().drawPrimitive(element, option, painter, widget)


def install_indicator_style(app: QApplication) -> None:
    """Wrap the application's style in ``IndicatorStyle`` when it is Fusion (the style of
    Linux desktops without a platform theme, and of ``--theme``); native styles draw their
    own check boxes from the platform's theme and are left alone."""
    current = app.style()
    if isinstance(current, IndicatorStyle) or current.name().lower() != "fusion":
        return
    app.setStyle(IndicatorStyle("Fusion"))


THEMES = ("system", "light", "dark")
# The style and palette the platform gave the application, to return to from a forced theme.
_PLATFORM: dict[str, object] = {}


def apply_theme(app: QApplication, name: str) -> str:
    """Switch the running application to ``name`` ("system", "light" or "dark") at once.

    A forced theme uses Fusion, whose drawing honours every palette role on every
    platform; "system" returns to the style and palette the platform gave at start.
    Widgets repaint from the new palette (their ``PaletteChange`` events restyle what
    they derive from it). Returns the theme applied (unknown names: "system").
    """
    if "style" not in _PLATFORM:
        _PLATFORM["style"] = app.style().name()
        _PLATFORM["palette"] = QPalette(app.palette())
    if name not in THEMES:
        name = "system"
    if name == "system":
        app.setStyle(str(_PLATFORM["style"]))
        install_indicator_style(app)
        palette = _PLATFORM["palette"]
        app.setPalette(palette if isinstance(palette, QPalette) else app.style().standardPalette())
    else:
        if app.style().name().lower() != "fusion":
            app.setStyle("Fusion")
        install_indicator_style(app)
        app.setPalette(dark_palette() if name == "dark" else app.style().standardPalette())
    return name
