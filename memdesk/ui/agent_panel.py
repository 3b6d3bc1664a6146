"""The "Your agent" panel: the OpenClaw agent's setup, its own index, its doctor and sessions.

Tabs:
* **Agent** – agent picker, config and workspace ("Open this workspace"), sources and
  extra paths, the agent's own index (chunks, model, last update, stale notes) and the
  current query run against that index, beside memdesk's result in the main table.
* **Doctor** – what will go wrong in the agent's own indexing and search; activating a
  finding opens the note at its lines.
* **Sessions** – the agent's transcripts with the scope the agent applies (private,
  group, internal, unknown), a search over them, and a readable transcript view that
  a hit scrolls to.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.agent import config as agent_config
from memdesk.core.agent import doctor as agent_doctor
from memdesk.core.agent import export as agent_export
from memdesk.core.agent import sessions as agent_sessions
from memdesk.core.agent.compare import AgentResults
from memdesk.core.agent.status import AgentOverview
from memdesk.qt import messages
from memdesk.qt.agent import AgentController
from memdesk.qt.translations import QT_TRANSLATE_NOOP

_SEVERITY_COLORS = {"error": "#b3261e", "warning": "#8a5a00", "info": "#5f6368"}
_SEVERITY_MARKS = {"error": "✗", "warning": "!", "info": "·"}
_SEVERITY_NAMES = {
    "error": QT_TRANSLATE_NOOP("AgentPanel", "error"),
    "warning": QT_TRANSLATE_NOOP("AgentPanel", "warning"),
    "info": QT_TRANSLATE_NOOP("AgentPanel", "info"),
}
# A transcript's scope and a message's role as shown (translated where shown).
_SCOPE_NAMES = {
    "private": QT_TRANSLATE_NOOP("AgentPanel", "private"),
    "group": QT_TRANSLATE_NOOP("AgentPanel", "group"),
    "internal": QT_TRANSLATE_NOOP("AgentPanel", "internal"),
    "unknown": QT_TRANSLATE_NOOP("AgentPanel", "unknown"),
}
_ROLE_NAMES = {
    "user": QT_TRANSLATE_NOOP("AgentPanel", "user"),
    "assistant": QT_TRANSLATE_NOOP("AgentPanel", "assistant"),
}


class AgentPanel(QWidget):
    """Signals:
    open_workspace_requested(object): the agent's workspace ``Path``.
    open_note_requested(str, int, int): a workspace-relative note and its line range.
    apply_fix_requested(object): the ``export.Extras`` a doctor finding's fix writes.
    """

    open_workspace_requested = Signal(object)
    open_note_requested = Signal(str, int, int)
    apply_fix_requested = Signal(object)

    def __init__(self, controller: AgentController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("agentPanel")
        self.controller = controller
        self._overview: AgentOverview | None = None
        self._query = ""
        self._transcripts: list[agent_sessions.Transcript] = []
        self._corpus: agent_sessions.SessionCorpus | None = None
        self._workspace: Path | None = None  # the workspace open in the window

        self.tabs = QTabWidget()
        self.tabs.setObjectName("agentTabs")
        self.tabs.addTab(self._make_agent_tab(), self.tr("Agent"))
        self.tabs.addTab(self._make_doctor_tab(), self.tr("Doctor"))
        self.tabs.addTab(self._make_sessions_tab(), self.tr("Sessions"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tabs)

        controller.setup_loaded.connect(self._on_controller_setup_loaded)
        controller.overview_ready.connect(self._on_controller_overview_ready)
        controller.doctor_ready.connect(self._on_controller_doctor_ready)
        controller.results_ready.connect(self._on_controller_results_ready)
        controller.sessions_ready.connect(self._on_controller_sessions_ready)
        controller.failed.connect(self._on_controller_failed)

    # construction --------------------------------------------------------------------
    def _make_agent_tab(self) -> QWidget:
        tab = QWidget()
        self.agent_picker = QComboBox()
        self.agent_picker.setObjectName("agentPicker")
        self.open_workspace_button = QPushButton(self.tr("Open this workspace"))
        self.open_workspace_button.setObjectName("openAgentWorkspaceButton")
        self.open_workspace_button.setEnabled(False)
        self.reload_button = QPushButton(self.tr("Reload"))
        self.reload_button.setObjectName("reloadAgentButton")
        # The buttons under the picker: on one row they made the dock too wide to leave
        # the results their snippet in a 1280-pixel window.
        picker = QHBoxLayout()
        picker.addWidget(QLabel(self.tr("Agent:")))
        picker.addWidget(self.agent_picker, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_workspace_button)
        buttons.addWidget(self.reload_button)
        buttons.addStretch(1)
        top = QVBoxLayout()
        top.addLayout(picker)
        top.addLayout(buttons)

        self.config_label = self._value_label("agentConfigLabel")
        self.workspace_label = self._value_label("agentWorkspaceLabel")
        self.sources_label = self._value_label("agentSourcesLabel")
        self.index_label = self._value_label("agentIndexLabel")
        self.stale_label = self._value_label("agentStaleLabel")
        form = QFormLayout()
        form.addRow(self.tr("Config"), self.config_label)
        form.addRow(self.tr("Workspace"), self.workspace_label)
        form.addRow(self.tr("Searches"), self.sources_label)
        form.addRow(self.tr("Its index"), self.index_label)
        form.addRow("", self.stale_label)
        self.stale_list = QListWidget()
        self.stale_list.setObjectName("agentStaleList")
        self.stale_list.setMaximumHeight(90)
        self.stale_list.setVisible(False)

        self.results_title = QLabel(self.tr("Type a query to see what the agent's own index returns."))
        self.results_title.setObjectName("agentResultsTitle")
        self.results_title.setWordWrap(True)
        self.results_list = QListWidget()
        self.results_list.setObjectName("agentResultsList")

        layout = QVBoxLayout(tab)
        layout.addLayout(top)
        layout.addLayout(form)
        layout.addWidget(self.stale_list)
        layout.addWidget(self.results_title)
        layout.addWidget(self.results_list, 1)

        self.agent_picker.currentIndexChanged.connect(self._on_agent_picker_changed)
        self.open_workspace_button.clicked.connect(self._on_open_workspace_clicked)
        self.reload_button.clicked.connect(self.reload)
        self.results_list.itemActivated.connect(self._on_note_item_activated)
        self.stale_list.itemActivated.connect(self._on_note_item_activated)
        return tab

    def _make_doctor_tab(self) -> QWidget:
        tab = QWidget()
        self.run_doctor_button = QPushButton(self.tr("Check the agent"))
        self.run_doctor_button.setObjectName("runDoctorButton")
        self.doctor_summary = QLabel(
            self.tr("Finds what will go wrong in the agent's own indexing and search before it does.")
        )
        self.doctor_summary.setObjectName("doctorSummary")
        self.doctor_summary.setWordWrap(True)
        self.doctor_list = QListWidget()
        self.doctor_list.setObjectName("doctorFindings")
        self.doctor_list.setWordWrap(True)
        self.doctor_list.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.doctor_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.doctor_list.setSpacing(2)
        # A finding whose fix is a config change (the trigram tokenizer) offers it here.
        self.doctor_apply_button = QPushButton(self.tr("Apply the fix to OpenClaw…"))
        self.doctor_apply_button.setObjectName("doctorApplyButton")
        self.doctor_apply_button.setVisible(False)
        self._doctor_fix: agent_export.Extras | None = None
        layout = QVBoxLayout(tab)
        layout.addWidget(self.run_doctor_button)
        layout.addWidget(self.doctor_summary)
        layout.addWidget(self.doctor_list, 1)
        layout.addWidget(self.doctor_apply_button)
        self.run_doctor_button.clicked.connect(self.run_doctor)
        self.doctor_apply_button.clicked.connect(self._on_doctor_apply_clicked)
        self.doctor_list.itemActivated.connect(self._on_note_item_activated)
        return tab

    def _make_sessions_tab(self) -> QWidget:
        tab = QWidget()
        self.session_scope = QComboBox()
        self.session_scope.setObjectName("sessionScopeCombo")
        self.session_scope.addItem(self.tr("Private (what the agent recalls)"), ["private"])
        self.session_scope.addItem(self.tr("Groups and channels"), ["group"])
        self.session_scope.addItem(self.tr("All sessions"), list(agent_sessions.SCOPES))
        self.session_search = QLineEdit()
        self.session_search.setObjectName("sessionSearchInput")
        self.session_search.setPlaceholderText(self.tr("Search the transcripts…"))
        self.session_summary = QLabel()
        self.session_summary.setObjectName("sessionSummary")
        self.session_summary.setWordWrap(True)
        self.session_list = QListWidget()
        self.session_list.setObjectName("sessionList")
        # Lines wrap inside the dock (a transcript's title and its notes are long);
        # the tooltip has the whole line too.
        self.session_list.setWordWrap(True)
        self.session_list.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.session_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.session_view = QTextBrowser()
        self.session_view.setObjectName("sessionView")
        self.session_view.setOpenLinks(False)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.session_list)
        split.addWidget(self.session_view)
        split.setSizes([160, 300])
        row = QHBoxLayout()
        row.addWidget(self.session_scope)
        row.addWidget(self.session_search, 1)
        layout = QVBoxLayout(tab)
        layout.addLayout(row)
        layout.addWidget(self.session_summary)
        layout.addWidget(split, 1)
        self.session_scope.currentIndexChanged.connect(self._on_session_filter_changed)
        self.session_search.textChanged.connect(self._on_session_filter_changed)
        self.session_list.currentItemChanged.connect(self._on_session_item_changed)
        return tab

    @staticmethod
    def _value_label(name: str) -> QLabel:
        label = QLabel("—")
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    # public --------------------------------------------------------------------------
    @Slot()
    def reload(self) -> None:
        self.config_label.setText(self.tr("reading…"))
        self.controller.load_setup()

    def set_workspace(self, workspace: Path | None) -> None:
        """The workspace open in the window: what the doctor checks without OpenClaw."""
        self._workspace = workspace

    def _installed(self) -> bool:
        setup = self.controller.setup
        return setup is None or setup.installed

    def not_found_text(self) -> str:
        """OpenClaw is not installed: what memdesk looked for (empty when it is installed)."""
        setup = self.controller.setup
        if setup is None or setup.installed:
            return ""
        return self.tr(
            "OpenClaw was not found: memdesk looked for {config}, for the folder {state} and for "
            "an openclaw command on the PATH. Install OpenClaw, or set OPENCLAW_STATE_DIR or "
            "OPENCLAW_CONFIG_PATH to where it keeps its files, then press Reload."
        ).format(config=setup.config_path, state=setup.state_dir)

    def _scope_name(self, scope: str) -> str:
        return self.tr(_SCOPE_NAMES[scope]) if scope in _SCOPE_NAMES else scope

    def _role_name(self, role: str) -> str:
        return self.tr(_ROLE_NAMES[role]) if role in _ROLE_NAMES else role

    @property
    def overview(self) -> AgentOverview | None:
        return self._overview

    def current_agent_id(self) -> str | None:
        data = self.agent_picker.currentData()
        return str(data) if data else None

    def set_query(self, query: str) -> None:
        """Run ``query`` against the agent's own index too (the main table shows memdesk's)."""
        self._query = query
        agent_id = self.current_agent_id()
        if not query.strip() or agent_id is None:
            self.results_list.clear()
            self.results_title.setText(self.tr("Type a query to see what the agent's own index returns."))
            return
        self.controller.request_results(agent_id, query)

    @Slot()
    def run_doctor(self) -> None:
        agent_id = self.current_agent_id()
        if agent_id is None:
            return
        self.run_doctor_button.setEnabled(False)
        self.doctor_summary.setText(self.tr("Checking…"))
        # Without OpenClaw there is no agent workspace: check the open one as an agent would.
        workspace = self._workspace if not self._installed() else None
        self.controller.request_doctor(agent_id, workspace)

    def close_panel(self) -> None:
        if self._corpus is not None:
            self._corpus.close()
            self._corpus = None
        self.controller.close()

    # slots: controller ---------------------------------------------------------------
    @Slot(object)
    def _on_controller_setup_loaded(self, setup: agent_config.OpenClawSetup) -> None:
        previous = self.current_agent_id()
        self.agent_picker.blockSignals(True)
        self.agent_picker.clear()
        for agent in setup.agents:
            label = agent.id + (self.tr(" (default)") if agent.default else "")
            if agent.name:
                label += f" — {agent.name}"
            self.agent_picker.addItem(label, agent.id)
        index = self.agent_picker.findData(previous) if previous else -1
        if index < 0:
            index = next((i for i, a in enumerate(setup.agents) if a.default), 0)
        self.agent_picker.setCurrentIndex(index)
        self.agent_picker.blockSignals(False)
        # One agent needs no picker; several do.
        self.agent_picker.setEnabled(len(setup.agents) > 1)
        exists = "" if setup.config_exists else self.tr(" (missing: OpenClaw's defaults)")
        if not setup.installed:
            self.config_label.setText(self.not_found_text())
            self.config_label.setToolTip("")
            self.run_doctor_button.setText(self.tr("Check the open workspace"))
            self.doctor_summary.setText(
                self.not_found_text()
                + self.tr(" Meanwhile the button above checks the open workspace as an OpenClaw agent would.")
            )
        else:
            self.config_label.setText(
                self.tr("{path}{exists} — OpenClaw {layout} layout").format(
                    path=setup.config_path, exists=exists, layout=setup.layout
                )
            )
            self.config_label.setToolTip(
                messages.text(setup.layout_reason) + "".join(f"\n{messages.text(w)}" for w in setup.warnings)
            )
            self.run_doctor_button.setText(self.tr("Check the agent"))
        self._on_agent_picker_changed(self.agent_picker.currentIndex())

    @Slot(object)
    def _on_controller_overview_ready(self, overview: AgentOverview) -> None:
        self._overview = overview
        agent = overview.agent
        self.workspace_label.setText(
            str(agent.workspace)
            if agent.workspace.is_dir() or self._installed()
            else self.tr("{path} (does not exist)").format(path=agent.workspace)
        )
        self.open_workspace_button.setEnabled(agent.workspace.is_dir())
        search = agent.search
        if search is None:
            self.sources_label.setText(self.tr("memory search is off for this agent"))
        else:
            extra = ", ".join(e.path + (f" ({e.pattern})" if e.pattern else "") for e in search.extra_paths)
            text = self.tr("{n} files · sources: {sources}").format(
                n=len(overview.files), sources=", ".join(search.sources)
            )
            if extra:
                text += self.tr(" · extra paths: {extra}").format(extra=extra)
            if overview.skipped:
                text += self.tr(" · {n} skipped (see Doctor)").format(n=len(overview.skipped))
            self.sources_label.setText(text)
        status = overview.index
        self.stale_list.clear()
        if status is None and not self._installed():
            self.index_label.setText("—")  # no OpenClaw, no index of its own: the config line says why
            self.stale_label.setText("")
            self.stale_list.setVisible(False)
        elif status is None:
            self.index_label.setText(
                messages.text(overview.index_error) if overview.index_error else self.tr("no index")
            )
            self.stale_label.setText("")
            self.stale_list.setVisible(False)
        else:
            when = status.last_update.astimezone().strftime("%Y-%m-%d %H:%M") if status.last_update else "—"
            self.index_label.setText(
                self.tr(
                    "{chunks} chunks from {files} files · model {model} ({provider}) · updated {when}"
                ).format(
                    chunks=status.chunks,
                    files=status.files,
                    model=status.model or "—",
                    provider=status.provider or "—",
                    when=when,
                )
            )
            message = overview.stale_message
            self.stale_label.setText(
                self.tr("⚠ {message}").format(message=messages.text(message))
                if message
                else self.tr("up to date with the files")
            )
            self.stale_label.setStyleSheet("color: #8a5a00; font-weight: bold;" if message else "")
            drift = overview.drift
            if drift is not None:
                for kind, paths in (
                    (self.tr("changed"), drift.changed),
                    (self.tr("new"), drift.new),
                    (self.tr("removed"), drift.removed),
                ):
                    for rel in paths:
                        item = QListWidgetItem(f"{kind}: {rel}")
                        item.setData(Qt.ItemDataRole.UserRole, (rel, 1, 1))
                        self.stale_list.addItem(item)
            self.stale_list.setVisible(self.stale_list.count() > 0)
        if self._query.strip():
            self.set_query(self._query)

    @Slot(str, object)
    def _on_controller_results_ready(self, query: str, result: AgentResults) -> None:
        if query != self._query:
            return
        self.results_list.clear()
        self.results_title.setText(
            self.tr("The agent's own index, {mode}: {n} hits{note}").format(
                mode=result.mode,
                n=len(result.hits),
                note=f" ({messages.text(result.note)})" if result.note else "",
            )
        )
        for hit in result.hits:
            marks = []
            if hit.importance is not None:
                marks.append(self.tr("importance {n}").format(n=hit.importance))
            if hit.project:
                marks.append(self.tr("project {p}").format(p=hit.project))
            suffix = f"  [{', '.join(marks)}]" if marks else ""
            snippet = " ".join(hit.snippet.split())[:140]
            item = QListWidgetItem(
                f"{hit.score:.3f}  {hit.path}:{hit.start_line}-{hit.end_line}{suffix}\n      {snippet}"
            )
            item.setData(Qt.ItemDataRole.UserRole, (hit.path, hit.start_line, hit.end_line))
            self.results_list.addItem(item)

    @Slot(object)
    def _on_controller_doctor_ready(self, report: agent_doctor.DoctorReport) -> None:
        self.run_doctor_button.setEnabled(True)
        self.doctor_list.clear()
        if self._installed():
            summary = self.tr("Agent {agent} (OpenClaw {layout}), {n} files: {summary}")
        else:
            summary = self.tr(
                "The open workspace, as an OpenClaw {layout} agent would index it, {n} files: {summary}"
            )
        self.doctor_summary.setText(
            summary.format(
                agent=report.agent_id,
                layout=report.layout,
                n=report.files_checked,
                summary=self._summary(report.findings),
            )
        )
        changes: dict[str, str] = {}
        for finding in report.sorted():
            changes.update(finding.config_change or {})
            text = f"{_SEVERITY_MARKS[finding.severity]} {messages.text(finding.message)}"
            if finding.fix:
                text += "\n    " + self.tr("fix: {fix}").format(fix=messages.text(finding.fix))
            item = QListWidgetItem(text)
            item.setForeground(QBrush(QColor(_SEVERITY_COLORS[finding.severity])))
            item.setToolTip(self.tr(_SEVERITY_NAMES[finding.severity]))
            if finding.path and not finding.path.startswith("/"):
                item.setData(
                    Qt.ItemDataRole.UserRole,
                    (finding.path, finding.start_line or 1, finding.end_line or finding.start_line or 1),
                )
            self.doctor_list.addItem(item)
        # Only with OpenClaw installed is there a config to write the fix into.
        self._doctor_fix = (
            agent_export.Extras(
                fts_tokenizer=changes.get("fts_tokenizer"),
                provider=changes.get("provider"),
                model=changes.get("model"),
            )
            if changes and self._installed()
            else None
        )
        self.doctor_apply_button.setVisible(self._doctor_fix is not None)

    @Slot()
    def _on_doctor_apply_clicked(self) -> None:
        if self._doctor_fix is not None:
            self.apply_fix_requested.emit(self._doctor_fix)

    def _summary(self, findings: Sequence[agent_doctor.Finding]) -> str:
        """``agent_doctor.summarize`` in the UI's language: "2 errors, 1 warning"."""
        parts = []
        for severity, one, many in (
            ("error", self.tr("{0} error"), self.tr("{0} errors")),
            ("warning", self.tr("{0} warning"), self.tr("{0} warnings")),
            ("info", self.tr("{0} info"), self.tr("{0} info")),
        ):
            n = sum(1 for f in findings if f.severity == severity)
            if n:
                parts.append((one if n == 1 else many).format(n))
        return self.tr(", ").join(parts) or self.tr("no problems")

    @Slot(object)
    def _on_controller_sessions_ready(self, transcripts: list[agent_sessions.Transcript]) -> None:
        if self._corpus is not None:
            self._corpus.close()
        self._transcripts = transcripts
        self._corpus = agent_sessions.SessionCorpus(transcripts)
        self._on_session_filter_changed()

    @Slot(str, object)
    def _on_controller_failed(self, kind: str, exc: object) -> None:
        text = messages.text(exc)
        if kind == "setup":
            self.config_label.setText(text)
        elif kind == "overview":
            self.index_label.setText(text)
        elif kind == "doctor":
            self.run_doctor_button.setEnabled(True)
            self.doctor_summary.setText(self.tr("The check failed: {error}").format(error=text))
        elif kind == "results":
            self.results_title.setText(text)
        else:
            self.session_summary.setText(text)

    # slots: widgets ------------------------------------------------------------------
    @Slot(int)
    def _on_agent_picker_changed(self, _index: int) -> None:
        agent_id = self.current_agent_id()
        if agent_id is None:
            return
        self.index_label.setText(self.tr("reading the agent's index…"))
        self.controller.request_overview(agent_id)
        self.controller.request_sessions(agent_id)

    @Slot()
    def _on_open_workspace_clicked(self) -> None:
        if self._overview is not None:
            self.open_workspace_requested.emit(self._overview.agent.workspace)

    @Slot(QListWidgetItem)
    def _on_note_item_activated(self, item: QListWidgetItem) -> None:
        data = item.data(Qt.ItemDataRole.UserRole)
        if data:
            rel, start, end = data
            self.open_note_requested.emit(rel, int(start), int(end))

    @Slot()
    def _on_session_filter_changed(self, *_args: object) -> None:
        scopes = self.session_scope.currentData() or ["private"]
        query = self.session_search.text().strip()
        self.session_list.clear()
        if query and self._corpus is not None:
            hits = self._corpus.search(query, scopes=scopes, limit=200)
            for hit in hits:
                t, m = hit.transcript, hit.message
                head = self.tr("{title} · {role} · line {line}").format(
                    title=t.title(), role=self._role_name(m.role), line=m.line
                )
                item = QListWidgetItem(f"{head}\n      {hit.snippet[:140]}")
                item.setToolTip(f"{head}\n{hit.snippet}")
                item.setData(Qt.ItemDataRole.UserRole, (self._transcripts.index(t), m.line))
                self.session_list.addItem(item)
            self.session_summary.setText(
                self.tr("{n} messages match in {scope} sessions").format(
                    n=len(hits), scope=self.session_scope.currentText().lower()
                )
            )
            return
        shown = [t for t in self._transcripts if t.scope in scopes]
        for transcript in shown:
            text = self.tr("{date}  {title}  [{scope}] · {n} messages").format(
                date=f"{transcript.modified:%Y-%m-%d}",
                title=transcript.title(),
                scope=self._scope_name(transcript.scope),
                n=len(transcript.messages),
            )
            if not transcript.indexed and transcript.scope != "internal":  # internal: never indexed
                text += self.tr(" · not indexed until “openclaw doctor --session-sqlite import”")
            item = QListWidgetItem(text)
            item.setToolTip(text)
            item.setData(Qt.ItemDataRole.UserRole, (self._transcripts.index(transcript), 0))
            self.session_list.addItem(item)
        if not self._installed():
            self.session_summary.setText(self.not_found_text())
            return
        if not self._transcripts:
            agent = self._overview.agent if self._overview is not None else None
            where = agent.sessions_dir if agent is not None else ""
            self.session_summary.setText(
                self.tr("No transcripts in {path}: the agent has not talked with anyone yet.").format(
                    path=where
                )
            )
            return
        counts = agent_sessions.scope_counts(self._transcripts)
        self.session_summary.setText(
            self.tr("{n} transcripts: {counts}").format(
                n=len(self._transcripts),
                counts=self.tr(", ").join(
                    self.tr("{n} {scope}").format(n=v, scope=self._scope_name(k))
                    for k, v in counts.items()
                    if v
                ),
            )
        )

    @Slot(QListWidgetItem, QListWidgetItem)
    def _on_session_item_changed(self, item: QListWidgetItem | None, _previous: object) -> None:
        if item is None:
            return
        t_index, line = item.data(Qt.ItemDataRole.UserRole)
        self.show_transcript(self._transcripts[t_index], line)

    def show_transcript(self, transcript: agent_sessions.Transcript, line: int = 0) -> None:
        """Render ``transcript`` readably and scroll to the message on JSONL ``line``."""
        scope_line = self.tr("scope: {scope} · {path}").format(
            scope=self._scope_name(transcript.scope), path=transcript.path
        )
        line_word = self.tr("line {0}")
        parts = [
            f"<h3>{html.escape(transcript.title())}</h3>",
            f"<p><i>{html.escape(scope_line)}</i></p>",
        ]
        for message in transcript.messages:
            stamp = message.timestamp.astimezone().strftime("%Y-%m-%d %H:%M") if message.timestamp else ""
            who = self.tr("You") if message.role == "user" else self.tr("Agent")
            style = "background:#fff4ce;" if message.line == line else ""
            parts.append(
                f'<a name="L{message.line}"></a><div style="margin:4px 0;{style}">'
                f"<b>{html.escape(who)}</b> <small>{html.escape(stamp)} · {line_word.format(message.line)}</small>"
                f"<br>{html.escape(message.text)}</div>"
            )
        self.session_view.setHtml("".join(parts))
        if line:
            self.session_view.scrollToAnchor(f"L{line}")
