"""Transcript text as OpenClaw 2026.9.6 cleans it before indexing: injected inbound
metadata, runtime-context blocks, secrets.

``tests/fixtures/openclaw/2026.9.6/transcript-text.json`` holds what the real release's
own ``stripInboundMetadata``, ``stripInternalRuntimeContext`` and
``redactSensitiveText(text, {mode: "tools"})`` returned for each case (imported from its
bundle by ``tools/record_openclaw.py --text-rules``); the port must return the same.
``test_sessions_2026_9.py`` checks the whole chain against the chunks the release stored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memdesk.core.openclaw import transcript_text as tt

RECORDED = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw" / "2026.9.6" / "transcript-text.json"
CASES: list[dict[str, Any]] = json.loads(RECORDED.read_text(encoding="utf-8"))["cases"]
FUNCTIONS = ("strip_inbound_metadata", "strip_internal_runtime_context", "redact_sensitive_text")
# Recorded texts whose redaction the port does not reproduce, and why; one that starts
# matching fails, so the list stays true.
KNOWN = {
    'config {"apiKey": "abcd1234efgh5678ijkl", "token": "short"} end': (
        "OpenClaw masks a JSON apiKey value in full (***) by a rule the port does not have; "
        'the same shape with "secret" is masked as the port masks it'
    ),
    "see https://example.com/cb?token=abcdefghijklmnopqrstuvwx&x=1": (
        "the URL query-parameter pass (redactAssignmentValues 'url') is not ported"
    ),
}


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_port_returns_what_openclaw_returned(case: dict[str, Any]) -> None:
    for name in FUNCTIONS:
        got = getattr(tt, name)(case["text"])
        if name == "redact_sensitive_text" and case["text"] in KNOWN:
            assert got != case[name], f"now matches, drop it from KNOWN: {case['text']!r}"
        else:
            assert got == case[name], name


def test_the_recording_exercises_every_rule() -> None:
    """Each function changed some cases and left others alone (a list where nothing
    changes would pass against an identity function)."""
    for name in FUNCTIONS:
        changed = [c for c in CASES if c[name] != c["text"]]
        assert changed and len(changed) < len(CASES), name
    masked = [c["redact_sensitive_text"] for c in CASES]
    assert any("…" in m for m in masked) and any("***" in m for m in masked)
    assert any("…redacted…" in m for m in masked)  # a PEM block keeps its first and last line
