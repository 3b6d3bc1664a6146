"""The checks against the agent's index: layout, ``identity``, ``stale`` and ``no_index``."""

from __future__ import annotations

from memdesk.core import messages
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg

from ..config import Agent, Layout
from ..index import AgentIndex, AgentIndexError
from .findings import DoctorReport, Finding
from .identity import identity_mismatches


def _check_index(report: DoctorReport, agent: Agent, layout: Layout, hashes: dict[str, str]) -> None:
    try:
        index = AgentIndex.open(agent.index_path)
    except AgentIndexError as exc:
        report.add(
            Finding(
                "warning",
                "no_index",
                messages.of(exc),
                str(agent.index_path),
                fix=f"openclaw memory index --agent {agent.id}",
            )
        )
        return
    with index:
        status = index.status()
        if status.layout != layout:
            report.add(
                Finding(
                    "warning",
                    "layout",
                    msg(
                        QT_TRANSLATE_NOOP(
                            "core", "the index is in the {index_layout} layout but the config is {layout}'s"
                        ),
                        index_layout=status.layout,
                        layout=layout,
                    ),
                    str(agent.index_path),
                )
            )
        mismatches = identity_mismatches(agent, status.layout, dict(status.meta)) if status.meta else []
        if not status.meta:
            report.add(
                Finding(
                    "warning",
                    "identity",
                    msg(
                        QT_TRANSLATE_NOOP(
                            "core", "the index has no metadata; the agent rebuilds it from scratch"
                        )
                    ),
                    str(agent.index_path),
                )
            )
        for _code, reason in mismatches:
            effect = (
                msg(QT_TRANSLATE_NOOP("core", "the agent pauses vector search until you rebuild"))
                if status.layout == "2026.9"
                else msg(QT_TRANSLATE_NOOP("core", "the agent rebuilds the whole index on its next sync"))
            )
            report.add(
                Finding(
                    "error" if status.layout == "2026.9" else "warning",
                    "identity",
                    msg(
                        QT_TRANSLATE_NOOP("core", "index identity mismatch: {reason}; {effect}"),
                        reason=reason,
                        effect=effect,
                    ),
                    str(agent.index_path),
                    fix=f"openclaw memory index --force --agent {agent.id}",
                )
            )
        drift = index.drift(hashes)
        if status.chunks == 0 and hashes:
            report.add(
                Finding(
                    "error",
                    "stale",
                    msg(
                        QT_TRANSLATE_NOOP(
                            "core",
                            "the agent's index is empty although {count} notes exist: "
                            "its last reindex failed or never ran",
                        ),
                        count=len(hashes),
                    ),
                    str(agent.index_path),
                    fix=f"openclaw memory index --force --agent {agent.id}",
                )
            )
        elif drift.stale:
            report.add(
                Finding(
                    "warning",
                    "stale",
                    msg(
                        QT_TRANSLATE_NOOP("core", "your agent's index is stale for {count} note")
                        if drift.stale == 1
                        else QT_TRANSLATE_NOOP("core", "your agent's index is stale for {count} notes"),
                        count=drift.stale,
                    ),
                    str(agent.index_path),
                    fix=f"openclaw memory index --agent {agent.id}",
                )
            )
            drifted = (
                (drift.changed, QT_TRANSLATE_NOOP("core", "{path} changed since the agent indexed it")),
                (drift.new, QT_TRANSLATE_NOOP("core", "{path} is not in the agent's index yet")),
                (drift.removed, QT_TRANSLATE_NOOP("core", "{path} is gone but still in the agent's index")),
            )
            for rels, template in drifted:
                for rel in rels:
                    report.add(Finding("info", "stale", msg(template, path=rel), rel))
