""" "Apply to OpenClaw…": the diff of ``openclaw.json`` first, then an atomic write with a backup.

The dialog shows, for the chosen OpenClaw release, exactly which keys would change
(a unified diff of the file), which tuned values that release cannot take and why,
and writes only when the user presses Apply. The file is re-read at that moment: if
it changed since the diff was shown, nothing is written and the diff is refreshed.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal, Slot
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from memdesk.core import errors
from memdesk.core.agent import config as agent_config
from memdesk.core.agent import export as agent_export
from memdesk.qt import messages


class ApplyToOpenClawDialog(QDialog):
    """Signals:
    applied(object): the backup ``Path`` (None when a new file was created).
    """

    applied = Signal(object)

    def __init__(
        self,
        setup: agent_config.OpenClawSetup,
        tuned: agent_export.Tuned | None,
        *,
        agent_id: str | None = None,
        extras: agent_export.Extras | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """``tuned`` None with ``extras``: only those keys (a doctor finding's fix)."""
        super().__init__(parent)
        self.setObjectName("applyOpenClawDialog")
        self.setWindowTitle(self.tr("Apply to OpenClaw"))
        self.resize(720, 560)
        self._setup = setup
        self._tuned = tuned
        self._extras = extras
        self._agent_id = agent_id
        self.plan: agent_export.ExportPlan | None = None

        self.target_combo = QComboBox()
        self.target_combo.setObjectName("applyTargetCombo")
        for release in reversed(agent_config.LAYOUTS):
            label = self.tr("OpenClaw {v}").format(v=release)
            if release == setup.layout and setup.installed:  # nothing is detected without OpenClaw
                label += self.tr(" (detected)")
            self.target_combo.addItem(label, release)
        self.target_combo.setCurrentIndex(self.target_combo.findData(setup.layout))
        self.scope_combo = QComboBox()
        self.scope_combo.setObjectName("applyScopeCombo")
        self.scope_combo.addItem(self.tr("All agents (defaults)"), None)
        if agent_id is not None:
            self.scope_combo.addItem(self.tr("Only agent {id}").format(id=agent_id), agent_id)
        self.path_label = QLabel(str(setup.config_path))
        self.path_label.setObjectName("applyConfigPath")
        form = QFormLayout()
        form.addRow(self.tr("Target release"), self.target_combo)
        form.addRow(self.tr("Write to"), self.scope_combo)
        form.addRow(self.tr("File"), self.path_label)

        self.diff_view = QPlainTextEdit()
        self.diff_view.setObjectName("applyDiffView")
        self.diff_view.setReadOnly(True)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.diff_view.setFont(mono)
        self.rejected_label = QLabel()
        self.rejected_label.setObjectName("applyRejectedLabel")
        self.rejected_label.setWordWrap(True)
        self.status_label = QLabel()
        self.status_label.setObjectName("applyStatusLabel")
        self.status_label.setWordWrap(True)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.apply_button = QPushButton(self.tr("Apply"))
        self.apply_button.setObjectName("applyButton")
        self.buttons.addButton(self.apply_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.rejected.connect(self.reject)
        self.apply_button.clicked.connect(self._on_apply_button_clicked)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(QLabel(self.tr("Changes to the file:")))
        layout.addWidget(self.diff_view, 1)
        layout.addWidget(self.rejected_label)
        layout.addWidget(self.status_label)
        layout.addWidget(self.buttons)

        self.target_combo.currentIndexChanged.connect(self._on_choice_changed)
        self.scope_combo.currentIndexChanged.connect(self._on_choice_changed)
        self.refresh()

    def refresh(self, *, reload: bool = False) -> None:
        """Recompute the plan for the chosen target and show its diff (``reload``: re-read the file)."""
        target = self.target_combo.currentData()
        agent_id = self.scope_combo.currentData()
        if not self._setup.installed:
            # No OpenClaw here: creating a config for it would configure nothing.
            self.plan = None
            self.diff_view.setPlainText("")
            self.rejected_label.setText("")
            self.status_label.setText(
                self.tr(
                    "OpenClaw was not found: memdesk looked for {config}, for the folder {state} and "
                    "for an openclaw command on the PATH, so there is no config to apply these settings "
                    "to. Install OpenClaw (or set OPENCLAW_STATE_DIR or OPENCLAW_CONFIG_PATH to where it "
                    "keeps its files) and try again; your settings stay in this workspace meanwhile."
                ).format(config=self._setup.config_path, state=self._setup.state_dir)
            )
            self.apply_button.setEnabled(False)
            return
        try:
            if reload:
                self._setup = agent_config.discover(
                    config_file=self._setup.config_path, layout=self._setup.layout
                )
            self.plan = agent_export.plan_export(
                self._setup, self._tuned, target=target, agent_id=agent_id, extras=self._extras
            )
        except errors.MemdeskError as exc:
            self.plan = None
            self.diff_view.setPlainText("")
            self.rejected_label.setText("")
            self.status_label.setText(messages.text(exc))
            self.apply_button.setEnabled(False)
            return
        plan = self.plan
        self.diff_view.setPlainText(plan.diff() or self.tr("openclaw.json already has these settings."))
        if self._tuned is None and not plan.rejected:
            self.rejected_label.setText("")
        elif plan.rejected:
            lines = [
                self.tr("OpenClaw {v} cannot take these tuned values; they are not written:").format(
                    v=plan.target
                )
            ]
            lines += [
                f"• {messages.text(r.setting)} = {messages.text(r.value)}: {messages.text(r.reason)}"
                for r in plan.rejected
            ]
            self.rejected_label.setText("\n".join(lines))
        else:
            self.rejected_label.setText(
                self.tr("OpenClaw {v} takes every tuned value.").format(v=plan.target)
            )
        self.status_label.setText("\n".join(messages.text(note) for note in plan.notes))
        self.apply_button.setEnabled(plan.changed)

    @Slot(int)
    def _on_choice_changed(self, _index: int) -> None:
        self.refresh()

    @Slot()
    def _on_apply_button_clicked(self) -> None:
        if self.plan is None or not self.plan.changed:
            return
        try:
            backup: Path | None = agent_export.apply_export(self.plan)
        except errors.MemdeskError as exc:
            self.refresh(reload=True)
            self.status_label.setText(messages.text(exc))
            return
        self.applied.emit(backup)
        self.accept()
