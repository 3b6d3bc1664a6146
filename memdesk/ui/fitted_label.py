"""Status-bar widgets whose text is never clipped: a label that shortens its text to the
space it has (never mid-word), and a progress bar as wide as its text."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QProgressBar, QSizePolicy, QWidget

SEPARATOR = " · "
ELLIPSIS = "…"


def fit_text(text: str, width: int, metrics: QFontMetrics) -> str:
    """``text`` if it fits in ``width`` pixels; else drop trailing `` · `` parts, then
    trailing words (marked with "…"); "" when not even the first word fits."""

    def fits(candidate: str) -> bool:
        return metrics.horizontalAdvance(candidate) <= width

    if fits(text):
        return text
    parts = text.split(SEPARATOR)
    while len(parts) > 1:
        parts.pop()
        candidate = SEPARATOR.join(parts) + ELLIPSIS
        if fits(candidate):
            return candidate
    words = parts[0].split(" ")
    while len(words) > 1:
        words.pop()
        candidate = " ".join(words) + ELLIPSIS
        if fits(candidate):
            return candidate
    return ""


class FittedLabel(QLabel):
    """Shows as much of its full text as fits, in whole parts or words; the tooltip has it all."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        # Let the status bar give it less than the whole text: it shortens itself.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(0)

    def full_text(self) -> str:
        return self._full

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self._refit()

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(self.fontMetrics().horizontalAdvance(self._full) + 8, hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._refit()

    def _refit(self) -> None:
        shown = fit_text(self._full, max(0, self.contentsRect().width()), self.fontMetrics())
        if shown != self.text():
            self.setText(shown)


class TextProgressBar(QProgressBar):
    """A progress bar at least as wide as its text ("1,234 / 12,345 chunks"): Qt sizes a
    bar for "100%", so a longer format was clipped or wrapped inside it."""

    PADDING = 32  # the style's frame and the text's margins on either side

    def set_text(self, text: str) -> None:
        if text != self.format():
            self.setFormat(text)
            self.updateGeometry()

    def _text_width(self) -> int:
        return self.fontMetrics().horizontalAdvance(self.text()) + self.PADDING

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(max(hint.width(), self._text_width()), hint.height())

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(max(hint.width(), self._text_width()), hint.height())
