"""Exact Python ports of OpenClaw's builtin memory search: v2026.4.12 and v2026.9.6.

Every function here mirrors one OpenClaw TypeScript function bit-for-bit (see
``reference/openclaw-memory.md`` in the project's shared folder and
``docs/openclaw-versions.md``); the ``openclaw-2026.4``/``openclaw-2026.9`` ranking
profiles are built from these pieces, and ``memdesk.parity`` and the fixture replays
(``tests/fixtures/openclaw``) check them against what the real releases did.

* **2026.4.12** (the ANCHOR), one module per step: ``text`` (JS string semantics),
  ``chunking``, ``ids``, ``fts_query``, ``keywords``, ``keyword_search``, ``embedding``,
  ``hybrid``, ``decay``, ``mmr``, ``config``, ``tools``; ``parity`` replays recorded
  vectors. Where OpenClaw changed between the LEGACY snapshot (v2026.2.27) and the
  ANCHOR, the ANCHOR behaviour is the default and the old one is reachable through
  an explicit ``legacy=True`` flag.
* **2026.9.6**: the package ``v2026_9`` (one module per step, its names exported by
  its ``__init__``), plus ``sessions_2026_9`` and ``transcript_text`` for session
  transcripts. Steps whose code did not change in the release come from the 2026.4
  modules above.

The port imports no other core package: only the floor below it (``core/base``'s
SQLite door, ``errors``), as an import-linter contract in ``pyproject.toml`` checks.
memdesk's own runners of the port live with the profiles (``core/search/profiles``),
its embedding recipes in ``core/embed/openclaw_recipe``, the fixture replays in
``core/eval/fixture_parity``. No Qt here either: this is part of ``memdesk.core``.
"""

from __future__ import annotations

ANCHOR_VERSION = "2026.4.12"
"""The OpenClaw release the 2026.4 modules reproduce (2026.9's is ``v2026_9.VERSION``)."""

__all__ = ["ANCHOR_VERSION"]
