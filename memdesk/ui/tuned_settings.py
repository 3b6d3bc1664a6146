"""The workspace's own search settings (``.memdesk/tuned.json``) behind the tuning panel.

Search settings belong to the workspace (beside its golden set): tuned on one workspace's
labels, they never follow the user into another workspace. A slider drag writes the file
once, when it stops; an unreadable file is left as it is and never overwritten.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal, Slot

from memdesk.core import errors
from memdesk.core.eval import tuned as eval_tuned
from memdesk.core.search import settings as settings_mod
from memdesk.qt import messages as qt_messages
from memdesk.qt import session as session_mod
from memdesk.ui import tuning_panel as tuning_mod

log = logging.getLogger(__name__)

TUNING_SAVE_MS = 400  # a slider drag writes the workspace's tuned.json once, when it stops


class TunedSettings(QObject):
    """Loads, shows and saves one workspace's tuned settings for the window's tuning panel.

    Signals:
        message(str, int): a status-bar line and how long it stays (ms).
    """

    message = Signal(str, int)

    def __init__(self, workspace: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tuning = eval_tuned.WorkspaceTuning()
        self._workspace = workspace
        self._writable = True
        self._problem: str | None = None
        self._applying: int | None = None  # the labelled queries of an auto-tune being applied
        self.save_timer = QTimer(self)
        self.save_timer.setObjectName("tuning-save-timer")
        self.save_timer.setSingleShot(True)
        self.save_timer.setInterval(TUNING_SAVE_MS)
        self.save_timer.timeout.connect(self.save)
        self.panel: tuning_mod.TuningPanel | None = None
        self.load(workspace)

    def make_panel(self, settings: settings_mod.SearchSettings) -> tuning_mod.TuningPanel:
        """The tuning panel showing ``settings``, each other profile with its own values."""
        panel = tuning_mod.TuningPanel(settings)
        for profile in settings_mod.CANONICAL_PROFILES:  # each profile comes back with its own values
            if profile != settings.profile:
                panel.remember_profile(self.tuning.settings(profile))
        self.panel = panel
        return panel

    def load(self, workspace: Path) -> None:
        self._workspace = workspace
        try:
            self.tuning = eval_tuned.load_tuning(workspace)
            self._writable, self._problem = True, None
        except errors.MemdeskError as exc:
            # Defaults for now; the unreadable file is left as it is, never overwritten.
            self.tuning = eval_tuned.WorkspaceTuning()
            self._writable, self._problem = False, qt_messages.text(exc)
            log.warning("%s", exc)

    def show(self) -> None:
        """Say beside the sliders what tuned them (or why the file could not be read)."""
        if self.panel is None:
            return
        if self._problem is not None:
            self.panel.show_tuned(None, problem=self._problem)
        else:
            self.panel.show_tuned(self.tuning.tuned_queries(self.panel.settings.profile))

    def expect_applied(self, queries: int | None) -> None:
        """The next settings recorded come from an auto-tune over ``queries`` labelled queries."""
        self._applying = queries

    def record(self, settings: settings_mod.SearchSettings) -> None:
        """The sliders moved: kept for this workspace, written once the drag stops."""
        queries, self._applying = self._applying, None
        tuning = self.tuning.with_settings(settings, tuned_queries=queries)
        if tuning != self.tuning:
            self.tuning = tuning
            self.save_timer.start()
        self.show()

    @Slot()
    def save(self) -> None:
        self.save_timer.stop()
        if not self._writable:
            return
        try:
            eval_tuned.save_tuning(self._workspace, self.tuning)
        except (errors.MemdeskError, OSError) as exc:
            self.message.emit(
                QCoreApplication.translate(
                    "MainWindow", "Cannot save this workspace's search settings: {0}"
                ).format(qt_messages.text(exc)),
                10_000,
            )

    def flush(self) -> None:
        """Write a pending change now (before quitting or switching workspaces)."""
        if self.save_timer.isActive():
            self.save()

    def use(self, session: session_mod.Session) -> None:
        """Show (and search with) the settings ``session``'s workspace keeps."""
        self.load(session.workspace)
        current = self.tuning.current()
        if self.panel is not None:
            self.panel.load_profiles(
                [self.tuning.settings(p) for p in settings_mod.CANONICAL_PROFILES], current
            )
        if session.settings != current:
            session.set_settings(current)
        self.show()
