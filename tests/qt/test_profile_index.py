"""An OpenClaw profile's own index is built in the background after memdesk's index,
with its progress in the status bar, so the first search with it embeds nothing."""

from __future__ import annotations

from pathlib import Path

from memdesk.core import engine as engine_mod
from memdesk.core.search import settings as settings_mod
from memdesk.core.search.profiles import runner_common
from memdesk.qt import session as session_mod
from memdesk.ui.status_bar import StatusBar

NOTES = {
    "MEMORY.md": "# Memory\n\n- Lin Wei owns the Atlas migration.\n",
    **{
        f"memory/2026-11-{day:02d}.md": f"# 2026-11-{day:02d}\n\nStand-up {day}: reviewed the retry policy and sqlite-vec.\n"
        for day in range(1, 9)
    },
}


def test_profile_index_follows_the_main_index_with_progress(qtbot, tmp_path: Path, minilm_path: Path) -> None:  # type: ignore[no-untyped-def]
    ws = tmp_path / "ws"
    for rel, text in NOTES.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text, encoding="utf-8")
    eng = engine_mod.Engine.open(ws, model=minilm_path, db_path=tmp_path / "i.sqlite")
    eng.pin_agent_settings(runner_common.AgentSettings())
    # 2026.4 computes with flash attention off, memdesk's index with it on: nothing is
    # reused, so the background job really embeds.
    settings = settings_mod.SearchSettings.defaults(settings_mod.OPENCLAW_2026_4)
    session = session_mod.Session(eng, settings=settings, watch=False)
    bar = StatusBar()
    bar.attach(session)
    events: list[object] = []
    texts: list[str] = []
    session.sync_finished.connect(lambda report: events.append("sync finished"))
    session.profile_index_progress.connect(lambda name, done, total: events.append((name, done, total)))
    session.profile_index_progress.connect(lambda *_: texts.append(bar.freshness_label.full_text()))
    try:
        with qtbot.waitSignal(
            session.profile_index_finished,
            timeout=300_000,
            check_params_cb=lambda name: name == settings_mod.OPENCLAW_2026_4,
        ):
            session.request_sync()
        progress = [e for e in events if isinstance(e, tuple)]
        assert events[0] == "sync finished" and progress  # after the main index, never before
        assert {name for name, _, _ in progress} == {settings_mod.OPENCLAW_2026_4}
        dones = [done for _, done, _ in progress]
        total = progress[-1][2]
        assert total > 0 and dones == sorted(dones) and dones[-1] == total
        assert texts[-1] == "Indexing for OpenClaw 2026.4 · 100 %"
        runner = eng._runners[settings_mod.OPENCLAW_2026_4]
        embedded = runner.reuse.embedded
        assert embedded == total  # each chunk once, by the background job
        # The first search with the profile finds its index built: nothing to embed.
        result = eng.search("retry policy", settings)
        assert result.hits and runner.reuse.embedded == embedded
        qtbot.waitUntil(lambda: not session.is_indexing_profiles, timeout=10_000)
        qtbot.waitUntil(
            lambda: "Indexing for OpenClaw" not in bar.freshness_label.full_text(), timeout=10_000
        )
    finally:
        session.close()
