"""Qt glue for the user's OpenClaw agent: runs the core's agent reads off the GUI thread.

Reading the agent's index (hashing every note), running the doctor (loading the
model's vocabulary, chunking every note) and parsing transcripts can take seconds,
so each request runs as one ``jobs.Job`` on its own QThread and answers with a
signal. Each kind of request has a ``jobs.RequestGate``; an answer to a request that
has been superseded (another agent picked, another query typed) is dropped.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from memdesk.core import errors
from memdesk.core import messages as core_messages
from memdesk.core.agent import config as agent_config
from memdesk.core.agent import doctor as agent_doctor
from memdesk.core.agent import sessions as agent_sessions
from memdesk.core.agent import status as agent_status
from memdesk.core.agent.compare import AgentResults, agent_results, open_query_embedder
from memdesk.core.agent.index import AgentIndex, AgentIndexError
from memdesk.qt import jobs

log = logging.getLogger(__name__)


class AgentController(QObject):
    """Discovers the agent setup and answers the panel's questions in the background.

    Signals:
        setup_loaded(object): an ``OpenClawSetup``.
        overview_ready(object): an ``AgentOverview`` of the chosen agent.
        doctor_ready(object): a ``DoctorReport``.
        results_ready(str, object): query and ``AgentResults`` from the agent's own index.
        sessions_ready(object): the agent's list of ``Transcript``.
        failed(str, object): what was being done ("setup", "overview", ...) and the exception.
    """

    setup_loaded = Signal(object)
    overview_ready = Signal(object)
    doctor_ready = Signal(object)
    results_ready = Signal(str, object)
    sessions_ready = Signal(object)
    failed = Signal(str, object)

    def __init__(
        self,
        *,
        env: dict[str, str] | None = None,
        config_file: Path | None = None,
        models_dir: Path | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.env = env
        self._config_file = config_file
        self._models_dir = models_dir
        self._jobs: set[jobs.Job[Any]] = set()
        self._gates: dict[str, jobs.RequestGate] = {}
        self.setup: agent_config.OpenClawSetup | None = None
        self._embedders: dict[str, tuple[Any, str | None]] = {}
        self._embedders_lock = threading.Lock()
        self.layout_override: agent_config.Layout | None = None

    # -- requests -----------------------------------------------------------------------
    def load_setup(self) -> None:
        env, config_file, layout = self.env, self._config_file, self.layout_override
        self._run(
            "setup",
            lambda: agent_config.discover(env, config_file=config_file, layout=layout),
            self._on_setup,
        )

    def request_overview(self, agent_id: str) -> None:
        setup = self._need_setup()
        agent = setup.agent(agent_id)
        self._run(
            "overview", lambda: agent_status.agent_overview(agent, setup.layout), self.overview_ready.emit
        )

    def request_doctor(self, agent_id: str, workspace: Path | None = None) -> None:
        """Run the doctor for ``agent_id``; ``workspace``: check that folder as the agent's
        workspace instead (the open one, when OpenClaw is not installed)."""
        setup = self._need_setup()
        agent = setup.agent(agent_id)
        if workspace is not None:
            agent = dataclasses.replace(agent, workspace=Path(workspace))
        models_dir = self._models_dir
        self._run(
            "doctor",
            lambda: agent_doctor.run_doctor(setup, agent, models_dir=models_dir),
            self.doctor_ready.emit,
        )

    def request_results(self, agent_id: str, query: str) -> None:
        setup = self._need_setup()
        agent = setup.agent(agent_id)

        def job() -> AgentResults:
            try:
                index = AgentIndex.open(agent.index_path)
            except AgentIndexError as exc:
                return AgentResults("keyword", [], core_messages.of(exc))
            embedder, note = self._embedder_for(agent)
            with index:
                return agent_results(agent, index, query, embedder=embedder, embedder_note=note)

        self._run("results", job, lambda result: self.results_ready.emit(query, result))

    def _embedder_for(self, agent: agent_config.Agent) -> tuple[Any, str | None]:
        """The agent model's query embedder, loaded once per agent (jobs share it; it locks)."""
        with self._embedders_lock:
            if agent.id not in self._embedders:
                self._embedders[agent.id] = open_query_embedder(agent, self._models_dir)
            return self._embedders[agent.id]

    def request_sessions(self, agent_id: str) -> None:
        setup = self._need_setup()
        agent = setup.agent(agent_id)
        self._run(
            "sessions",
            lambda: agent_sessions.list_transcripts(
                agent.sessions_dir, agent.id, agent.index_path if setup.layout == "2026.9" else None
            ),
            self.sessions_ready.emit,
        )

    def close(self) -> None:
        """Wait for running jobs (they are short and never write anything)."""
        for job in list(self._jobs):
            job.wait()
        self._jobs.clear()
        for gate in self._gates.values():
            gate.issue()  # answers still queued are dropped
        with self._embedders_lock:
            for embedder, _note in self._embedders.values():
                if embedder is not None:
                    embedder.close()
            self._embedders.clear()

    @property
    def busy(self) -> bool:
        return bool(self._jobs)

    # -- plumbing -----------------------------------------------------------------------
    def _need_setup(self) -> agent_config.OpenClawSetup:
        if self.setup is None:
            raise errors.MemdeskError("the OpenClaw setup has not been read yet")
        return self.setup

    def _on_setup(self, setup: agent_config.OpenClawSetup) -> None:
        self.setup = setup
        with self._embedders_lock:  # the config may name another model now; a running job
            self._embedders.clear()  # keeps its reference, so nothing is closed under it
        self.setup_loaded.emit(setup)

    def _run(self, kind: str, fn: Callable[[], Any], deliver: Callable[[Any], None]) -> None:
        gate = self._gates.setdefault(kind, jobs.RequestGate())
        request_id = gate.issue()
        job: jobs.Job[Any] = jobs.Job(f"agent-{kind}", lambda _context: fn())

        def on_finished(outcome: jobs.JobOutcome[Any]) -> None:
            self._jobs.discard(job)
            if not gate.is_current(request_id):
                return
            if outcome.error is not None:
                self.failed.emit(kind, outcome.error)
            else:
                deliver(outcome.value)

        # The job lives on the GUI thread: its outcome arrives here queued, on the GUI thread.
        job.finished.connect(on_finished)
        self._jobs.add(job)
        job.start()
