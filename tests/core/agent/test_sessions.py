"""Session transcripts as a corpus: OpenClaw's JSONL records, scope rules, search, line mapping."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.core.agent import sessions


def _record(role: str, content: object, ts: str = "2026-11-20T09:00:00.000Z") -> str:
    return json.dumps(
        {"type": "message", "id": f"m-{role}", "timestamp": ts, "message": {"role": role, "content": content}}
    )


def _write(folder: Path, name: str, lines: list[str]) -> Path:
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def sessions_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    header = json.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "2026-11-20T08:59:00Z"})
    _write(
        folder,
        "dm-1.jsonl",
        [
            header,
            _record("user", [{"type": "text", "text": "Where did we put the   Atlas\n\n rollback plan?"}]),
            json.dumps({"type": "message", "message": {"role": "toolResult", "content": "ls output"}}),
            "not json at all",
            _record(
                "assistant",
                [
                    {"type": "text", "text": "The Atlas rollback plan is in memory/projects/atlas.md"},
                    {"type": "toolCall", "name": "memory_get"},
                ],
            ),
            _record("assistant", "HEARTBEAT_OK"),
        ],
    )
    _write(folder, "grp-1.jsonl", [header, _record("user", "Atlas rollback: who owns it in the group?")])
    _write(folder, "cron-1.jsonl", [header, _record("user", "nightly Atlas rollback report")])
    _write(
        folder,
        "old-dm.jsonl.reset.2026-11-01T10-00-00Z",
        [header, _record("user", "鉴权 token 刷新 rollback")],
    )
    _write(folder, "stray.jsonl", [header, _record("user", "rollback of something unowned")])
    _write(folder, "x.trajectory.jsonl", [header, _record("user", "rollback trajectory")])
    (folder / "sessions.json").write_text(
        json.dumps(
            {
                "agent:main:main": {"sessionId": "dm-1", "updatedAt": 1, "chatType": "direct"},
                "agent:main:telegram:group:-1001": {"sessionId": "grp-1", "updatedAt": 2},
                "agent:main:cron:nightly": {"sessionId": "cron-1", "updatedAt": 3},
                "agent:main:whatsapp:direct:+4912": {"sessionId": "old-dm", "updatedAt": 4},
            }
        )
    )
    return folder


def test_transcripts_are_parsed_like_openclaw(sessions_dir: Path) -> None:
    by_name = {t.name: t for t in sessions.list_transcripts(sessions_dir, "main")}
    assert set(by_name) == {
        "dm-1.jsonl",
        "grp-1.jsonl",
        "cron-1.jsonl",
        "stray.jsonl",
        "old-dm.jsonl.reset.2026-11-01T10-00-00Z",
    }  # trajectories are not transcripts
    dm = by_name["dm-1.jsonl"]
    # Only user/assistant text; whitespace collapsed; heartbeat acks dropped; bad lines skipped.
    assert [(m.line, m.role, m.text) for m in dm.messages] == [
        (2, "user", "Where did we put the Atlas rollback plan?"),
        (5, "assistant", "The Atlas rollback plan is in memory/projects/atlas.md"),
    ]
    assert dm.messages[0].timestamp is not None and dm.messages[0].timestamp.year == 2026
    lines, line_map = dm.flattened()
    assert lines[0].startswith("User: Where") and lines[1].startswith("Assistant: The Atlas")
    assert line_map == [2, 5]
    assert by_name["old-dm.jsonl.reset.2026-11-01T10-00-00Z"].archived == "reset"


def test_scopes_follow_the_agent(sessions_dir: Path) -> None:
    scopes = {t.name: t.scope for t in sessions.list_transcripts(sessions_dir, "main")}
    assert scopes == {
        "dm-1.jsonl": "private",
        "grp-1.jsonl": "group",
        "cron-1.jsonl": "internal",
        "old-dm.jsonl.reset.2026-11-01T10-00-00Z": "private",
        "stray.jsonl": "unknown",  # no session-store entry: fails closed
    }


@pytest.mark.parametrize(
    "key, entry, scope",
    [
        ("agent:main:main", {}, "unknown"),  # isPrivateConversation: no chat type, no direct key
        ("agent:main:main", {"chatType": "direct"}, "private"),
        ("agent:main:discord:channel:42", {}, "group"),
        ("agent:main:slack:dm:u1", {}, "private"),
        ("agent:main:explicit:x", {"chatType": "direct"}, "private"),
        ("agent:main:explicit:x", {}, "unknown"),
        ("agent:main:something", {"origin": {"chatType": "group"}}, "group"),
        ("agent:main:subagent:abc", {}, "internal"),
        ("agent:main:main", {"spawnedBy": "agent:main:main"}, "internal"),
        ("global", {}, "group"),
        (None, {}, "unknown"),
    ],
)
def test_scope_of(key: str | None, entry: dict[str, object], scope: str) -> None:
    assert sessions.scope_of("main", key, entry) == scope


def test_search_respects_scope_and_jumps_to_the_line(sessions_dir: Path) -> None:
    corpus = sessions.SessionCorpus(sessions.list_transcripts(sessions_dir, "main"))
    try:
        private = corpus.search("atlas rollback")
        assert {(h.transcript.name, h.message.line) for h in private} == {
            ("dm-1.jsonl", 2),
            ("dm-1.jsonl", 5),
        }
        assert all(0 < h.score < 1 for h in private)
        everything = corpus.search("rollback", scopes=sessions.SCOPES)
        assert {h.transcript.name for h in everything} == {
            "dm-1.jsonl",
            "grp-1.jsonl",
            "cron-1.jsonl",
            "stray.jsonl",
            "old-dm.jsonl.reset.2026-11-01T10-00-00Z",
        }
        # CJK: two-character words are found by substring, in the archived private session.
        cjk = corpus.search("鉴权 刷新")
        assert [(h.transcript.archived, h.message.line) for h in cjk] == [("reset", 2)]
        assert corpus.search("   ") == []
    finally:
        corpus.close()


def test_long_lines_wrap_like_openclaw() -> None:
    text = ("word " * 400).strip()
    parts = sessions.split_long_line(text)
    assert all(len(p) <= 800 for p in parts)
    assert " ".join(parts) == text


def test_missing_folder_is_empty(tmp_path: Path) -> None:
    assert sessions.list_transcripts(tmp_path / "nope", "main") == []


def test_a_transcript_is_private_only_if_every_key_pointing_at_it_is(sessions_dir: Path) -> None:
    """2026.9.6's recall guard (``anchorAliasesArePrivate``): the same stored transcript
    under a direct key and a group key is not private."""
    store = json.loads((sessions_dir / "sessions.json").read_text(encoding="utf-8"))
    store["agent:main:discord:channel:ops"] = {"sessionId": "dm-1", "updatedAt": 5, "chatType": "channel"}
    store["agent:main:telegram:direct:9"] = {"sessionFile": "old-dm.jsonl", "chatType": "direct"}
    (sessions_dir / "sessions.json").write_text(json.dumps(store))
    scopes = {t.name: t.scope for t in sessions.list_transcripts(sessions_dir, "main")}
    assert scopes["dm-1.jsonl"] == "group"
    # A second private key (matched by its sessionFile) keeps the archive private.
    assert scopes["old-dm.jsonl.reset.2026-11-01T10-00-00Z"] == "private"


def test_deleted_archives_are_indexed_but_never_recalled(sessions_dir: Path) -> None:
    header = json.dumps(
        {"type": "session", "version": 3, "id": "old-dm", "timestamp": "2026-11-02T08:00:00Z"}
    )
    _write(
        sessions_dir,
        "old-dm.jsonl.deleted.2026-11-03T10-00-00Z",
        [header, _record("user", "deleted rollback")],
    )
    transcripts = sessions.list_transcripts(sessions_dir, "main")
    deleted = next(t for t in transcripts if t.archived == "deleted")
    assert deleted.scope == "private" and not deleted.recall
    corpus = sessions.SessionCorpus(transcripts)
    try:
        assert "deleted" not in {h.transcript.archived for h in corpus.search("rollback")}
        everything = corpus.search("deleted rollback", scopes=sessions.SCOPES)
        assert [h.transcript.name for h in everything] == [deleted.name]
    finally:
        corpus.close()


def test_zstd_archives_are_read(sessions_dir: Path) -> None:
    import zstandard

    header = json.dumps(
        {"type": "session", "version": 3, "id": "old-dm", "timestamp": "2026-11-02T08:00:00Z"}
    )
    body = "\n".join([header, _record("user", "compressed rollback note")]) + "\n"
    (sessions_dir / "old-dm.jsonl.reset.2026-11-04T10-00-00Z.zst").write_bytes(
        zstandard.ZstdCompressor().compress(body.encode())
    )
    (sessions_dir / "old-dm.jsonl.reset.2026-11-05T10-00-00Z.zst").write_bytes(b"not zstd at all")
    by_name = {t.name: t for t in sessions.list_transcripts(sessions_dir, "main")}
    packed = by_name["old-dm.jsonl.reset.2026-11-04T10-00-00Z.zst"]
    assert [(m.line, m.text) for m in packed.messages] == [(2, "compressed rollback note")]
    assert packed.archived == "reset" and packed.scope == "private"
    assert "old-dm.jsonl.reset.2026-11-05T10-00-00Z.zst" not in by_name  # damaged: skipped, nothing raised


@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
def test_a_session_store_that_is_a_fifo_or_device_is_read_as_empty_at_once(
    sessions_dir: Path, kind: str
) -> None:
    """``sessions.json`` as a FIFO (no writer) hung ``memdesk agent sessions`` and the
    Agent view; as a link to /dev/zero it read without end. Its transcripts are still
    listed, scoped as without a store."""
    import os
    import time

    store = sessions_dir / "sessions.json"
    store.unlink()
    without_store = [t.path.name for t in sessions.list_transcripts(sessions_dir, "main")]
    if kind == "fifo":
        os.mkfifo(store)
    else:
        store.symlink_to("/dev/zero")
    t0 = time.monotonic()
    found = sessions.list_transcripts(sessions_dir, "main")
    assert time.monotonic() - t0 < 5
    assert [t.path.name for t in found] == without_store and "dm-1.jsonl" in without_store
