"""The Changes view over a real version store: the period's changes grouped by note,
the agent's apart from the user's, a scripted agent rewrite of MEMORY.md shown with
its dreaming output beside it, and per hunk keep (reviewed) or revert (a new version,
every other byte kept)."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from memdesk.core import history as history_mod
from memdesk.core.index import captures
from memdesk.core.index import workspace as workspace_mod
from memdesk.qt import history_data
from memdesk.ui import changes_view

BEFORE = "# Memory\n\n- Owner of Ferry: Ana\n- Tea, not coffee\n- Deploys on Fridays\n"
AFTER = "# Memory\n\n- Owner of Ferry: Bo\n- Tea, not coffee\n- Deploys on Fridays\n- Promoted: uses SQLite\n"


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _capture(root: Path, note: str, text: str, source: str, at: dt.datetime) -> None:
    history = history_mod.open_history(root)
    try:
        history.capture(note, text.encode("utf-8"), source=source, at=at)
    finally:
        history.close()


def _versions(root: Path, note: str) -> list[history_mod.Version]:
    history = history_mod.open_history(root)
    try:
        return history.timeline(note, git=False)
    finally:
        history.close()


def _set_mtime(path: Path, when: dt.datetime) -> None:
    os.utime(path, (when.timestamp(), when.timestamp()))


def _agent_rewrite(root: Path, at: dt.datetime) -> None:
    """What a dreaming pass does, scripted: the diary first, then MEMORY.md rewritten."""
    dreams = root / "DREAMS.md"
    dreams.write_text("# Dream diary\n\n## Deep phase\nPromoted 'uses SQLite' (seen 4 times).\n", "utf-8")
    _set_mtime(dreams, at - dt.timedelta(seconds=40))
    (root / "MEMORY.md").write_text(AFTER, "utf-8")
    _capture(root, "MEMORY.md", AFTER, "disk", at)


def _write(root: Path, note: str, text: str, source: str) -> None:
    """``note`` written with ``text`` and captured from ``source`` now, as its writer would."""
    (root / note).write_text(text, "utf-8")
    _capture(root, note, text, source, _now())


def _script(workspace: Path) -> None:
    """The history, written before the window opens (so no sync of its can race the
    writes), every note on disk as its latest version: memdesk saved MEMORY.md a month
    ago, the first sync kept the notes as they were (the baseline, through the sync's
    own code), then a dreaming pass rewrote MEMORY.md, the user saved one daily note and
    an MCP client appended to another. The changes come after the baseline in time, as
    live ones do: the window's sync finds each file as the store's latest version of it
    and records nothing (back-dated before the baseline, they would not be the latest,
    and a sync would record MEMORY.md again as a second 'disk' version)."""
    (workspace / "MEMORY.md").write_text(BEFORE, "utf-8")
    _capture(workspace, "MEMORY.md", BEFORE, "memdesk", _now() - dt.timedelta(days=30))
    history = history_mod.open_history(workspace)
    try:
        captures.SyncCaptures(history).baseline(workspace, workspace_mod.scan_memory_files(workspace).files)
    finally:
        history.close()
    _agent_rewrite(workspace, _now())
    _write(workspace, "memory/2026-05-01.md", "the user's edit\n", "memdesk")
    _write(workspace, "memory/2026-05-04.md", "an MCP append\n", "mcp")


@pytest.fixture
def scripted(make_window, workspace: Path):  # type: ignore[no-untyped-def]
    """The scripted history above, then the window over the example workspace."""
    _script(workspace)
    return make_window(workspace, model=None)


def _open(qtbot, window):  # type: ignore[no-untyped-def]
    """Ctrl+Shift+C's window, once its period (today) is listed (a job: wait for it)."""
    view = window.history_ui.show_changes()
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        pass
    return view


def _tree(view) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    out = {}
    for top in range(view.tree.topLevelItemCount()):
        head = view.tree.topLevelItem(top)
        out[head.text(0)] = [head.child(r).text(0) for r in range(head.childCount())]
    return out


