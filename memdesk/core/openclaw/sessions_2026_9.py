"""Session transcripts as OpenClaw 2026.9.6 indexes them (``session-files.ts``, ``artifacts.ts``).

Where 2026.9 finds transcripts (``listSessionTranscriptCorpusEntriesForAgent``):

* **active sessions** live in the agent database, one ``transcript_events`` row per
  JSONL record (``seq`` 0 is the ``session`` header), described by ``session_windows``
  (session key, chat type); a legacy ``<sessionId>.jsonl`` beside ``sessions.json`` is
  *not* read until ``openclaw doctor --session-sqlite import`` has moved it into the
  database (and archived the file);
* **retained archives** ``<sessionId>.jsonl.reset.<stamp>`` / ``.deleted.<stamp>``
  (stamp ``YYYY-MM-DDTHH-MM-SS[.mmm]Z``, optionally ``.<32 hex>``, optionally
  zstd-compressed with a ``.zst`` suffix, ``materializeSessionArchiveForRead``) in the
  sessions folder are read from the file as they are.

Cron runs, heartbeat runs and dreaming narratives are never indexed
(``isMemorySessionIndexable``). Each transcript becomes one text
(``buildSessionEntryInProcess``): ``User: …`` / ``Assistant: …`` lines of the text
blocks of user and assistant messages, whitespace collapsed, lines wrapped at 800
characters, each line mapped back to its JSONL line (1-based; blank and unparsable
lines count, as in the file). Left out as 2026.9 leaves them out: a cron prompt or a
generated ``System: [...]`` line from the user, ``HEARTBEAT_OK`` and ``NO_REPLY``
answers, ``exec finished`` notices, turns started by a heartbeat or by recalled memory,
and user messages relayed from another session. Before that, a user message loses the
inbound metadata OpenClaw injected and every message its runtime-context blocks; the
kept text is then redacted (``transcript_text``: which of ``redactSensitiveText``'s
rules are ported is listed there). Not reproduced: ``isHeartbeatUserMessage`` (a user
turn that is the heartbeat prompt itself) and the JSON/envelope forms of a silent
reply (only the bare ``NO_REPLY`` is dropped).

The memory path of an entry is ``sessions/<agent>/<sessionId>.jsonl`` (active) or
``sessions/<agent>/<archive file name>``; decay dates it by its mtime (the session's
``updatedAt`` for active ones, the file's mtime for archives).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from memdesk.core import errors
from memdesk.core.base import sqlite

from . import transcript_text

log = logging.getLogger(__name__)

_ARCHIVE_RE = re.compile(
    r"^(?P<id>.+)\.jsonl\.(?P<reason>reset|deleted)\."
    r"(?P<stamp>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z)(?:\.[0-9a-f]{32})?(?P<zst>\.zst)?$"
)
_GENERATED_SYSTEM_RE = re.compile(r"^System(?: \(untrusted\))?: \[[^\]]+\]\s*")
_DIRECT_CRON_PROMPT_RE = re.compile(r"^\[cron:[^\]]+\]\s*")
_EXEC_FINISHED_RE = re.compile(r"^exec finished(?::|\s*\()")
WRAP_CHARS = 800
SILENT_REPLY = "NO_REPLY"


@dataclasses.dataclass(frozen=True)
class SessionEntry:
    """One transcript as 2026.9 indexes it."""

    path: str  # the memory path: sessions/<agent>/<file>
    session_id: str
    session_key: str | None
    chat_type: str | None
    kind: str  # active-session | archive-artifact
    mtime_ms: float
    content: str
    line_map: tuple[int, ...]  # JSONL line of each content line
    records: tuple[Any, ...] = ()  # the JSONL records (None for blank/unparsable lines)


def normalize_session_text(value: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\s*\n+\s*", " ", value)).strip()


def split_long_line(text: str, max_chars: int = WRAP_CHARS) -> list[str]:
    """``splitLongSessionLine``: wrap at the last space before ``max_chars`` (UTF-16 units
    in OpenClaw; the same for text without astral characters)."""
    normalized = text.strip()
    if not normalized:
        return []
    if len(normalized) <= max_chars:
        return [normalized]
    out: list[str] = []
    cursor = 0
    while cursor < len(normalized):
        if len(normalized) - cursor <= max_chars:
            out.append(normalized[cursor:].strip())
            break
        limit = cursor + max_chars
        split_at = next((i for i in range(limit, cursor, -1) if normalized[i] == " "), limit)
        out.append(normalized[cursor:split_at].strip())
        cursor = split_at
        while cursor < len(normalized) and normalized[cursor] == " ":
            cursor += 1
    return [s for s in out if s]


def _raw_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts = [
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]
    return "\n".join(parts) if parts else None


def _sanitize(text: str, role: str) -> str | None:
    stripped = transcript_text.strip_inbound_metadata(text) if role == "user" else text
    normalized = normalize_session_text(transcript_text.strip_internal_runtime_context(stripped))
    if not normalized:
        return None
    if role == "user" and (
        _GENERATED_SYSTEM_RE.match(normalized) or _DIRECT_CRON_PROMPT_RE.match(normalized)
    ):
        return None
    if normalized == SILENT_REPLY or (role == "assistant" and normalized == "HEARTBEAT_OK"):
        return None
    if _EXEC_FINISHED_RE.match(_GENERATED_SYSTEM_RE.sub("", normalized).strip().lower()):
        return None
    return normalized


def _provenance(message: dict[str, Any]) -> dict[str, Any]:
    p = message.get("provenance")
    return p if isinstance(p, dict) else {}


@dataclasses.dataclass(frozen=True)
class IndexedMessage:
    line: int  # 1-based JSONL line
    role: str
    text: str  # sanitized and redacted, as indexed (before line wrapping)
    record: dict[str, Any]


def indexed_messages(records: Iterable[Any]) -> list[IndexedMessage]:
    """The messages 2026.9 indexes of one transcript's records (``records[i]`` is JSONL
    line i+1; None for a blank or unparsable line)."""
    out: list[IndexedMessage] = []
    heartbeat_turn = recalled_turn = False
    for index, record in enumerate(records):
        if not isinstance(record, dict) or record.get("type") != "message":
            continue
        message = record.get("message")
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            continue
        role = str(message["role"])
        prov = _provenance(message)
        if role == "user":
            internal = prov.get("kind") == "internal_system"
            heartbeat_turn = internal and prov.get("sourceTool") == "heartbeat"
            recalled_turn = internal and prov.get("sourceTool") in ("memory_search", "memory_get")
            if prov.get("kind") == "inter_session":
                continue
        if heartbeat_turn or recalled_turn:
            continue
        raw = _raw_text(message.get("content"))
        if raw is None:
            continue
        text = _sanitize(raw, role)
        if text:
            out.append(IndexedMessage(index + 1, role, transcript_text.redact_sensitive_text(text), record))
    return out


def flatten(records: Iterable[Any]) -> tuple[str, tuple[int, ...]]:
    """The indexed text of one transcript and the JSONL line of every text line."""
    lines: list[str] = []
    line_map: list[int] = []
    for m in indexed_messages(records):
        label = "User" if m.role == "user" else "Assistant"
        for segment in split_long_line(m.text):
            lines.append(f"{label}: {segment}")
            line_map.append(m.line)
    return "\n".join(lines), tuple(line_map)


def parse_jsonl(text: str) -> list[Any]:
    """One entry per physical line: the parsed record, or None (blank / not JSON)."""
    out: list[Any] = []
    for line in text.split("\n"):
        if not line.strip():
            out.append(None)
            continue
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append(None)
    return out


def is_archive_name(name: str) -> bool:
    return _ARCHIVE_RE.match(name) is not None


def _excluded(session_key: str | None, records: Sequence[Any]) -> bool:
    """Cron runs, heartbeat runs and dreaming narratives (``isMemorySessionIndexable``)."""
    key = (session_key or "").lower()
    if (
        ":cron:" in key
        or key.startswith("cron:")
        or key.endswith(":heartbeat")
        or "dreaming-narrative" in key
    ):
        return True
    for r in records:
        if not isinstance(r, dict) or r.get("type") != "custom":
            continue
        data = r.get("data")
        if (
            r.get("customType") == "openclaw:bootstrap-context:full"
            and isinstance(data, dict)
            and str(data.get("runId", "")).startswith("dreaming-narrative-")
        ):
            return True
    return False


def read_archive(path: Path) -> str:
    """A retained archive's JSONL text; a ``.zst`` one decompressed (``readSessionArchiveContentSync``).
    Raises ``ValueError`` for a damaged or oversized compressed file."""
    data = Path(path).read_bytes()
    if Path(path).name.endswith(".zst"):
        import zstandard

        parts: list[bytes] = []
        size = 0
        try:
            # Streamed: the frame may not record its size, and a bomb must not fill memory.
            with zstandard.ZstdDecompressor().stream_reader(data) as reader:
                while chunk := reader.read(1 << 20):
                    parts.append(chunk)
                    size += len(chunk)
                    if size > MAX_EVENT_BYTES:
                        raise ValueError(
                            f"{Path(path).name}: larger than {MAX_EVENT_BYTES} bytes uncompressed"
                        )
        except zstandard.ZstdError as exc:
            raise ValueError(f"{Path(path).name}: not a zstd archive ({exc})") from exc
        data = b"".join(parts)
    return data.decode("utf-8", "replace")


def archive_entries(sessions_dir: Path, agent_id: str) -> list[SessionEntry]:
    """Retained reset/deleted archives, read from their files."""
    out: list[SessionEntry] = []
    try:
        names = sorted(e.name for e in os.scandir(sessions_dir) if e.is_file(follow_symlinks=False))
    except OSError:
        return out
    for name in names:
        m = _ARCHIVE_RE.match(name)
        if m is None:
            continue
        path = Path(sessions_dir) / name
        try:
            text = read_archive(path)
            mtime_ms = path.stat().st_mtime_ns / 1e6
        except (OSError, ValueError):
            continue
        records = parse_jsonl(text)
        if _excluded(None, records):
            continue
        content, line_map = flatten(records)
        out.append(
            SessionEntry(
                f"sessions/{agent_id}/{name}",
                m.group("id"),
                None,
                None,
                "archive-artifact",
                mtime_ms,
                content,
                line_map,
                tuple(records),
            )
        )
    return out


MAX_EVENT_BYTES = 64 * 1024 * 1024  # a decompressed event larger than this is skipped


def _event(event_json: Any, event_zstd: Any) -> Any:
    """One ``transcript_events`` row's record: large events are stored zstd-compressed
    (``event_zstd``, ``event_json`` NULL)."""
    raw: str | None = event_json if isinstance(event_json, str) else None
    if raw is None and isinstance(event_zstd, (bytes, memoryview)):
        import zstandard

        try:
            data = zstandard.ZstdDecompressor().decompress(bytes(event_zstd), max_output_size=MAX_EVENT_BYTES)
        except zstandard.ZstdError:
            return None
        raw = data.decode("utf-8", "replace")
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def active_entries(agent_db: Path, agent_id: str) -> list[SessionEntry]:
    """Active sessions from the agent database (read only); none if it is missing."""
    # The session store (``listSessionEntries``): one node per session key, its
    # current session and the entry (``updatedAt``, ``chatType``, ...).
    nodes: dict[str, tuple[str, dict[str, Any], Any]] = {}
    for key, sid, entry_json, updated in _db_rows(
        agent_db, "SELECT session_key, current_session_id, entry_json, updated_at FROM session_nodes"
    ):
        entry = _json_object(entry_json)
        entry = {} if entry is None else entry  # unreadable: a session without entry fields
        if sid and isinstance(entry, dict):
            nodes.setdefault(str(sid), (str(key), entry, updated))
    events: dict[str, list[Any]] = {}
    if nodes:
        for sid, event_json, event_zstd in _db_rows(
            agent_db,
            "SELECT session_id, event_json, event_zstd FROM transcript_events ORDER BY session_id, seq",
        ):
            if str(sid) in nodes:
                events.setdefault(str(sid), []).append(_event(event_json, event_zstd))
    out: list[SessionEntry] = []
    for sid in sorted(events):
        key, entry, node_updated = nodes[sid]
        records = events[sid]
        updated = entry.get("updatedAt", node_updated)
        chat = entry.get("chatType")
        if _excluded(key, records) or entry.get("spawnedBy") or entry.get("heartbeatIsolatedBaseSessionKey"):
            continue
        content, line_map = flatten(records)
        out.append(
            SessionEntry(
                f"sessions/{agent_id}/{sid}.jsonl",
                sid,
                key,
                chat if isinstance(chat, str) else None,
                "active-session",
                float(updated) if isinstance(updated, (int, float)) else 0.0,
                content,
                line_map,
                tuple(records),
            )
        )
    return out


def session_store(agent_db: Path) -> dict[str, dict[str, Any]]:
    """The agent database's session store (``session_nodes``): session key -> entry
    (``sessionId``, ``chatType``, ``origin``, ...); empty if the database is missing."""
    return {
        str(key): entry
        for key, entry_json in _db_rows(agent_db, "SELECT session_key, entry_json FROM session_nodes")
        if isinstance(entry := _json_object(entry_json), dict)
    }


def archive_session_keys(agent_db: Path) -> dict[str, str]:
    """Archive file name -> session key for the archives the database knows
    (``session_transcript_archives``, as ``listSessionTranscriptArchivesReadOnly`` reads)."""
    return {
        str(name): str(key)
        for name, key in _db_rows(
            agent_db, "SELECT archive_name, session_key FROM session_transcript_archives"
        )
    }


def _json_object(raw: Any) -> Any:
    try:
        return json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return None


def _db_rows(agent_db: Path, sql: str) -> list[tuple[Any, ...]]:
    if not Path(agent_db).is_file():
        return []
    try:
        conn = sqlite.snapshot(agent_db)  # never a file beside the agent's database
    except errors.MemdeskError as exc:
        log.warning("the agent database %s could not be read: %s", agent_db, exc)
        return []
    try:
        return [tuple(r) for r in sqlite.rows(conn, sql, where=agent_db)]
    except errors.MemdeskError:
        return []  # an older or newer schema without the table
    finally:
        conn.close()
