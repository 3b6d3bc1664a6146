"""The agent's session transcripts as a second corpus, with the scope the agent applies.

Transcripts are OpenClaw's JSONL files in ``<state>/agents/<agent>/sessions/``: one
``{"type": "message", "message": {"role", "content"}, "timestamp"}`` record per line
(plus other record types), named ``<sessionId>.jsonl`` and, once reset or deleted,
``<sessionId>.jsonl.reset.<stamp>`` / ``.deleted.<stamp>``. ``sessions.json`` beside
them maps each session key to its entry (``sessionId``, ``chatType``, ``origin``...).
OpenClaw 2026.9 keeps live transcripts in the agent database and only retained
archives as files; both releases read the files the same way.

Text is flattened as OpenClaw's ``buildSessionEntry`` does: user and assistant text
blocks only, whitespace runs collapsed, ``User: …`` / ``Assistant: …`` lines, each
line mapped back to its JSONL line so a hit can jump to the message.

Scope follows OpenClaw 2026.9.6's ``isPrivateConversation``: only the same agent's
direct conversations are *private* (what cross-conversation recall may use); group
and channel sessions are *group*; cron, heartbeat, hook, sub-agent and dreaming runs
are *internal* and never indexed; anything unrecognised fails closed as *unknown*.
As its recall guard (``filterMemorySearchHitsBySessionVisibility``) does, a transcript
is private only when *every* session key that points at it (same ``sessionId`` or
``sessionFile``) is, and a private chat's *deleted* archive stays indexed but is never
recalled (:attr:`Transcript.recall`; searching the private scope alone is that recall).
For a 2026.9 agent the session store is its database's (``session_nodes``, archive
keys from ``session_transcript_archives``) over ``sessions.json``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from memdesk.core import diskio
from memdesk.core.base import sqlite

# OpenClaw's own text rules for transcripts (normalizeSessionText, splitLongSessionLine).
from memdesk.core.openclaw.sessions_2026_9 import normalize_session_text, split_long_line

Scope = Literal["private", "group", "internal", "unknown"]
SCOPES: tuple[Scope, ...] = ("private", "group", "internal", "unknown")
_ARCHIVE_RE = re.compile(r"^(?P<id>.+)\.jsonl\.(?P<reason>reset|deleted)\.[^/]+$")
_INTERNAL_KEY_RE = re.compile(r":(?:active-memory|cron|heartbeat|hook|node|subagent)(?::|$)")


@dataclass(frozen=True)
class Message:
    line: int
    """1-based line of the JSONL file."""
    role: str
    text: str
    timestamp: dt.datetime | None


@dataclass(frozen=True)
class Transcript:
    path: Path
    session_id: str
    session_key: str | None
    chat_type: str
    scope: Scope
    archived: str | None
    """``reset`` / ``deleted`` for retained archives, else None."""
    messages: tuple[Message, ...]
    modified: dt.datetime
    stored: str = "file"
    """``file`` (a JSONL file) or ``agent database`` (2026.9's ``transcript_events``)."""
    indexed: bool = True
    """False for a legacy live ``.jsonl`` of a 2026.9 agent: it reads such a file only after
    ``openclaw doctor --session-sqlite import`` has moved it into its database."""

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def recall(self) -> bool:
        """Whether the agent's recall in a private conversation may return it: a private,
        indexed transcript that is not a deleted archive."""
        return self.scope == "private" and self.indexed and self.archived != "deleted"

    def title(self) -> str:
        key = self.session_key or self.session_id
        return f"{key} ({self.archived})" if self.archived else key

    def flattened(self) -> tuple[list[str], list[int]]:
        """OpenClaw's indexed text: ``User:``/``Assistant:`` lines and their JSONL lines."""
        lines: list[str] = []
        line_map: list[int] = []
        for message in self.messages:
            label = "User" if message.role == "user" else "Assistant"
            for segment in split_long_line(message.text):
                lines.append(f"{label}: {segment}")
                line_map.append(message.line)
        return lines, line_map


@dataclass(frozen=True)
class SessionHit:
    transcript: Transcript
    message_index: int
    score: float
    snippet: str

    @property
    def message(self) -> Message:
        return self.transcript.messages[self.message_index]

    def to_json(self) -> dict[str, Any]:
        m = self.message
        return {
            "session": self.transcript.name,
            "sessionKey": self.transcript.session_key,
            "scope": self.transcript.scope,
            "line": m.line,
            "role": m.role,
            "score": self.score,
            "snippet": self.snippet,
            "timestamp": m.timestamp.isoformat() if m.timestamp else None,
        }


def _content_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            b["text"]
            for b in content
            if isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
        return "\n".join(parts) if parts else None
    return None


def _timestamp(record: Mapping[str, Any], message: Mapping[str, Any]) -> dt.datetime | None:
    for value in (message.get("timestamp"), record.get("timestamp")):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            ms = value * 1000 if value < 1e11 else value
            try:
                return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC)
            except (OverflowError, OSError, ValueError):
                continue
        if isinstance(value, str):
            try:
                parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                continue
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)
    return None


