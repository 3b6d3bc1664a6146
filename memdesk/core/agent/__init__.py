"""The user's own OpenClaw agent: its config, its index, its sessions, and what will go wrong.

Everything here reads OpenClaw's files the way the installed OpenClaw release does
(2026.4.x or 2026.9.x key and database layouts) and never writes to them, except
``export.apply_settings``, which edits ``openclaw.json`` atomically with a backup
after the caller has shown the user the diff.

No Qt imports are allowed here (this is part of ``memdesk.core``).
"""

from __future__ import annotations
