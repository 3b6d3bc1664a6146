"""The window's status line: the search mode and why it is not hybrid, the model, the
index's counts, the paths skipped, what the index is doing (with an ETA while it
embeds), the note being written, Undo of a move to the trash, the index progress and
its Cancel.

It follows the session it is attached to (``attach``): sync start, progress, the
model load, idle and each workspace snapshot. The window only wires it.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QTimer, Signal, Slot
from PySide6.QtWidgets import QLabel, QPushButton, QStatusBar, QToolButton, QWidget

from memdesk.core import engine as engine_mod
from memdesk.core.embed.openclaw_recipe import OverContext
from memdesk.core.search import pool as search_pool
from memdesk.core.search import profiles
from memdesk.qt import messages as qt_messages
from memdesk.qt import session as session_mod
from memdesk.qt import workers
from memdesk.qt.translations import QT_TRANSLATE_NOOP
from memdesk.ui import fitted_label
from memdesk.ui import skipped as skipped_mod

MODE_LABELS = {  # translated where shown (mode_name)
    "hybrid": QT_TRANSLATE_NOOP("StatusBar", "Hybrid"),
    "fts": QT_TRANSLATE_NOOP("StatusBar", "FTS-only"),
    "vector": QT_TRANSLATE_NOOP("StatusBar", "Vector-only"),
    # An OpenClaw profile whose own index holds nothing (its release's reindex fails):
    # no leg searches anything, as the agent finds nothing.
    "none": QT_TRANSLATE_NOOP("StatusBar", "No search"),
}
MODE_REASON_EMS = 24  # room for the reason beside the mode, in widths of "M"
UNDO_MS = 30_000  # how long the status bar offers to undo a move to the trash
WRITE_SHOWN_AFTER_MS = 300  # a note write shows only when it takes longer (no flicker)


def _layout(name: str) -> str:
    """An OpenClaw profile as the user knows it (its release, "2026.4"), else its name."""
    try:
        return profiles.get(name).openclaw_layout or name
    except ValueError:
        return name


def mode_name(mode: str) -> str:
    """A search mode ("hybrid", "fts", "vector") as the user reads it."""
    return QCoreApplication.translate("StatusBar", MODE_LABELS.get(mode, mode))


class EtaEstimate:
    """Time left of the embedding phase from its rate so far (None until it is steady)."""

    MIN_SECONDS = 3.0  # a rate over less than this jumps around too much to show

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._start: tuple[float, int] | None = None

    def seconds_left(self, done: int, total: int) -> float | None:
        now = time.monotonic()
        if self._start is None or done < self._start[1]:
            self._start = (now, done)
            return None
        elapsed, progressed = now - self._start[0], done - self._start[1]
        if elapsed < self.MIN_SECONDS or progressed <= 0:
            return None
        return (total - done) * elapsed / progressed


class StatusBar(QStatusBar):
    """The status line of one window (see the module docstring).

    Signals:
        cancel_requested(): Cancel beside the index progress was clicked.
        undo_requested(): Undo of the last move to the trash was clicked.
    """

    cancel_requested = Signal()
    undo_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session: session_mod.Session | None = None
        self.mode_label = QLabel()
        self.mode_label.setObjectName("modeLabel")
        self.model_label = QLabel()
        self.model_label.setObjectName("modelLabel")
        self.counts_label = QLabel()
        self.counts_label.setObjectName("countsLabel")
        # "N skipped": notes the index could not take; a click lists each with its reason.
        self.skipped_button = QToolButton()
        self.skipped_button.setObjectName("skippedButton")
        self.skipped_button.setAutoRaise(True)
        self.skipped_button.setToolTip(self.tr("Paths not in the index, and why: click for the list"))
        self.skipped_button.setVisible(False)
        self.skipped_button.clicked.connect(self.show_skipped)
        self.skipped_dialog: skipped_mod.SkippedDialog | None = None
        self._skipped_rows: list[skipped_mod.Row] = []
        # What the index is doing now; shortened by whole parts, never mid-word.
        self.freshness_label = fitted_label.FittedLabel()
        self.freshness_label.setObjectName("freshnessLabel")
        self._eta = EtaEstimate()
        # The index's own mode (from the last snapshot) and whether a sync is embedding
        # now: meanwhile searches run keyword-only, so the label must not say "Hybrid".
        self._index_mode: tuple[str, str | None] = ("fts", None)
        self._embedding_notes = False
        # How far each OpenClaw profile's own index is built (percent), while it is.
        self._profile_share: dict[str, int] = {}
        # The note being written, once the write has taken longer than a blink.
        self.write_label = QLabel()
        self.write_label.setObjectName("noteWriteLabel")
        self.write_label.setVisible(False)
        self._write_timer = QTimer(self)
        self._write_timer.setObjectName("note-write-shown-timer")
        self._write_timer.setSingleShot(True)
        self._write_timer.setInterval(WRITE_SHOWN_AFTER_MS)
        self._write_timer.timeout.connect(self._on_write_timer_timeout)
        self.progress = fitted_label.TextProgressBar()
        self.progress.setObjectName("indexProgress")
        self.progress.setTextVisible(True)
        self.progress.setVisible(False)
        self.undo_button = QPushButton(self.tr("Undo"))
        self.undo_button.setObjectName("undoDeleteButton")
        self.undo_button.setVisible(False)
        self.undo_button.clicked.connect(self.undo_requested)
        self._undo_timer = QTimer(self)
        self._undo_timer.setObjectName("undo-delete-timer")
        self._undo_timer.setSingleShot(True)
        self._undo_timer.setInterval(UNDO_MS)
        # The Edit menu's entry stays until the next delete; the button goes.
        self._undo_timer.timeout.connect(lambda: self.undo_button.setVisible(False))
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setObjectName("cancelIndexButton")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel_requested)
        for widget in (self.mode_label, self.model_label, self.counts_label, self.skipped_button):
            self.addWidget(widget)
        self.addWidget(self.freshness_label, 1)
        self.messageChanged.connect(self._show_skipped_button)
        self.addPermanentWidget(self.write_label)
        self.addPermanentWidget(self.undo_button)
        self.addPermanentWidget(self.progress)
        self.addPermanentWidget(self.cancel_button)

    def attach(self, session: session_mod.Session) -> None:
        """Follow ``session`` (a newly opened workspace's) from now on."""
        self._session = session
        session.sync_started.connect(self._on_session_sync_started)
        session.sync_progress.connect(self._on_session_sync_progress)
        session.model_loading_changed.connect(self._on_session_model_loading_changed)
        session.sync_finished.connect(self._on_session_sync_finished)
        session.idle_changed.connect(self._on_session_idle_changed)
        session.snapshot_changed.connect(self._on_session_snapshot_changed)
        session.profile_index_progress.connect(self._on_session_profile_index_progress)
        session.profile_index_finished.connect(self._on_session_profile_index_finished)
        self._index_mode = (session.engine.mode, None)
        self._embedding_notes = False
        self._profile_share = {}
        self.show_index_mode()

    # note writes and Undo --------------------------------------------------------------
    @Slot(str)
    def show_write(self, label: str) -> None:
        """The note write under way ("" when none is): shown once it takes a while."""
        self.write_label.setText(label)
        if not label:
            self._write_timer.stop()
            self.write_label.setVisible(False)
        elif not self.write_label.isVisible() and not self._write_timer.isActive():
            self._write_timer.start()

    @Slot()
    def _on_write_timer_timeout(self) -> None:
        self.write_label.setVisible(bool(self.write_label.text()))

    def offer_undo(self, on: bool) -> None:
        """Show Undo of a move to the trash for ``UNDO_MS`` (or take it away)."""
        self.undo_button.setVisible(on)
        if on:
            self._undo_timer.start()
        else:
            self._undo_timer.stop()

    # the index ---------------------------------------------------------------------------
    @Slot()
    def _on_session_sync_started(self) -> None:
        if self._stale():
            return
        self.progress.setRange(0, 0)  # busy until the first file reports a total
        self.progress.set_text(self.tr("Indexing…"))
        self.progress.setVisible(True)
        self.cancel_button.setVisible(True)
        self._eta.reset()
        self.freshness_label.set_full_text(self.tr("Indexing…"))

    @Slot(object)
    def _on_session_sync_progress(self, progress: engine_mod.SyncProgress) -> None:
        if self._stale():
            return
        embedding = progress.phase == "embed" and progress.embedded < progress.to_embed
        if embedding != self._embedding_notes:
            self._embedding_notes = embedding
            self.show_index_mode()
        if progress.phase == "embed" and progress.to_embed > 0:
            self.progress.setRange(0, progress.to_embed)
            self.progress.setValue(progress.embedded)
            self.progress.set_text(
                self.tr("{0} / {1} chunks").format(f"{progress.embedded:,}", f"{progress.to_embed:,}")
            )
            parts = [
                self.tr("Embedding {0} / {1} chunks").format(
                    f"{progress.embedded:,}", f"{progress.to_embed:,}"
                ),
                self.tr("keyword search ready"),
            ]
            left = self._eta.seconds_left(progress.embedded, progress.to_embed)
            if left is not None:
                parts.append(self.eta_text(left))
            self.freshness_label.set_full_text(" · ".join(parts))
        elif progress.phase == "windows" and progress.to_embed > 0:
            # Every chunk has its vector: search is hybrid already, this only sharpens
            # the scores of line-per-item notes, so the line says so and no more.
            share = progress.embedded * 100 // progress.to_embed
            self.progress.setRange(0, progress.to_embed)
            self.progress.setValue(progress.embedded)
            self.progress.set_text(f"{share} %")
            self.freshness_label.set_full_text(self.tr("Refining passages · {0} %").format(share))
        elif progress.phase == "keyword":
            self.freshness_label.set_full_text(
                " · ".join([self.tr("Keyword search ready"), self.tr("embedding next")])
            )
        elif progress.files_total > 0:
            self.progress.setRange(0, progress.files_total)
            self.progress.setValue(progress.files_done)
            self.progress.set_text(
                self.tr("{0} / {1} files").format(f"{progress.files_done:,}", f"{progress.files_total:,}")
            )
            self.freshness_label.set_full_text(
                self.tr("Indexing {0} / {1} files · {2} chunks").format(
                    f"{progress.files_done:,}", f"{progress.files_total:,}", f"{progress.chunks_done:,}"
                )
            )

    @Slot(str, int, int)
    def _on_session_profile_index_progress(self, name: str, done: int, total: int) -> None:
        """An OpenClaw profile's own index, built in the background after the main one."""
        if self._stale():
            return
        share = 100 * done // total if total > 0 else 100
        self._profile_share[name] = share
        self.show_index_mode()  # the profile in use may be keyword-only until it is done
        if self._syncing():
            return
        layout = _layout(name)
        self.freshness_label.set_full_text(self.tr("Indexing for OpenClaw {0} · {1} %").format(layout, share))

    @Slot(str)
    def _on_session_profile_index_finished(self, name: str) -> None:
        """That profile's index is built ("": the job ended, every profile's is done)."""
        if self._stale():
            return
        if name:
            self._profile_share.pop(name, None)
        else:
            self._profile_share.clear()
        self.show_index_mode()

    def _profile_building(self) -> tuple[str, int] | None:
        """The profile in use and how far its own index is built (percent), while its
        searches are keyword-only for it (``Engine.preparing``), else None."""
        session = self._session
        if session is None:
            return None
        try:
            name = profiles.get(session.settings.profile).name
            building = session.engine.preparing(name)
        except ValueError:
            return None
        return (name, self._profile_share.get(name, 0)) if building else None

    def eta_text(self, seconds: float) -> str:
        if seconds >= 90:
            return self.tr("about {0} min left").format(round(seconds / 60))
        if seconds >= 10:
            return self.tr("about {0} s left").format(int(round(seconds / 10) * 10))
        return self.tr("a few seconds left")

    @Slot(bool)
    def _on_session_model_loading_changed(self, loading: bool) -> None:
        if self._stale():
            return
        if loading and not self._syncing():
            self.freshness_label.set_full_text(
                " · ".join([self.tr("Loading the embedding model"), self.tr("keyword search ready")])
            )

    @Slot(object)
    def _on_session_sync_finished(self, report: engine_mod.SyncReport) -> None:
        if self._stale():
            return
        if report.repaired:
            self.showMessage(
                self.tr("The index was damaged ({0}); rebuilt it from the notes").format(report.repaired),
                30_000,
            )

    def show_sync_cancelled(self) -> None:
        self.showMessage(self.tr("Indexing cancelled"), 5000)

    @Slot(bool)
    def _on_session_idle_changed(self, idle: bool) -> None:
        if self._stale():
            return
        self.progress.setVisible(not idle)
        self.cancel_button.setVisible(not idle)
        if idle and self._embedding_notes:  # a cancelled or failed sync ends its embedding too
            self._embedding_notes = False
            self.show_index_mode()

    @Slot(object)
    def _on_session_snapshot_changed(self, snapshot: workers.WorkspaceSnapshot) -> None:
        if self._stale():
            return
        if snapshot.error is not None:
            self.freshness_label.set_full_text(self.tr("status unavailable: {0}").format(snapshot.error))
            return
        status = snapshot.status
        if status is None:
            return
        reason = status.fallback_reason
        self._index_mode = (status.mode, reason or None)  # translated where shown (also after a switch)
        self.show_index_mode()
        model = status.embedder.get("model") if status.embedder else None
        self.model_label.setText(self.tr("model: {0}").format(model) if model else self.tr("model: none"))
        self.model_label.setToolTip(
            str(status.embedder or "") or qt_messages.text(status.fallback_reason or "")
        )
        self.counts_label.setText(
            self.tr("{0} files · {1} chunks").format(f"{status.files:,}", f"{status.chunks:,}")
        )
        self._set_skipped(skipped_mod.rows_of(status.failures, status.skipped))
        if self._syncing() or self._indexing_profiles():
            return  # the sync's (or the profile index's) own progress line is showing what happens
        if self._loading_model():
            fresh = " · ".join([self.tr("Loading the embedding model"), self.tr("keyword search ready")])
        elif status.dirty_files:
            fresh = self.tr("{0} file(s) not indexed yet").format(len(status.dirty_files))
        else:
            when = status.last_sync.astimezone().strftime("%H:%M:%S") if status.last_sync else ""
            fresh = self.tr("index up to date ({0})").format(when) if when else self.tr("index up to date")
        self.freshness_label.set_full_text(fresh)

    def _stale(self) -> bool:
        """The signal comes from a workspace left since (its jobs report after the
        switch: a cancelled sync's "Indexing cancelled" and idle were the new one's)."""
        sender = self.sender()
        return sender is not None and sender is not self._session

    def _syncing(self) -> bool:
        return self._session is not None and self._session.is_syncing

    def _indexing_profiles(self) -> bool:
        return self._session is not None and self._session.is_indexing_profiles

    def _loading_model(self) -> bool:
        return self._session is not None and self._session.is_loading_model

    # the search mode -----------------------------------------------------------------------
    def show_index_mode(self) -> None:
        """The index's mode, said again (after a language switch too)."""
        mode, reason = self._index_mode
        # The index has vectors, but until the model is loaded, and while a sync holds
        # the embedder, searches are keyword-only (the summary line says so too).
        if mode == "hybrid" and self._loading_model():
            self.show_mode("fts", self.tr("loading the embedding model"))
        elif mode == "hybrid" and self._embedding_notes:
            self.show_mode("fts", self.tr("embedding notes"))
        elif mode == "hybrid" and (building := self._profile_building()) is not None:
            # An OpenClaw profile's searches run keyword-only until its own index (its
            # own chunks, its own vectors) is built in the background: "Hybrid" was untrue.
            name, share = building
            self.show_mode("fts", self.tr("OpenClaw {0} index {1} %").format(_layout(name), share))
            self.mode_label.setToolTip(
                self.tr(
                    "Searches with the OpenClaw {0} profile are keyword-only until its own index "
                    "is ready: {1} % built"
                ).format(_layout(name), share)
            )
        elif mode != "fts" and (failed := self._profile_failed()) is not None:
            # That release's reindex fails on this workspace (a chunk over the model's
            # context): its index is empty and its searches find nothing, as the agent's.
            name, failure = failed
            # Short enough to be read whole beside the mode; the tooltip says why.
            self.show_mode("none", self.tr("OpenClaw {0} cannot index").format(_layout(name)))
            notice = search_pool.reindex_fails_notice(_layout(name), failure)
            self.mode_label.setToolTip(qt_messages.text(notice))
        else:
            self.show_mode(mode, qt_messages.text(reason) if reason else None)

    def _profile_failed(self) -> tuple[str, OverContext] | None:
        """The profile in use and why its own index holds nothing, when it does."""
        session = self._session
        if session is None:
            return None
        try:
            name = profiles.get(session.settings.profile).name
        except ValueError:
            return None
        failure = session.engine.profile_failure(name)
        return (name, failure) if failure is not None else None

    def show_mode(self, mode: str, reason: str | None) -> None:
        """The search mode, and why it is not hybrid, shortened by whole words (the
        tooltip has the whole reason)."""
        name = mode_name(mode)
        self.mode_label.setToolTip(reason or self.tr("keyword and vector search combined"))
        if not reason:
            self.mode_label.setText(name)
            return
        metrics = self.mode_label.fontMetrics()
        room = MODE_REASON_EMS * metrics.horizontalAdvance("M")
        shown = fitted_label.fit_text(reason, room, metrics) or fitted_label.ELLIPSIS
        self.mode_label.setText(f"{name} ({shown})")

    # skipped paths -----------------------------------------------------------------------
    def _set_skipped(self, rows: list[skipped_mod.Row]) -> None:
        self._skipped_rows = rows
        self.skipped_button.setText(self.tr("{0} skipped").format(len(rows)))
        self._show_skipped_button()
        if self.skipped_dialog is not None:
            self.skipped_dialog.set_rows(rows)

    @Slot()
    def _show_skipped_button(self) -> None:
        # The status bar hides its widgets under a message ("changes made on disk were
        # merged"); showing the button then drew it over the message's first words.
        # It comes back when the message goes (messageChanged to "").
        self.skipped_button.setVisible(bool(self._skipped_rows) and not self.currentMessage())

    def show_skipped(self) -> skipped_mod.SkippedDialog:
        """The list of skipped paths with their reasons (kept up to date while open)."""
        if self.skipped_dialog is None:
            self.skipped_dialog = skipped_mod.SkippedDialog(self.window())
        self.skipped_dialog.set_rows(self._skipped_rows)
        self.skipped_dialog.open()
        return self.skipped_dialog
