"""An OpenClaw profile's own index notices every change to its notes."""

from __future__ import annotations

import os
from pathlib import Path

from memdesk.core import engine as engine_mod
from memdesk.core.search import settings as settings_mod
from memdesk.core.search.profiles import runner_common as profile_common

OC9 = settings_mod.SearchSettings.defaults(settings_mod.OPENCLAW_2026_9)


def _rewrite_keeping_mtime(path: Path, old: str, new: str) -> None:
    """A same-size rewrite with the old modification time put back (cp -p, rsync -t)."""
    assert len(old.encode()) == len(new.encode())
    st = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns


def test_fingerprint_changes_on_a_same_size_rewrite_with_its_mtime_put_back(tmp_path: Path) -> None:
    note = tmp_path / "memory" / "2026-01-02.md"
    note.parent.mkdir()
    note.write_text("# Day\n\nThe ferry leaves at nine.\n", encoding="utf-8")
    before = profile_common.fingerprint(tmp_path, ["memory/2026-01-02.md"])
    _rewrite_keeping_mtime(note, "nine", "ten!")
    assert profile_common.fingerprint(tmp_path, ["memory/2026-01-02.md"]) != before


def test_profile_search_finds_the_text_of_a_same_size_rewrite(tmp_path: Path) -> None:
    """Keyword-only 2026.9 (no model): its index was kept across the rewrite before, so
    the new word stayed unfindable until a restart."""
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Memory\n\nNothing yet.\n", encoding="utf-8")
    note = ws / "memory" / "2026-01-02.md"
    note.write_text("# Day\n\nThe ferry leaves from pier alpha.\n", encoding="utf-8")
    eng = engine_mod.Engine(ws, embedder=None, db_path=tmp_path / "i.sqlite")
    try:
        eng.sync()
        eng.pin_agent_settings(profile_common.AgentSettings())
        assert [h.path for h in eng.search("alpha", OC9).hits] == ["memory/2026-01-02.md"]
        assert not eng.search("gamma", OC9).hits
        _rewrite_keeping_mtime(note, "alpha", "gamma")
        eng.sync()
        assert [h.path for h in eng.search("gamma", OC9).hits] == ["memory/2026-01-02.md"]
    finally:
        eng.close()


def test_profile_searches_skip_a_note_whose_name_is_not_utf8(tmp_path: Path) -> None:
    """A note named with bytes that are not UTF-8: both OpenClaw profiles raised
    UnicodeEncodeError building their index (a traceback out of ``memdesk search
    --profile openclaw-2026.9``). Skipped, as memdesk's own index skips it."""
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Memory\n\nThe ferry leaves from pier alpha.\n", encoding="utf-8")
    with open(os.path.join(os.fsencode(ws / "memory"), b"bad-\xff\xfe.md"), "wb") as handle:
        handle.write(b"alpha too\n")
    eng = engine_mod.Engine(ws, embedder=None, db_path=tmp_path / "i.sqlite")
    try:
        eng.sync()
        eng.pin_agent_settings(profile_common.AgentSettings())
        for profile in (OC9, settings_mod.SearchSettings.defaults("openclaw-2026.4")):
            assert [h.path for h in eng.search("alpha", profile).hits] == ["MEMORY.md"]
    finally:
        eng.close()
