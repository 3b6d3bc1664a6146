"""The window's size on the screen: the saved geometry and zoom brought back, a first
window fitted to the screen's available area, a fixed size for screenshots, and room made
for the agent dock beside the results."""

from __future__ import annotations

from PySide6.QtCore import QObject, QRect, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget, QMainWindow, QStyle

from memdesk.qt import preferences as prefs_mod
from memdesk.ui import agent_dock as agent_dock_mod
from memdesk.ui import panes as panes_mod

DEFAULT_SIZE = (1280, 800)


class WindowFit(QObject):
    """Sizes ``window`` and shares its panes; the window forwards its first show here."""

    def __init__(self, window: QMainWindow, panes: panes_mod.Panes) -> None:
        super().__init__(window)
        self._window = window
        self._panes = panes
        self._fitted = False
        self._fixed_size = False

    def restore(self, prefs: prefs_mod.Preferences) -> None:
        """Saved geometry and splitter; a first window fits the screen's available area."""
        window = self._window
        available = self.available_geometry()
        width, height = DEFAULT_SIZE
        if available is not None:
            # Leave room for the window manager's frame and title bar.
            title = window.style().pixelMetric(QStyle.PixelMetric.PM_TitleBarHeight) + 12
            width = min(width, available.width() - 8)
            height = min(height, available.height() - title)
        window.resize(width, height)
        geometry = prefs.geometry("geometry")
        if geometry is not None:
            window.restoreGeometry(geometry)
            if available is not None and (
                window.width() > available.width() or window.height() > available.height()
            ):
                window.resize(
                    min(window.width(), available.width()), min(window.height(), available.height())
                )
        splitter_state = prefs.geometry("splitter")
        if splitter_state is not None:
            self._panes.splitter.restoreState(splitter_state)
        else:
            self._panes.share_width(width)
        self.share_height(height)

    def share_height(self, height: int) -> None:
        window = self._window
        chrome = window.menuBar().sizeHint().height() + window.statusBar().sizeHint().height()
        self._panes.share_height(height - chrome)

    def set_size(self, width: int, height: int) -> None:
        """A fixed size (screenshots): no fitting to the screen, panes shared anew."""
        self._fitted = True
        self._fixed_size = True  # a fit already scheduled by the first show leaves it too
        self._window.resize(width, height)
        self._panes.share_width(width)
        self.share_height(height)

    def shown(self) -> None:
        """The window was shown: the first time, fit it once its frame is known."""
        if not self._fitted:
            self._fitted = True
            QTimer.singleShot(250, self.fit_to_screen)

    def fit_to_screen(self) -> None:
        """Keep the whole window, frame and title bar included, on the available screen."""
        window = self._window
        available = self.available_geometry()
        if available is None or window.isMaximized() or window.isFullScreen() or self._fixed_size:
            return
        frame = window.frameGeometry()
        extra_w, extra_h = frame.width() - window.width(), frame.height() - window.height()
        width = min(window.width(), available.width() - extra_w)
        height = min(window.height(), available.height() - extra_h)
        if (width, height) != (window.width(), window.height()):
            window.resize(width, height)
        frame = window.frameGeometry()
        x = min(max(frame.x(), available.x()), available.right() - frame.width() + 1)
        y = min(max(frame.y(), available.y()), available.bottom() - frame.height() + 1)
        if (x, y) != (frame.x(), frame.y()):
            window.move(x, y)

    def available_geometry(self) -> QRect | None:
        screen = self._window.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry() if screen is not None else None

    def dock_shown(self, dock: agent_dock_mod.AgentDock, visible: bool) -> None:
        """Beside the agent dock the results keep their columns and a readable snippet:
        the tree folds away first (Ctrl+P and its splitter handle still reach the notes;
        it comes back when the dock closes), then the dock narrows to what is left.

        Runs after the dock's own sizing (connected later), from the window's width: the
        splitter has not been laid out beside the dock yet."""
        window = self._window
        if not visible or dock.isFloating():
            self._panes.give_back_tree()
            return
        separator = window.style().pixelMetric(QStyle.PixelMetric.PM_DockWidgetSeparatorExtent, None, window)
        least = dock.minimumSizeHint().width()
        wanted = max(least, agent_dock_mod.DOCK_WIDTH)
        spare = self._panes.make_room_for_dock(
            window_width=window.width(), separator=separator, dock_wanted=wanted
        )
        if spare is not None:
            window.resizeDocks([dock], [max(least, min(wanted, spare))], Qt.Orientation.Horizontal)

    def history_shown(self, dock: QDockWidget, visible: bool) -> None:
        """Beside the History panel the tree (where its notes are picked) and the note
        (where a restore lands) stay usable: the Ranking column gives way first, then
        the panel narrows to what is left (see ``Panes.make_room_for_history``)."""
        window = self._window
        if not visible or dock.isFloating():
            self._panes.give_back_ranking()
            return
        separator = window.style().pixelMetric(QStyle.PixelMetric.PM_DockWidgetSeparatorExtent, None, window)
        least = dock.minimumSizeHint().width()
        wanted = max(least, dock.width())
        spare = self._panes.make_room_for_history(
            window_width=window.width(), separator=separator, dock_wanted=wanted
        )
        if spare is not None:
            window.resizeDocks([dock], [max(least, spare)], Qt.Orientation.Horizontal)