def test_groups_the_agents_changes_apart_from_the_users(qtbot, scripted) -> None:  # type: ignore[no-untyped-def]
    window = scripted
    view = _open(qtbot, window)
    groups = {(g.side, g.note) for g in view.changes.groups}
    assert groups == {
        ("agent", "MEMORY.md"),
        ("agent", "memory/2026-05-04.md"),
        ("user", "memory/2026-05-01.md"),
    }
    tree = _tree(view)
    assert tree["The agent's changes (2)"] == ["MEMORY.md (1) ●", "memory/2026-05-04.md (1) ●"]
    assert tree["Your changes (1)"] == ["memory/2026-05-01.md (1)"]
    assert view.summary.text() == "Changes: 3 · notes: 3 · by the agent: 2 · by you: 1"
    # The arrow keys go from note to note across the sides, over the headings.
    view.tree.setFocus()
    assert view.tree.currentItem().text(0) == "MEMORY.md (1) ●"
    with qtbot.waitSignal(view.detail_shown, timeout=10_000):
        qtbot.keyClick(view.tree, Qt.Key.Key_Down)
    with qtbot.waitSignal(view.detail_shown, timeout=10_000):
        qtbot.keyClick(view.tree, Qt.Key.Key_Down)
    assert view.tree.currentItem().text(0) == "memory/2026-05-01.md (1)"
    qtbot.keyClick(view.tree, Qt.Key.Key_Up)
    assert view.tree.currentItem().text(0) == "memory/2026-05-04.md (1) ●"
    # memdesk's save of MEMORY.md 30 days ago is outside today; since a date 40 days back it shows.
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        view.set_period("since", (_now() - dt.timedelta(days=40)).astimezone().date())
    assert ("user", "MEMORY.md") in {(g.side, g.note) for g in view.changes.groups}
    # A note's versions become rows only when it is expanded.
    head = view.tree.topLevelItem(0)
    memory = head.child(0)
    assert memory.childCount() == 0
    with qtbot.waitSignal(view.expanded, timeout=10_000):
        memory.setExpanded(True)
    rows = [memory.child(i).text(0) for i in range(memory.childCount())]
    assert len(rows) == 1 and "on disk (agent)" in rows[0], rows


def test_agent_rewrite_of_memory_shows_its_dream_beside_it(qtbot, scripted) -> None:  # type: ignore[no-untyped-def]
    window = scripted
    root = window.session.workspace
    # An older phase report and an unrelated dream from days ago must not be chosen.
    reports = root / "memory" / ".dreams"
    reports.mkdir()
    (reports / "old-light.md").write_text("light phase, days ago\n", "utf-8")
    _set_mtime(reports / "old-light.md", _now() - dt.timedelta(days=3))
    (reports / "rem.md").write_text("REM phase, an hour before\n", "utf-8")
    _set_mtime(reports / "rem.md", _now() - dt.timedelta(hours=1))
    view = _open(qtbot, window)
    with qtbot.waitSignal(view.detail_shown, timeout=10_000):
        assert view.select_group("agent", "memory/2026-05-04.md")
    assert view.dream is None and not view.dream_page.isVisible()  # not a MEMORY.md rewrite
    with qtbot.waitSignal(view.detail_shown, timeout=10_000):
        assert view.select_group("agent", "MEMORY.md")
    assert view.dream is not None and view.dream.rel == "DREAMS.md"
    assert view.dream_page.isVisible()
    assert "Promoted 'uses SQLite'" in view.dream_text.toPlainText()
    assert "DREAMS.md" in view.dream_label.text()
    shown = view.diff.toPlainText()
    assert "- - Owner of Ferry: Ana" in shown and "+ - Promoted: uses SQLite" in shown


def test_revert_one_hunk_keeps_every_other_byte_as_a_new_version(qtbot, scripted) -> None:  # type: ignore[no-untyped-def]
    window = scripted
    root = window.session.workspace
    # The user edits another line after the agent's rewrite and saves: the revert keeps it.
    assert window.open_note("MEMORY.md")
    edit = window.editor
    cursor = edit.document().find("Fridays")
    edit.setTextCursor(cursor)
    edit.insertPlainText("Thursdays")
    assert window.note_editor.save()
    edited = AFTER.replace("Deploys on Fridays", "Deploys on Thursdays")
    assert (root / "MEMORY.md").read_text("utf-8") == edited
    view = _open(qtbot, window)
    with qtbot.waitSignal(view.detail_shown, timeout=10_000):
        view.select_group("agent", "MEMORY.md")
    hunks = view.comparison.hunks
    promoted = next(i for i, h in enumerate(hunks) if any("Promoted" in x for x in h.new_lines))
    view.diff.go_to_hunk(promoted)
    before = _versions(root, "MEMORY.md")
    with qtbot.waitSignal(window.history_ui.restorer.restored, timeout=10_000):
        assert view.revert_hunk()
    assert (root / "MEMORY.md").read_text("utf-8") == edited.replace("- Promoted: uses SQLite\n", "")
    after = _versions(root, "MEMORY.md")
    assert len(after) == len(before) + 1 and after[0].source == "memdesk"
    assert {v.id for v in before} <= {v.id for v in after}
    # The editor's clean buffer shows the reverted note.
    assert window.note_editor.full_text("MEMORY.md") == (root / "MEMORY.md").read_text("utf-8")