def parse_transcript(path: Path) -> tuple[list[Message], bool]:
    """The user/assistant messages of one JSONL file; bad lines are skipped as OpenClaw does.

    The flag is True when the transcript was generated by a dreaming run (never indexed).
    """
    from memdesk.core.openclaw import sessions_2026_9

    messages: list[Message] = []
    dreaming = False
    # Split on "\n" only, as OpenClaw does (a bare "\r" is no line break); a ``.zst``
    # archive is decompressed first.
    try:
        text = sessions_2026_9.read_archive(path)
    except ValueError as exc:
        raise OSError(str(exc)) from exc
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        raw_data = record.get("data")
        data: dict[str, Any] = raw_data if isinstance(raw_data, dict) else {}
        if (
            record.get("type") == "custom"
            and record.get("customType") == "openclaw:bootstrap-context:full"
            and str(data.get("runId", "")).startswith("dreaming-narrative-")
        ):
            dreaming = True
        if record.get("type") != "message":
            continue
        message = record.get("message")
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            continue
        content = _content_text(message.get("content"))
        if not content:
            continue
        normalized = normalize_session_text(content)
        if not normalized or normalized == "HEARTBEAT_OK":
            continue
        messages.append(Message(number, str(message["role"]), normalized, _timestamp(record, message)))
    return messages, dreaming


def chat_type_of(key: str, entry: Mapping[str, Any] | None) -> str:
    """``direct`` / ``group`` / ``channel`` / ``unknown`` from the entry, else from the key's shape."""
    for candidate in (entry or {}).get("chatType"), _origin_chat_type(entry):
        if candidate in ("direct", "group", "channel"):
            return str(candidate)
    lowered = key.lower()
    for kind in ("group", "channel"):
        if f":{kind}:" in lowered:
            return kind
    if ":direct:" in lowered or ":dm:" in lowered:
        return "direct"
    return "unknown"


def _origin_chat_type(entry: Mapping[str, Any] | None) -> Any:
    if not isinstance(entry, Mapping):
        return None
    for key in ("origin", "deliveryContext"):
        value = entry.get(key)
        if isinstance(value, Mapping) and value.get("chatType") is not None:
            return value.get("chatType")
    return None


def scope_of(agent_id: str, key: str | None, entry: Mapping[str, Any] | None) -> Scope:
    """OpenClaw 2026.9.6's ``isPrivateConversation`` plus its session-kind classification
    (``entry`` None: the key has no session-store entry, which is never private)."""
    if key is None:
        return "unknown"
    lowered = key.strip().lower()
    prefix = f"agent:{agent_id.strip().lower()}:"
    if (
        _INTERNAL_KEY_RE.search(lowered)
        or lowered.startswith("cron:")
        or "dreaming-narrative" in lowered
        or (entry or {}).get("spawnedBy")
    ):
        return "internal"
    chat_types = [c for c in ((entry or {}).get("chatType"), _origin_chat_type(entry)) if c is not None]
    if any(c in ("group", "channel") for c in chat_types) or ":group:" in lowered or ":channel:" in lowered:
        return "group"
    if lowered in ("global", f"{prefix}global"):
        return "group"
    if lowered.startswith(f"{prefix}explicit:"):
        return "private" if chat_types and all(c == "direct" for c in chat_types) else "unknown"
    if entry is None:
        return "unknown"  # isPrivateConversation: no entry, not private
    if chat_types:
        return "private" if all(c == "direct" for c in chat_types) else "unknown"
    # As isPrivateConversation: without a chat type only a direct-chat key is private
    # (the bare main session key is not; it fails closed).
    if ":direct:" in lowered or ":dm:" in lowered:
        return "private"
    return "unknown"


Store = dict[str, Mapping[str, Any]]  # session key -> session-store entry
# An entry per session, a few hundred bytes each: far more sessions than anyone keeps.
MAX_STORE_BYTES = 256 << 20


