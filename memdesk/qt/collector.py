"""The cyclic garbage collector runs on the GUI thread only, between events.

Python's collector runs in whichever thread happens to allocate past its threshold, in
the middle of whatever that thread is doing. In memdesk that is mostly the indexer's
or the reader's thread, and a cycle it frees may hold Qt wrappers (a delegate's option,
a QTextDocument, a timer, an event loop) whose C++ objects then die on a thread that
does not own them while the GUI thread paints with them: a segfault in a delegate's
``paint`` was caught that way in a test run, with the reader thread scanning the
workspace beside it. The remedy PyQt and PySide applications use (pyqtgraph's
``GarbageCollector``): switch automatic collection off and collect from a timer on the
GUI thread, the same generations the automatic collector would have, at a point where
no Qt call is under way. Reference counting still frees everything not in a cycle at
once, on any thread.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

INTERVAL_MS = 500
"""How often the GUI thread looks at the collector's counts. A generation is collected
only once its count has passed its threshold, as the automatic collector does."""

_installed: GuiThreadCollector | None = None


class GuiThreadCollector(QObject):
    """Collects on the GUI thread every ``INTERVAL_MS`` when a generation is due."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(INTERVAL_MS)
        self._timer.timeout.connect(self.collect_due)
        gc.disable()
        self._timer.start()

    def collect_due(self) -> int:
        """Collect the oldest generation whose count has passed its threshold (with the
        younger ones); the number of unreachable objects found."""
        counts = gc.get_count()
        thresholds = gc.get_threshold()
        due = [
            generation
            for generation in range(3)
            if thresholds[generation] and counts[generation] > thresholds[generation]
        ]
        return gc.collect(max(due)) if due else 0


def install() -> GuiThreadCollector | None:
    """Collect on the GUI thread from now on (once per application; None without one)."""
    global _installed
    app = QCoreApplication.instance()
    if app is None:
        return None
    try:
        current = _installed is not None and _installed.parent() is app
    except RuntimeError:  # its application was destroyed with it
        current = False
    if not current:
        _installed = GuiThreadCollector(app)
    return _installed