def test_keep_marks_hunks_reviewed_and_clears_the_badge(qtbot, scripted) -> None:  # type: ignore[no-untyped-def]
    window = scripted
    root = window.session.workspace
    window.history_ui.refresh_badge()
    qtbot.waitUntil(lambda: "MEMORY.md" in window.tree.tree_model.unseen, timeout=10_000)
    view = _open(qtbot, window)
    with qtbot.waitSignal(view.detail_shown, timeout=10_000):
        view.select_group("agent", "MEMORY.md")
    count = len(view.comparison.hunks)
    assert count == 2 and view.kept_hunks() == []
    assert view.keep_hunk()
    assert view.kept_hunks() == [0]
    assert "MEMORY.md" in window.tree.tree_model.unseen  # one of two reviewed: still unseen
    with qtbot.waitSignal(view.seen, timeout=10_000):
        assert view.keep_hunk()
    assert view.kept_hunks() == [0, 1]
    assert "MEMORY.md" not in window.tree.tree_model.unseen
    assert "✓ reviewed" in view.diff.toPlainText()
    assert "MEMORY.md" not in _unseen(root)
    # The marks outlive the view: listed again, the same hunks are kept.
    assert len(history_data.load_reviewed(root)) == 2
    with qtbot.waitSignal(view.detail_shown, timeout=10_000), qtbot.waitSignal(view.loaded, timeout=10_000):
        view.reload()
    assert view.kept_hunks() == [0, 1]


def _unseen(root: Path) -> set[str]:
    history = history_mod.open_history(root)
    try:
        return history.unseen_agent_changes()
    finally:
        history.close()


def test_period_starts_at_local_midnights() -> None:
    now = dt.datetime(2026, 12, 10, 15, 0, tzinfo=dt.UTC)  # a Thursday
    today = changes_view.period_start("today", now=now)
    week = changes_view.period_start("week", now=now)
    since = changes_view.period_start("since", dt.date(2026, 12, 1), now=now)
    local = now.astimezone()
    assert today.astimezone().date() == local.date() and today.astimezone().hour == 0
    assert (
        week.astimezone().weekday() == 0 and (local.date() - week.astimezone().date()).days == local.weekday()
    )
    assert since.astimezone().date() == dt.date(2026, 12, 1)


def test_a_change_made_again_later_is_not_already_kept(workspace: Path) -> None:
    # The agent promotes a line, the user reverts it, the agent promotes it again: the
    # second promotion's hunk has the same lines, and must still ask for review.
    now = _now()
    _capture(workspace, "MEMORY.md", BEFORE, "memdesk", now - dt.timedelta(hours=3))
    _capture(workspace, "MEMORY.md", AFTER, "disk", now - dt.timedelta(hours=2))
    _capture(workspace, "MEMORY.md", BEFORE, "memdesk", now - dt.timedelta(hours=1))
    _capture(workspace, "MEMORY.md", AFTER, "disk", now)
    first, again = (v for v in reversed(_versions(workspace, "MEMORY.md")) if v.source == "disk")
    one = history_data.compare(workspace, "MEMORY.md", None, first, old_is_previous=True)
    two = history_data.compare(workspace, "MEMORY.md", None, again, old_is_previous=True)
    assert one.hunks == two.hunks
    keys = {history_data.hunk_key(c, h) for c in (one, two) for h in c.hunks}
    assert len(keys) == 2 * len(one.hunks)


def test_the_buttons_follow_their_actions_in_either_language(qtbot, scripted) -> None:  # type: ignore[no-untyped-def]
    """Each button shows its action's text, tooltip and state (``action_buttons``), and
    the previous/next pair is the diff's own (``DiffView.step_actions``), in English
    and after a live switch to Chinese."""
    window = scripted
    view = _open(qtbot, window)
    with qtbot.waitSignal(view.detail_shown, timeout=10_000):
        assert view.select_group("agent", "memory/2026-05-04.md")
    actions = [
        view.previous_action,
        view.next_action,
        view.keep_action,
        view.revert_action,
        view.open_action,
        view.history_action,
    ]

    def shown() -> list[tuple[str, str, bool]]:
        return [(b.text(), b.toolTip(), b.isEnabled()) for b in view.buttons]

    assert shown() == [(a.text(), a.toolTip(), a.isEnabled()) for a in actions]
    assert shown()[0][:2] == ("Previous change", "Previous change (Alt+Up)")
    # The MCP append is one hunk: keep and revert act on it, there is no other to step to.
    assert [b.isEnabled() for b in view.buttons] == [False, False, True, True, True, True]
    try:
        window.set_language("zh_CN")
        qtbot.waitUntil(lambda: view.buttons[0].text() == "上一处变更")
        assert shown() == [(a.text(), a.toolTip(), a.isEnabled()) for a in actions]
        assert view.buttons[1].toolTip() == "下一处变更 (Alt+Down)"
        panel = window.history_ui.show_history("MEMORY.md")
        assert panel.previous_button.text() == "上一处变更"
    finally:
        window.set_language("en")


