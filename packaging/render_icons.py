"""Rasterise the app icon's SVG into the PNG sizes of the hicolor icon theme.

Run after editing ``resources/icons/hicolor/scalable/apps/memdesk.svg``:
``QT_QPA_PLATFORM=offscreen python packaging/render_icons.py``. Uses Qt's own SVG
renderer (QtSvg, part of PySide6), so it works offline with what setup installs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

HICOLOR = Path(__file__).resolve().parents[1] / "resources" / "icons" / "hicolor"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)


def render(svg: Path, size: int, out: Path) -> None:
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"render_icons: {svg} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(out), "PNG"):
        raise SystemExit(f"render_icons: cannot write {out}")


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    svg = HICOLOR / "scalable" / "apps" / "memdesk.svg"
    for size in SIZES:
        out = HICOLOR / f"{size}x{size}" / "apps" / "memdesk.png"
        render(svg, size, out)
        print(out.relative_to(HICOLOR.parents[2]))
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
