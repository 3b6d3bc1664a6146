"""The app's own icon, from the hicolor PNG sizes and SVG in ``resources/icons``."""

from __future__ import annotations

from PySide6.QtGui import QIcon

from memdesk.core import paths

DESKTOP_ID = paths.DESKTOP_ID


def app_icon() -> QIcon:
    """memdesk's icon in every size it ships (the window manager and taskbar pick one)."""
    hicolor = paths.resource_dir() / "icons" / "hicolor"
    icon = QIcon()
    for png in sorted(hicolor.glob(f"*/apps/{paths.ICON_NAME}.png")):
        icon.addFile(str(png))
    return icon
