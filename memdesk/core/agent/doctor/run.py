"""``run_doctor``: the config and workspace checks, then each family of checks in turn."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memdesk.core.messages import QT_TRANSLATE_NOOP, msg

from ..config import Agent, OpenClawSetup, not_found_message
from ..sources import content_hash, list_agent_files
from .annotations import _check_annotations, _check_projects
from .chunk_lengths import ModelTokenizer, _check_chunk_lengths
from .cjk import _check_cjk_keyword_only
from .dating import _decay_findings
from .findings import DoctorReport, Finding
from .index_checks import _check_index
from .local_server import _check_local_server


def run_doctor(
    setup: OpenClawSetup,
    agent: Agent,
    *,
    models_dir: Path | None = None,
    tokenizer_factory: Callable[[Path], ModelTokenizer] = ModelTokenizer,
) -> DoctorReport:
    """Every check for one agent; never writes anything."""
    layout = setup.layout
    report = DoctorReport(agent.id, layout, agent.workspace)
    for warning in setup.warnings:
        report.add(Finding("warning", "config", warning, str(setup.config_path)))
    if not setup.installed:
        report.add(
            Finding(
                "warning",
                "not_installed",
                not_found_message(setup),
                fix=msg(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "install OpenClaw, or set OPENCLAW_STATE_DIR or OPENCLAW_CONFIG_PATH to where "
                        "it keeps its files; meanwhile the memdesk app's doctor checks the workspace open "
                        "in it as an agent would",
                    )
                ),
            )
        )
    elif not setup.config_exists:
        report.add(
            Finding(
                "info",
                "config",
                msg(
                    QT_TRANSLATE_NOOP("core", "no {path}; the agent runs on OpenClaw's defaults"),
                    path=setup.config_path,
                ),
            )
        )
    search = agent.search
    if search is None:
        report.add(
            Finding(
                "warning",
                "disabled",
                msg(QT_TRANSLATE_NOOP("core", "memory search is disabled for agent {agent}"), agent=agent.id),
            )
        )
        return report
    if not agent.workspace.is_dir():
        report.add(
            Finding(
                "error",
                "workspace",
                msg(
                    QT_TRANSLATE_NOOP("core", "the agent's workspace {path} does not exist"),
                    path=agent.workspace,
                ),
            )
        )
        return report
    listing = list_agent_files(agent.workspace, search.extra_paths, layout)
    report.files_checked = len(listing.files)
    for skip in listing.skipped:
        report.add(
            Finding(
                "warning",
                "skipped",
                msg(QT_TRANSLATE_NOOP("core", "{path}: {reason}"), path=skip.path, reason=skip.reason),
                skip.path,
            )
        )
    if not listing.files:
        report.add(
            Finding(
                "warning",
                "skipped",
                msg(QT_TRANSLATE_NOOP("core", "the agent finds no memory files in its workspace")),
            )
        )
    texts: dict[str, str] = {}
    hashes: dict[str, str] = {}
    for source in listing.files:
        try:
            data = source.abs_path.read_bytes()
        except OSError as exc:
            report.add(
                Finding(
                    "warning",
                    "skipped",
                    msg(
                        QT_TRANSLATE_NOOP("core", "{path}: cannot be read ({error})"),
                        path=source.rel_path,
                        error=exc.strerror or str(exc),
                    ),
                    source.rel_path,
                )
            )
            continue
        text = data.decode("utf-8", "replace")
        texts[source.rel_path] = text
        hashes[source.rel_path] = content_hash(source.abs_path)
        if "\ufffd" in text and b"\xef\xbf\xbd" not in data:
            report.add(
                Finding(
                    "warning",
                    "encoding",
                    msg(
                        QT_TRANSLATE_NOOP(
                            "core",
                            "{path} is not valid UTF-8; the agent indexes it with replacement characters",
                        ),
                        path=source.rel_path,
                    ),
                    source.rel_path,
                )
            )
    _check_chunk_lengths(report, setup, agent, search, texts, models_dir, tokenizer_factory)
    _check_annotations(report, layout, texts)
    if layout == "2026.9":
        _check_projects(report, texts)
        _check_local_server(report, setup, search)
    _check_cjk_keyword_only(report, search, texts)
    for finding in _decay_findings(listing, layout, search):
        report.add(finding)
    if setup.installed:  # without OpenClaw there is no agent index to compare with
        _check_index(report, agent, layout, hashes)
    return report