def test_each_sides_diff_shows_only_its_own_edits_when_both_wrote(
    qtbot, make_window, workspace: Path
) -> None:  # type: ignore[no-untyped-def]
    # In one period: the user saves MEMORY.md, a dreaming pass rewrites it, the user saves
    # again, the agent appends again; the lines the two add at the end lie side by side.
    (workspace / "MEMORY.md").write_text(BEFORE, "utf-8")
    _capture(workspace, "MEMORY.md", BEFORE, "memdesk", _now() - dt.timedelta(days=30))
    history = history_mod.open_history(workspace)
    try:
        captures.SyncCaptures(history).baseline(workspace, workspace_mod.scan_memory_files(workspace).files)
    finally:
        history.close()
    user_1 = BEFORE + "USER edit one\n"
    agent_1 = user_1.replace("Ana", "Bo") + "AGENT appended line\n"
    user_2 = agent_1 + "user edit two\n"
    agent_2 = user_2 + "agent line two\n"
    for text, source in ((user_1, "memdesk"), (agent_1, "disk"), (user_2, "memdesk"), (agent_2, "disk")):
        _write(workspace, "MEMORY.md", text, source)
    window = make_window(workspace, model=None)
    view = _open(qtbot, window)

    def shown(side: str) -> tuple[set[str], set[str]]:
        with qtbot.waitSignal(view.detail_shown, timeout=10_000):
            assert view.select_group(side, "MEMORY.md")
        hunks = view.comparison.hunks
        return {x for h in hunks for x in h.old_lines}, {x for h in hunks for x in h.new_lines}

    removed, added = shown("agent")
    assert added == {"- Owner of Ferry: Bo\n", "AGENT appended line\n", "agent line two\n"}
    assert removed == {"- Owner of Ferry: Ana\n"}
    removed, added = shown("user")
    assert added == {"USER edit one\n", "user edit two\n"} and removed == set()
    # Reverting the agent's first append takes back that line only, through the safe save.
    removed, added = shown("agent")
    appended = next(i for i, h in enumerate(view.comparison.hunks) if "AGENT appended line\n" in h.new_lines)
    view.diff.go_to_hunk(appended)
    before = _versions(workspace, "MEMORY.md")
    with qtbot.waitSignal(window.history_ui.restorer.restored, timeout=10_000):
        assert view.revert_hunk()
    assert (workspace / "MEMORY.md").read_text("utf-8") == agent_2.replace("AGENT appended line\n", "")
    after = _versions(workspace, "MEMORY.md")
    assert len(after) == len(before) + 1 and after[0].source == "memdesk"


def _agent_group(root: Path) -> tuple[history_mod.Version, ...]:
    return tuple(v for v in reversed(_versions(root, "MEMORY.md")) if v.source == "disk")


@pytest.mark.parametrize("user_between", [False, True])
def test_a_kept_change_stays_kept_when_later_versions_join_its_group(
    workspace: Path, user_between: bool
) -> None:
    # The agent rewrites a line; the user keeps it. Later (the user saving in between or
    # not) the agent appends a line: the group's diff now runs to that version, and the
    # first change, untouched since, is still kept; only the new one asks.
    now = _now()
    _capture(workspace, "MEMORY.md", BEFORE, "memdesk", now - dt.timedelta(hours=4))
    rewritten = BEFORE.replace("Ana", "Bo")
    _capture(workspace, "MEMORY.md", rewritten, "disk", now - dt.timedelta(hours=3))
    one = history_data.compare_changes(workspace, _agent_group(workspace))
    reviewed = {history_data.hunk_key(one, h) for h in one.hunks}
    assert len(one.hunks) == 1 and history_data.kept(one, reviewed) == [0]
    later = rewritten
    if user_between:
        later += "USER line\n"
        _capture(workspace, "MEMORY.md", later, "memdesk", now - dt.timedelta(hours=2))
    _capture(workspace, "MEMORY.md", later + "agent line two\n", "disk", now - dt.timedelta(hours=1))
    both = history_data.compare_changes(workspace, _agent_group(workspace))
    changed = [h.new_lines for h in both.hunks]
    assert changed == [["- Owner of Ferry: Bo\n"], ["agent line two\n"]]
    assert history_data.kept(both, reviewed) == [0]


