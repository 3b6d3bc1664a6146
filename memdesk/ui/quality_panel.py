"""Quality readout: nDCG@10 and Recall@10 of the current settings over the workspace's
golden set, live as the sliders move, and auto-tune with an explicit Apply."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal, SignalInstance, Slot
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memdesk.core import errors
from memdesk.core.eval import golden as eval_golden
from memdesk.core.eval import tune as eval_tune
from memdesk.core.search import settings as settings_mod
from memdesk.qt import golden as golden_mod
from memdesk.qt import messages

FEW_QUERIES = 10  # below this many labelled queries a tuned result rarely generalises
UP, DOWN = "#2f8132", "#b3261e"


def _metric(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def describe_changes(before: settings_mod.SearchSettings, result: eval_tune.TuneResult) -> list[str]:
    """One line per tuned setting that differs, e.g. ``Vector weight 0.50 → 0.30``."""
    lines = []
    for change in result.changes(before):
        field = settings_mod.FIELDS[change.name]
        fmt = (lambda v: f"{int(v)}") if field.integer else (lambda v: f"{float(v):.2f}")
        # The label is the core's English; the tuning panel's markers catalogue it.
        label = QCoreApplication.translate("SearchSettings", field.label)
        lines.append(f"{label} {fmt(change.old)} → {fmt(change.new)}")
    return lines


class QualityPanel(QWidget):
    """The right column's quality readout over a ``golden.TuningLab``.

    Signals:
        apply_requested(object): the user accepted auto-tune's ``SearchSettings``.
    """

    apply_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("qualityPanel")
        self._lab: golden_mod.TuningLab | None = None
        self._last: tuple[tuple[int, int, int], float] | None = None
        self._result: eval_tune.TuneResult | None = None
        self._tuned_from: settings_mod.SearchSettings | None = None
        # The labelled queries the settings last applied were tuned on (the window keeps
        # that count beside them in the workspace).
        self.applied_queries = 0

        self.ndcg_value = self._big_label("ndcgValue")
        self.recall_value = self._big_label("recallValue")
        self.ndcg_delta = QLabel("")
        self.ndcg_delta.setObjectName("ndcgDelta")
        ndcg_caption = QLabel("nDCG@10")
        ndcg_caption.setToolTip(
            self.tr(
                "Normalised discounted cumulative gain of the top 10, averaged "
                "over the labelled queries (1 = every relevant hit on top)"
            )
        )
        recall_caption = QLabel("Recall@10")
        recall_caption.setToolTip(self.tr("Share of each query's labelled items found in its top 10"))
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(0)
        grid.addWidget(ndcg_caption, 0, 0)
        grid.addWidget(recall_caption, 0, 1)
        ndcg_row = QHBoxLayout()
        ndcg_row.setSpacing(6)
        ndcg_row.addWidget(self.ndcg_value)
        ndcg_row.addWidget(self.ndcg_delta, 0, Qt.AlignmentFlag.AlignBottom)
        ndcg_row.addStretch(1)
        grid.addLayout(ndcg_row, 1, 0)
        grid.addWidget(self.recall_value, 1, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)

        self.count_label = QLabel("")
        self.count_label.setObjectName("goldenCountLabel")
        self.count_label.setWordWrap(True)
        self.status = QLabel("")
        self.status.setObjectName("qualityStatus")
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: palette(mid);")

        self.tune_button = QPushButton(self.tr("Auto-tune"))
        self.tune_button.setObjectName("autoTuneButton")
        self.tune_button.setToolTip(
            self.tr(
                "Search vector weight, MMR λ and half-life for the best mean "
                "nDCG@10 on the labelled queries (runs in the background; "
                "nothing changes until you apply it)"
            )
        )
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setObjectName("cancelTuneButton")
        self.cancel_button.setVisible(False)
        self.progress = QProgressBar()
        self.progress.setObjectName("tuneProgress")
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(10)
        self.progress.setVisible(False)
        tune_row = QHBoxLayout()
        tune_row.addWidget(self.tune_button)
        tune_row.addWidget(self.cancel_button)
        tune_row.addWidget(self.progress, 1)

        self.result_box = QWidget()
        self.result_box.setObjectName("tuneResult")
        self.result_label = QLabel("")
        self.result_label.setObjectName("tuneResultLabel")
        self.result_label.setWordWrap(True)
        self.result_label.setTextFormat(Qt.TextFormat.RichText)
        self.warning_label = QLabel("")
        self.warning_label.setObjectName("tuneWarning")
        self.warning_label.setWordWrap(True)
        self.tune_table = QTableWidget(0, 4)
        self.tune_table.setObjectName("tuneTable")
        self.tune_table.setHorizontalHeaderLabels(
            [self.tr("Query"), self.tr("Before"), self.tr("After"), "Δ"]
        )
        self.tune_table.verticalHeader().setVisible(False)
        self.tune_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tune_table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.tune_table.setWordWrap(False)
        self.tune_table.setToolTip(
            self.tr("nDCG@10 of each labelled query before and after the proposed settings")
        )
        header = self.tune_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tune_table.setMaximumHeight(180)
        self.apply_button = QPushButton(self.tr("Apply"))
        self.apply_button.setObjectName("applyTuneButton")
        self.apply_button.setToolTip(self.tr("Move the sliders to the proposed settings"))
        self.discard_button = QPushButton(self.tr("Discard"))
        self.discard_button.setObjectName("discardTuneButton")
        result_buttons = QHBoxLayout()
        result_buttons.setContentsMargins(0, 0, 0, 0)
        result_buttons.addWidget(self.apply_button)
        result_buttons.addWidget(self.discard_button)
        result_buttons.addStretch(1)
        result_layout = QVBoxLayout(self.result_box)
        result_layout.setContentsMargins(0, 4, 0, 0)
        result_layout.addWidget(self.result_label)
        result_layout.addWidget(self.warning_label)
        result_layout.addWidget(self.tune_table)
        result_layout.addLayout(result_buttons)
        self.result_box.setVisible(False)

        heading = self.tr("Retrieval quality")
        title = QLabel(f"<b>{heading}</b>")  # styled like the Ranking section above
        title.setToolTip(self.tr("Your settings measured on the queries you labelled"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        layout.addWidget(title)
        layout.addLayout(grid)
        layout.addWidget(self.count_label)
        layout.addWidget(self.status)
        layout.addLayout(tune_row)
        layout.addWidget(self.result_box)

        self.tune_button.clicked.connect(self._on_tune_button_clicked)
        self.cancel_button.clicked.connect(self._on_cancel_button_clicked)
        self.apply_button.clicked.connect(self._on_apply_button_clicked)
        self.discard_button.clicked.connect(self._on_discard_button_clicked)
        self._show_readout(None)

    @staticmethod
    def _big_label(name: str) -> QLabel:
        label = QLabel("—")
        label.setObjectName(name)
        font = label.font()
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        label.setFont(font)
        return label

    # wiring ----------------------------------------------------------------------------
    @property
    def lab(self) -> golden_mod.TuningLab | None:
        return self._lab

    @property
    def result(self) -> eval_tune.TuneResult | None:
        """The auto-tune proposal on show (None when there is none)."""
        return self._result

    def set_lab(self, lab: golden_mod.TuningLab) -> None:
        """Show ``lab`` (a new one per opened workspace)."""
        if self._lab is not None:
            for signal, slot in self._connections(self._lab):
                signal.disconnect(slot)
        self._lab = lab
        for signal, slot in self._connections(lab):
            signal.connect(slot)
        self._last = None
        self._clear_result()
        self._set_tuning(lab.is_tuning)
        self._show_readout(lab.readout)

    def _connections(self, lab: golden_mod.TuningLab) -> list[tuple[SignalInstance, Callable[..., None]]]:
        return [
            (lab.readout_changed, self._on_lab_readout_changed),
            (lab.tune_started, self._on_lab_tune_started),
            (lab.tune_progress, self._on_lab_tune_progress),
            (lab.tune_finished, self._on_lab_tune_finished),
            (lab.tune_failed, self._on_lab_tune_failed),
        ]

    # readout ---------------------------------------------------------------------------
    def _show_readout(self, readout: golden_mod.Readout | None) -> None:
        scores = readout.scores if readout else None
        self.ndcg_value.setText(_metric(scores.ndcg10 if scores else None))
        self.recall_value.setText(_metric(scores.recall10 if scores else None))
        self._show_delta(readout)
        if readout is None or readout.labelled == 0:
            self.count_label.setText(
                self.tr(
                    "No labelled queries yet. Tick ✓ beside the hits that answer a query to build a golden set."
                )
            )
        else:
            self.count_label.setText(
                (
                    self.tr("{0} labelled query · {1} relevant items")
                    if readout.labelled == 1
                    else self.tr("{0} labelled queries · {1} relevant items")
                ).format(readout.labelled, readout.items)
            )
        self.count_label.setToolTip(self.tr("Saved in the workspace as {0}").format(eval_golden.GOLDEN_REL))
        self.status.setText(self._status_text(readout))
        can_tune = (
            readout is not None and readout.scored > 0 and self._lab is not None and not self._lab.is_tuning
        )
        self.tune_button.setEnabled(can_tune)
        if (
            self._result is not None
            and readout is not None
            and readout.settings.profile != self._result.settings.profile
        ):
            self._clear_result()  # tuned for another profile's pools

    @staticmethod
    def _status_text(readout: golden_mod.Readout | None) -> str:
        if readout is None:
            return ""
        parts = []
        if readout.error:
            parts.append(readout.error)
        if readout.lost:
            parts.append(
                QCoreApplication.translate(
                    "QualityPanel",
                    "⚠ {0} label(s) lost their text (edited away): {1}; tick the hits again or untick them",
                ).format(len(readout.lost), ", ".join(readout.lost[:3]))
            )
        if readout.fetching:
            parts.append(
                (
                    QCoreApplication.translate("QualityPanel", "fetching candidates for {0} query…")
                    if readout.fetching == 1
                    else QCoreApplication.translate("QualityPanel", "fetching candidates for {0} queries…")
                ).format(readout.fetching)
            )
        elif readout.labelled and readout.scored < readout.labelled:
            parts.append(
                QCoreApplication.translate("QualityPanel", "scored on {0} of {1} queries").format(
                    readout.scored, readout.labelled
                )
            )
        elif readout.scored:
            parts.append(
                QCoreApplication.translate(
                    "QualityPanel", "live: re-ranked from cached candidates as you tune"
                )
            )
        settings = readout.settings
        if readout.scored and (settings.max_results < 10 or settings.min_score > 0):
            parts.append(
                QCoreApplication.translate(
                    "QualityPanel", "as the agent sees it: at most {0} results, min score {1}"
                ).format(settings.max_results, f"{settings.min_score:.2f}")
            )
        return " · ".join(parts)

    def _show_delta(self, readout: golden_mod.Readout | None) -> None:
        if readout is None or readout.scores is None:
            self._last = None
            self.ndcg_delta.setText("")
            return
        key = (readout.labelled, readout.items, readout.scored)
        value = readout.scores.ndcg10
        if self._last is not None and self._last[0] == key:
            diff = value - self._last[1]
            if abs(diff) >= 0.0005:
                up = diff > 0
                self.ndcg_delta.setText(f"{'▲' if up else '▼'} {abs(diff):.3f}")
                self.ndcg_delta.setStyleSheet(f"color: {UP if up else DOWN};")
                self.ndcg_delta.setToolTip(self.tr("Change from the previous setting"))
        else:
            self.ndcg_delta.setText("")
        self._last = (key, value)

    @Slot(object)
    def _on_lab_readout_changed(self, readout: golden_mod.Readout) -> None:
        self._show_readout(readout)

    # auto-tune -------------------------------------------------------------------------
    def _set_tuning(self, running: bool) -> None:
        # The keyboard stays in the panel: the disabled Auto-tune button handed its focus
        # to the next widget in the window (the notes' filter box). While tuning it is on
        # Cancel, afterwards on Apply (or Auto-tune when there is nothing to apply).
        focused = self.tune_button.hasFocus() or self.cancel_button.hasFocus()
        self.cancel_button.setVisible(running)
        self.progress.setVisible(running)
        if running and focused:
            self.cancel_button.setFocus()
        self.tune_button.setEnabled(
            not running
            and self._lab is not None
            and self._lab.readout is not None
            and self._lab.readout.scored > 0
        )
        if not running and focused and self.tune_button.isEnabled():
            self.tune_button.setFocus()

    def _clear_result(self) -> None:
        self._result = None
        self._tuned_from = None
        self.result_box.setVisible(False)

    @Slot()
    def _on_tune_button_clicked(self) -> None:
        if self._lab is not None:
            self._tuned_from = self._lab.settings
            self._lab.start_tune()

    @Slot()
    def _on_cancel_button_clicked(self) -> None:
        if self._lab is not None:
            self._lab.cancel_tune()

    @Slot()
    def _on_lab_tune_started(self) -> None:
        self._clear_result()
        if self._lab is not None:
            self._tuned_from = self._lab.settings
        self.progress.setRange(0, 0)
        self._set_tuning(True)

    @Slot(int, int)
    def _on_lab_tune_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress.setToolTip(self.tr("{0} of {1} settings tried").format(done, total))

    @Slot(object)
    def _on_lab_tune_finished(self, result: eval_tune.TuneResult) -> None:
        self._set_tuning(False)
        self._result = result
        before, after = result.before.ndcg10, result.after.ndcg10
        changes = describe_changes(self._tuned_from or result.settings, result)
        tried = self.tr("{0} settings tried").format(result.tried)  # lupdate skips f-strings
        head = (
            f"<b>nDCG@10 {before:.3f} → {after:.3f}</b> "
            f"<span style='color:{UP if after > before else 'palette(mid)'}'>"
            f"({after - before:+.3f})</span><br>"
            f"Recall@10 {result.before.recall10:.3f} → {result.after.recall10:.3f}<br>"
            f"<span style='color:palette(mid)'>{tried}</span>"
        )
        self._fill_tune_table(result)
        queries = len(result.per_query)
        if queries < FEW_QUERIES:
            self.warning_label.setText(
                self.tr(
                    "⚠ Only {0} labelled queries back this result: settings tuned on so few often "
                    "do worse on other questions. Label at least {1}."
                ).format(queries, FEW_QUERIES)
            )
            self.warning_label.setStyleSheet(f"color: {DOWN};")
            self.warning_label.setVisible(True)
        else:
            self.warning_label.setVisible(False)
        if changes:
            body = "<br>".join(changes)
            proposed = self.tr("Proposed")
            self.result_label.setText(f"{head}<br><b>{proposed}</b><br>{body}")
            self.apply_button.setEnabled(True)
        else:
            keep = self.tr("No setting scores higher: keep yours.")
            self.result_label.setText(f"{head}<br>{keep}")
            self.apply_button.setEnabled(False)
        self.result_box.setVisible(True)
        if self.tune_button.hasFocus() and self.apply_button.isEnabled():
            self.apply_button.setFocus()  # the next step, for whoever tuned from the keyboard

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        # The readout and auto-tune's result are composed from numbers: say them again
        # in the new language.
        if event.type() == QEvent.Type.LanguageChange:
            if self._lab is not None:
                self._show_readout(self._lab.readout)
            if self._result is not None:
                self._on_lab_tune_finished(self._result)

    def _fill_tune_table(self, result: eval_tune.TuneResult) -> None:
        rows = result.rows()
        self.tune_table.setRowCount(len(rows))
        for row, line in enumerate(rows):
            diff = line.delta
            cells = [line.query, f"{line.before:.3f}", f"{line.after:.3f}", f"{diff:+.3f}"]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 0:
                    item.setToolTip(line.query)
                else:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if column == 3 and abs(diff) >= 0.0005:
                    item.setForeground(QColor(UP if diff > 0 else DOWN))
                self.tune_table.setItem(row, column, item)

    def tune_rows(self) -> list[tuple[str, str, str, str]]:
        """The per-query table's text (tests, automation)."""
        rows = []
        for r in range(self.tune_table.rowCount()):
            cells = [self.tune_table.item(r, c) for c in range(4)]
            query, before, after, delta = (cell.text() if cell is not None else "" for cell in cells)
            rows.append((query, before, after, delta))
        return rows

    @Slot(object)
    def _on_lab_tune_failed(self, exc: BaseException) -> None:
        self._set_tuning(False)
        self._clear_result()
        if isinstance(exc, errors.Cancelled):
            self.status.setText(self.tr("Auto-tune cancelled"))
        else:
            self.status.setText(self.tr("Auto-tune failed: {0}").format(messages.text(exc)))

    @Slot()
    def _on_apply_button_clicked(self) -> None:
        if self._result is not None:
            settings = self._result.settings
            self.applied_queries = len(self._result.per_query)
            self._clear_result()
            self.apply_requested.emit(settings)

    @Slot()
    def _on_discard_button_clicked(self) -> None:
        self._clear_result()
