"""Session transcripts read as OpenClaw 2026.9.6 reads them, on transcripts in its own format.

The files are tests/fixtures/openclaw/workspaces/sessions/state/agents/main/sessions/:
legacy live transcripts with their sessions.json (a direct chat, a group chat, a cron
run, a direct chat carrying inbound metadata, runtime context and secrets) and retained
archives (a reset one, a zstd-compressed reset one, a deleted one), as
tools/record_openclaw.py hands them to real OpenClaw (which imports the live ones with
``openclaw doctor --session-sqlite import``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from memdesk.core.agent import sessions as agent_sessions
from memdesk.core.openclaw import sessions_2026_9 as s9

REPO = Path(__file__).resolve().parents[3]
STATE = REPO / "tests" / "fixtures" / "openclaw" / "workspaces" / "sessions" / "state"
SESSIONS = STATE / "agents" / "main" / "sessions"
DIRECT = "d1a0c001-0000-4000-8000-00000000d001"
SCRUBBED = "f5e0c005-0000-4000-8000-00000000f005"  # what 2026.9 strips and redacts


def _records(name: str) -> list[object]:
    return s9.parse_jsonl((SESSIONS / name).read_text(encoding="utf-8"))


def test_flatten_keeps_what_openclaw_indexes_and_maps_lines_to_the_jsonl() -> None:
    content, line_map = s9.flatten(_records(f"{DIRECT}.jsonl"))
    lines = content.split("\n")
    # Line 1 is the session header, line 3 a custom record; line 7's HEARTBEAT_OK is dropped;
    # a tool_use block contributes no text, a plain-string content counts; whitespace collapses.
    assert line_map == (2, 4, 5, 6, 8, 9)
    assert lines[0] == "User: Which vector store did we finally choose for Atlas?"
    assert (
        lines[1]
        == "Assistant: We chose sqlite-vec over pgvector: it runs in process, and the index is one file."
    )
    assert lines[2] == "User: Remind me who owns the on-call rota this quarter"
    assert lines[3] == "Assistant: Jonas Becker owns the on-call rota."
    assert not any("HEARTBEAT_OK" in ln for ln in lines)


def test_long_messages_wrap_at_800_characters_on_the_same_jsonl_line() -> None:
    content, line_map = s9.flatten(_records("a2b0c002-0000-4000-8000-00000000a002.jsonl"))
    lines = content.split("\n")
    long_lines = [i for i, ln in enumerate(lines) if "nightly backup restore drill" in ln]
    assert len(long_lines) >= 2 and len({line_map[i] for i in long_lines}) == 1
    assert all(len(lines[i]) <= len("Assistant: ") + s9.WRAP_CHARS for i in long_lines)


def test_cron_prompts_and_runs_are_left_out() -> None:
    content, _ = s9.flatten(_records("c3c0c003-0000-4000-8000-00000000c003.jsonl"))
    assert "[cron:" not in content  # the cron prompt is dropped, its answer stays
    assert content.startswith("Assistant: Digest:")
    store = json.loads((SESSIONS / "sessions.json").read_text(encoding="utf-8"))
    cron_key = next(k for k in store if ":cron:" in k)
    assert s9._excluded(cron_key, [])  # and a cron session is not indexed at all


def test_archives_follow_openclaws_name_rule(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    shutil.copytree(SESSIONS, folder)
    # Not archives to 2026.9: no ISO stamp, a trajectory file, a live transcript.
    shutil.copy(folder / f"{DIRECT}.jsonl", folder / f"{DIRECT}.jsonl.reset.yesterday")
    shutil.copy(folder / f"{DIRECT}.jsonl", folder / f"{DIRECT}.trajectory.jsonl")
    entries = s9.archive_entries(folder, "main")
    assert [e.path for e in entries] == [
        "sessions/main/b6f0c006-0000-4000-8000-00000000b006.jsonl.reset.2026-11-18T09-30-00.000Z.zst",
        "sessions/main/d7a0c007-0000-4000-8000-00000000d007.jsonl.deleted.2026-11-18T09-30-00.000Z",
        "sessions/main/e4d0c004-0000-4000-8000-00000000e004.jsonl.reset.2026-11-18T09-30-00.000Z",
    ]
    entry = entries[2]
    assert entry.kind == "archive-artifact" and entry.line_map == (2, 3, 4, 5)
    assert entry.mtime_ms == (folder / Path(entry.path).name).stat().st_mtime_ns / 1e6
    assert entries[0].session_id == "b6f0c006-0000-4000-8000-00000000b006"  # read through zstd
    assert "retention policy" in entries[0].content


def test_a_2026_9_corpus_without_its_database_marks_live_files_not_indexed(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    shutil.copytree(SESSIONS, folder)
    transcripts = agent_sessions.list_transcripts(folder, "main", tmp_path / "no-agent-db.sqlite")
    by_id = {t.session_id: t for t in transcripts}
    assert by_id["e4d0c004-0000-4000-8000-00000000e004"].indexed  # the archive: read from its file
    live = [t for t in transcripts if t.archived is None]
    assert live and not any(t.indexed for t in live)  # legacy files wait for the doctor import
    corpus = agent_sessions.SessionCorpus(transcripts)
    try:
        hits = corpus.search("on-call rota", scopes=agent_sessions.SCOPES)
        assert all(h.transcript.indexed for h in hits)
        assert not hits  # only the (unimported) live transcripts mention it
        assert corpus.search("latency", scopes=agent_sessions.SCOPES)
    finally:
        corpus.close()


AGENT_DB = (
    REPO
    / "tests"
    / "fixtures"
    / "openclaw"
    / "2026.9.6"
    / "agent-index"
    / "sessions-fts-openclaw-agent.sqlite"
)


def test_the_database_real_openclaw_imported_reads_like_the_files() -> None:
    """``openclaw doctor --session-sqlite import`` moved the live transcripts into the agent
    database (its large events zstd-compressed); read back, each is the file it came from.
    The cron run is imported but never indexed."""
    entries = {e.session_id: e for e in s9.active_entries(AGENT_DB, "main")}
    assert set(entries) == {DIRECT, "a2b0c002-0000-4000-8000-00000000a002", SCRUBBED}
    for sid, entry in entries.items():
        assert entry.path == f"sessions/main/{sid}.jsonl" and entry.kind == "active-session"
        assert (entry.content, entry.line_map) == s9.flatten(_records(f"{sid}.jsonl"))
    store = json.loads((SESSIONS / "sessions.json").read_text(encoding="utf-8"))
    assert entries[DIRECT].mtime_ms == store["agent:main:main"]["updatedAt"]  # what 2026.9 decays by
    assert entries[DIRECT].session_key == "agent:main:main" and entries[DIRECT].chat_type == "direct"
    assert "nightly backup restore drill" in entries["a2b0c002-0000-4000-8000-00000000a002"].content


def test_memdesk_indexes_the_text_real_openclaw_indexed() -> None:
    """Every session chunk 2026.9.6 stored (after stripping inbound metadata and runtime
    context and redacting secrets) is the chunk the openclaw-2026.9 profile builds: same
    path, lines and text, the .zst archive included."""
    import apsw

    from memdesk.core.openclaw import v2026_9

    conn = apsw.Connection(str(AGENT_DB), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        stored = sorted(
            conn.execute(
                "SELECT path, start_line, end_line, text FROM memory_index_chunks WHERE source = 'sessions'"
            )
        )
    finally:
        conn.close()
    folder = SESSIONS  # archive mtimes do not change the text
    index = v2026_9.Index(
        STATE.parent / "workspace",
        sessions=[*s9.active_entries(AGENT_DB, "main"), *s9.archive_entries(folder, "main")],
    )
    ours = sorted((c.path, c.start_line, c.end_line, c.text) for c in index.chunks if c.source == "sessions")
    assert ours == stored
    scrubbed = "\n".join(t for p, _s, _e, t in stored if SCRUBBED in p)
    for gone in (
        "Marta Quell",
        "Valparaiso",
        "Delivery:",
        "ghp_Zq4xT9wLmN2pR7vK1sY8bC3dF6hJ0aE5",
        "PRIVATE KEY",
    ):
        assert gone not in scrubbed
    assert "ghp_Zq…0aE5" in scrubbed and "deploy key is ***" in scrubbed


def test_a_2026_9_corpus_reads_the_agent_database(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    shutil.copytree(SESSIONS, folder)
    transcripts = agent_sessions.list_transcripts(folder, "main", AGENT_DB)
    stored = {t.session_id: (t.stored, t.scope, t.indexed) for t in transcripts}
    assert stored[DIRECT] == ("agent database", "private", True)
    assert stored["a2b0c002-0000-4000-8000-00000000a002"] == ("agent database", "group", True)
    # The cron run's legacy file is still there but not in the agent's corpus.
    assert stored["c3c0c003-0000-4000-8000-00000000c003"][2] is False
    direct = next(t for t in transcripts if t.session_id == DIRECT)
    assert [m.line for m in direct.messages] == [2, 4, 5, 6, 8, 9]
    # The session store is the database's: its direct chat is private and recalled, the
    # group chat is not; the transcript view shows the text as the agent indexed it.
    assert stored[SCRUBBED] == ("agent database", "private", True)
    by_id = {t.session_id: t for t in transcripts}
    assert by_id[SCRUBBED].recall and not by_id["a2b0c002-0000-4000-8000-00000000a002"].recall
    assert by_id[SCRUBBED].messages[0].text == "Can you rotate the deploy token before the release window?"
    # Archives no session key points at fail closed: indexed, never recalled.
    archived = [t for t in transcripts if t.archived]
    assert {t.archived for t in archived} == {"reset", "deleted"}
    assert all(t.indexed and t.scope == "unknown" and not t.recall for t in archived)