def _read_store(sessions_dir: Path) -> Store:
    """``sessions.json``: session key -> entry (missing or bad: empty)."""
    try:
        # Bounded, a FIFO or a device refused at once: a FIFO here hung the Agent view.
        data = diskio.read_regular(sessions_dir / "sessions.json", MAX_STORE_BYTES)
        parsed = json.loads(data.decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(parsed, dict):
        return {}
    return {str(k): e for k, e in parsed.items() if isinstance(e, dict)}


def _keys_of(store: Store, session_id: str) -> list[str]:
    """The session keys whose entry points at this transcript (``sessionId``, or a
    ``sessionFile`` named after it), in store order."""
    out = []
    for key, entry in store.items():
        sid = entry.get("sessionId")
        session_file = entry.get("sessionFile")
        if (isinstance(sid, str) and sid.strip() == session_id) or (
            isinstance(session_file, str) and Path(session_file.strip()).name == f"{session_id}.jsonl"
        ):
            out.append(key)
    return out


_NOT_PRIVATE_ORDER: tuple[Scope, ...] = ("internal", "group", "unknown")


def transcript_scope(agent_id: str, key: str | None, store: Store, session_id: str) -> Scope:
    """The scope of ``key`` (None: the transcript's first store key), folded with every
    other key that points at the same transcript: private only if all of them are."""
    aliases = _keys_of(store, session_id)
    if key is None:
        key = aliases[0] if aliases else None
    own = scope_of(agent_id, key, store.get(key) if key is not None else None)
    if own != "private":
        return own
    others = {scope_of(agent_id, k, store[k]) for k in aliases if k != key}
    return next((s for s in _NOT_PRIVATE_ORDER if s in others), "private")


def _messages_2026_9(records: Iterable[Any]) -> list[Message]:
    from memdesk.core.openclaw import sessions_2026_9

    out = []
    for m in sessions_2026_9.indexed_messages(records):
        message = m.record.get("message")
        out.append(
            Message(
                m.line, m.role, m.text, _timestamp(m.record, message if isinstance(message, dict) else {})
            )
        )
    return out


def list_transcripts_2026_9(sessions_dir: Path, agent_id: str, agent_db: Path) -> list[Transcript]:
    """A 2026.9 agent's corpus, read as OpenClaw 2026.9.6 reads it (``sessions_2026_9``):
    active sessions from its database, retained archives from their files (OpenClaw's
    name rule), the messages it keeps. Legacy live ``.jsonl`` files are listed too, as
    not indexed (the agent reads them only after ``openclaw doctor --session-sqlite
    import``). Newest first."""
    from memdesk.core.openclaw import sessions_2026_9

    # The combined store: the database's entries over the legacy sessions.json.
    store: Store = {**_read_store(sessions_dir), **sessions_2026_9.session_store(agent_db)}
    archive_keys = sessions_2026_9.archive_session_keys(agent_db)
    out: list[Transcript] = []
    for entry in sessions_2026_9.active_entries(agent_db, agent_id):
        key = entry.session_key
        meta: Mapping[str, Any] = store.get(key or "") or (
            {"chatType": entry.chat_type} if entry.chat_type else {}
        )
        out.append(
            Transcript(
                Path(sessions_dir) / f"{entry.session_id}.jsonl",
                entry.session_id,
                key,
                chat_type_of(key or "", meta),
                transcript_scope(agent_id, key, {**store, key: meta} if key else store, entry.session_id),
                None,
                tuple(_messages_2026_9(entry.records)),
                dt.datetime.fromtimestamp(entry.mtime_ms / 1000, tz=dt.UTC),
                stored="agent database",
            )
        )
    active = {t.session_id for t in out}
    for entry in sessions_2026_9.archive_entries(sessions_dir, agent_id):
        name = Path(entry.path).name
        aliases = _keys_of(store, entry.session_id)
        key = archive_keys.get(name) or (aliases[0] if aliases else None)
        meta = store.get(key or "") or {}
        match = _ARCHIVE_RE.match(name)
        out.append(
            Transcript(
                Path(sessions_dir) / name,
                entry.session_id,
                key,
                chat_type_of(key or "", meta),
                transcript_scope(agent_id, key, store, entry.session_id),
                match.group("reason") if match else None,
                tuple(_messages_2026_9(entry.records)),
                dt.datetime.fromtimestamp(entry.mtime_ms / 1000, tz=dt.UTC),
            )
        )
    for legacy in list_transcripts(sessions_dir, agent_id):
        if legacy.archived is None and legacy.session_id not in active:
            out.append(dataclasses.replace(legacy, indexed=False))
    out.sort(key=lambda t: t.modified, reverse=True)
    return out


def list_transcripts(sessions_dir: Path, agent_id: str, agent_db: Path | None = None) -> list[Transcript]:
    """Every transcript the agent may index, newest first: with ``agent_db`` (a 2026.9
    agent) as 2026.9 reads them (:func:`list_transcripts_2026_9`), else its JSONL files."""
    if agent_db is not None:
        return list_transcripts_2026_9(sessions_dir, agent_id, agent_db)
    store = _read_store(sessions_dir)
    out: list[Transcript] = []
    try:
        names = sorted(p.name for p in sessions_dir.iterdir() if p.is_file() and not p.is_symlink())
    except OSError:
        return []
    for name in names:
        archived: str | None = None
        if name.endswith(".jsonl") and not name.endswith(".trajectory.jsonl"):
            session_id = name[:-6]
        else:
            match = _ARCHIVE_RE.match(name)
            if not match:
                continue
            session_id, archived = match.group("id"), match.group("reason")
        path = sessions_dir / name
        try:
            messages, dreaming = parse_transcript(path)
            modified = dt.datetime.fromtimestamp(path.stat().st_mtime, tz=dt.UTC)
        except OSError:
            continue
        keys = _keys_of(store, session_id)
        key = keys[0] if keys else None
        entry = store.get(key or "") or {}
        scope: Scope = "internal" if dreaming else transcript_scope(agent_id, key, store, session_id)
        out.append(
            Transcript(
                path,
                session_id,
                key,
                chat_type_of(key or "", entry),
                scope,
                archived,
                tuple(messages),
                modified,
            )
        )
    out.sort(key=lambda t: t.modified, reverse=True)
    return out


@dataclass
class SessionCorpus:
    """The transcripts in one in-memory FTS5 table, one row per message."""

    transcripts: list[Transcript]
    _conn: sqlite.Connection = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._conn = sqlite.memory()
        self._conn.execute(
            "CREATE VIRTUAL TABLE m USING fts5(text, t UNINDEXED, i UNINDEXED, "
            "tokenize='trigram case_sensitive 0')"
        )
        with self._conn:
            for t_index, transcript in enumerate(self.transcripts):
                for m_index, message in enumerate(transcript.messages):
                    self._conn.execute(
                        "INSERT INTO m(text, t, i) VALUES (?, ?, ?)", (message.text, t_index, m_index)
                    )

    def search(
        self,
        query: str,
        *,
        scopes: Iterable[Scope] = ("private",),
        limit: int = 20,
        recall: bool | None = None,
    ) -> list[SessionHit]:
        """Messages matching every query word (substring, any script), best BM25 first.

        ``recall`` (default: when only the private scope is asked for) keeps what the
        agent's recall in a private conversation may return (:attr:`Transcript.recall`:
        no deleted archives); otherwise every indexed transcript of those scopes."""
        allowed = set(scopes)
        recall_only = allowed == {"private"} if recall is None else recall
        words = [w for w in re.split(r"\s+", query.strip()) if w]
        if not words:
            return []
        long_words = [w for w in words if len(w) >= 3]
        short_words = [w for w in words if len(w) < 3]
        clauses, params = [], []
        if long_words:
            clauses.append("m MATCH ?")
            params.append(" AND ".join('"' + w.replace('"', '""') + '"' for w in long_words))
        for word in short_words:
            clauses.append("text LIKE ? ESCAPE '\\'")
            params.append("%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        rank = "bm25(m)" if long_words else "0"
        sql = f"SELECT t, i, {rank} FROM m WHERE {' AND '.join(clauses)} ORDER BY 3 ASC"
        hits: list[SessionHit] = []
        for t_index, m_index, score in self._conn.execute(sql, params):
            transcript = self.transcripts[int(t_index)]
            if transcript.scope not in allowed or not transcript.indexed:
                continue
            if recall_only and not transcript.recall:
                continue
            message = transcript.messages[int(m_index)]
            relevance = -float(score)
            hits.append(
                SessionHit(
                    transcript,
                    int(m_index),
                    relevance / (1 + relevance) if relevance > 0 else 0.0,
                    message.text[:240],
                )
            )
            if len(hits) >= limit:
                break
        return hits

    def close(self) -> None:
        self._conn.close()


def scope_counts(transcripts: Iterable[Transcript]) -> dict[str, int]:
    counts: dict[str, int] = dict.fromkeys(SCOPES, 0)
    for transcript in transcripts:
        counts[transcript.scope] += 1
    return counts