def test_marks_made_on_the_whole_diff_hold_for_the_per_side_diff(workspace: Path) -> None:
    # Before each side's diff left out the other's edits, the agent's group showed the
    # diff as a whole (the user's line in the agent's hunk), named after its last version.
    # Marks made then hold for the hunks of the agent's own edits within them.
    now = _now()
    _capture(workspace, "MEMORY.md", BEFORE, "memdesk", now - dt.timedelta(hours=4))
    agent_1 = BEFORE.replace("Ana", "Bo")
    _capture(workspace, "MEMORY.md", agent_1, "disk", now - dt.timedelta(hours=3))
    _capture(workspace, "MEMORY.md", agent_1 + "USER line\n", "memdesk", now - dt.timedelta(hours=2))
    agent_2 = agent_1 + "USER line\nagent line two\n"
    _capture(workspace, "MEMORY.md", agent_2, "disk", now - dt.timedelta(hours=1))
    group = _agent_group(workspace)
    whole = history_data.compare(workspace, "MEMORY.md", None, group[-1], old_before=group[0])
    assert ["USER line\n", "agent line two\n"] in [h.new_lines for h in whole.hunks]
    old_marks = {history_data.hunk_key(whole, h) for h in whole.hunks}
    per_side = history_data.compare_changes(workspace, group)
    assert [h.new_lines for h in per_side.hunks] == [["- Owner of Ferry: Bo\n"], ["agent line two\n"]]
    assert history_data.kept(per_side, old_marks) == [0, 1]
    # A mark on one whole hunk covers only the agent's edits inside it.
    one_mark = {history_data.hunk_key(whole, h) for h in whole.hunks if "agent line two\n" in h.new_lines}
    assert history_data.kept(per_side, one_mark) == [1]


def _commit(repo: Path, when: dt.datetime, message: str) -> None:
    stamp = when.isoformat()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "agent",
        "GIT_AUTHOR_EMAIL": "agent@example.invalid",
        "GIT_COMMITTER_NAME": "agent",
        "GIT_COMMITTER_EMAIL": "agent@example.invalid",
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    for args in (["add", "MEMORY.md"], ["commit", "-q", "-m", message]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git binary")
def test_a_group_with_git_commits_shows_only_its_own_edits_too(workspace: Path) -> None:
    # The agent commits its edits of MEMORY.md (git add; git commit), the user saves a line
    # through memdesk in between, and the agent's second commit takes the user's line with
    # it. The agent's group (two commits) shows its own edits only, as a captured group does.
    now = _now()
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-C", str(workspace), "init", "-q", "-b", "main"], check=True, env=env)
    (workspace / "MEMORY.md").write_text(BEFORE, "utf-8")
    _capture(workspace, "MEMORY.md", BEFORE, "memdesk", now - dt.timedelta(minutes=50))
    _commit(workspace, now - dt.timedelta(minutes=45), "memory as it was")
    agent_1 = BEFORE.replace("Ana", "Bo")
    (workspace / "MEMORY.md").write_text(agent_1, "utf-8")
    _commit(workspace, now - dt.timedelta(minutes=40), "agent: ferry owner")
    user = agent_1 + "USER line\n"
    (workspace / "MEMORY.md").write_text(user, "utf-8")
    _capture(workspace, "MEMORY.md", user, "memdesk", now - dt.timedelta(minutes=30))
    agent_2 = user + "agent line two\n"
    (workspace / "MEMORY.md").write_text(agent_2, "utf-8")
    _commit(workspace, now - dt.timedelta(minutes=20), "agent: one more line")
    history = history_mod.open_history(workspace)
    try:
        changed = history.note_changes("MEMORY.md", now - dt.timedelta(minutes=42))
    finally:
        history.close()
    group = tuple(v for v in changed if history_data.side_of(v.source) == "agent")
    assert [v.source for v in group] == ["git", "git"]
    shown = history_data.compare_changes(workspace, group)
    assert shown.old.text == BEFORE + "USER line\n"  # the user's line is on both sides
    assert [(h.old_lines, h.new_lines) for h in shown.hunks] == [
        (["- Owner of Ferry: Ana\n"], ["- Owner of Ferry: Bo\n"]),
        ([], ["agent line two\n"]),
    ]
    # Each hunk is named after the commit that made it.
    assert [shown.maker(i) for i in range(2)] == list(group)
    # Reverting the second commit's line keeps the user's.
    reverted = history_data.undo_hunk(shown, shown.hunks[1], agent_2, "MEMORY.md")
    assert reverted == user
