"""What the doctor reports: one ``Finding`` per problem, gathered in a ``DoctorReport``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..config import Layout

Severity = Literal["error", "warning", "info"]
_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Finding:
    severity: Severity
    code: str
    message: str
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    fix: str | None = None
    config_change: Mapping[str, str] | None = None
    """Keys of ``export.Extras`` (``fts_tokenizer``…) that fix this finding, offered
    through "Apply to OpenClaw…" (``memdesk agent apply --tokenizer`` on the CLI)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "path": self.path,
            "startLine": self.start_line,
            "endLine": self.end_line,
            "fix": self.fix,
            "configChange": dict(self.config_change) if self.config_change else None,
        }


@dataclass
class DoctorReport:
    agent_id: str
    layout: Layout
    workspace: Path
    findings: list[Finding] = field(default_factory=list)
    files_checked: int = 0

    def add(self, finding: Finding) -> None:
        self.findings.append(finding)

    def sorted(self) -> list[Finding]:
        return sorted(self.findings, key=lambda f: (_SEVERITY_ORDER[f.severity], f.code, f.path or ""))

    @property
    def worst(self) -> Severity | None:
        return self.sorted()[0].severity if self.findings else None

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent_id,
            "layout": self.layout,
            "workspace": str(self.workspace),
            "filesChecked": self.files_checked,
            "findings": [f.to_json() for f in self.sorted()],
        }


def summarize(findings: Sequence[Finding]) -> str:
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    return ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n) or "no problems"
