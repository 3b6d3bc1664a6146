"""Exact Python port of OpenClaw v2026.4.12's builtin memory-search primitives.

Every function here mirrors one OpenClaw TypeScript function bit-for-bit (see
``reference/openclaw-memory.md`` in the project's shared folder); the ``openclaw`` ranking profile
is built from these pieces and ``memdesk.parity`` checks them against recorded
vectors. Where OpenClaw's behaviour changed between the LEGACY snapshot
(v2026.2.27) and the ANCHOR (v2026.4.12), the ANCHOR behaviour is the default
and the old one is reachable through an explicit ``legacy=True`` flag.

No Qt imports are allowed here (this is part of ``memdesk.core``).
"""

from __future__ import annotations

ANCHOR_VERSION = "2026.4.12"
"""The OpenClaw release this package reproduces."""

__all__ = ["ANCHOR_VERSION"]
