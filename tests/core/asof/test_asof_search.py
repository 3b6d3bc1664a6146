"""Search as of a day over a scripted history, with the real GGUF model (issue 23)."""

from __future__ import annotations

import datetime as dt
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memdesk.core import asof, paths
from memdesk.core import engine as engine_mod
from memdesk.core.asof import snapshot
from memdesk.core.history import open_history
from memdesk.core.search.settings import SearchSettings
from tests.core.asof import scripted

DAY3 = dt.date(2026, 11, 3)


class Counting:
    """The real embedder, counting the texts it embeds for documents."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.texts: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self._inner.embed_documents(texts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def _open(root: Path, embedder: Any) -> engine_mod.Engine:
    return engine_mod.Engine(root, embedder=embedder)


def _snapshot(live: engine_mod.Engine, day: dt.date) -> asof.Snapshot:
    with open_history(live.workspace) as history:
        return asof.open_snapshot(live, history, day)


@pytest.fixture
def live(workspace: Path, minilm_embedder: Any) -> Iterator[engine_mod.Engine]:
    """The scripted workspace, indexed live on day 1 and again after days 5 and 7."""
    history = scripted.day_one(workspace)
    eng = _open(workspace, Counting(minilm_embedder))
    eng.sync()
    scripted.later_days(workspace, history)
    history.close()
    eng.sync()
    yield eng
    eng.close()


def test_day_3_finds_the_first_version_and_marks_it_changed_since(live: engine_mod.Engine) -> None:
    snap = _snapshot(live, DAY3)
    try:
        found = snap.search("who owns the ferry project", SearchSettings())
        ferry = [h for h in found.hits if h.hit.path == scripted.FERRY]
        assert ferry, [h.hit.path for h in found.hits]
        assert "Dana Whitfield" in ferry[0].hit.text and "Marcus" not in ferry[0].hit.text
        assert ferry[0].changed_since
        assert ferry[0].version.at == scripted.DAY1
        with open_history(live.workspace) as history:
            first = history.timeline(scripted.FERRY)[-1]
        assert ferry[0].version.id == first.id
        # The same question now answers from day 5's rewrite.
        now = live.search("who owns the ferry project", SearchSettings())
        assert "Marcus" in next(h for h in now.hits if h.path == scripted.FERRY).text
        # An unchanged note is not marked.
        memory = snap.search("decisions in dated notes", SearchSettings()).hits
        assert any(h.hit.path == "MEMORY.md" and not h.changed_since for h in memory)
    finally:
        snap.close()


def test_day_3_finds_the_note_deleted_on_day_7(live: engine_mod.Engine) -> None:
    assert not any(
        h.path == scripted.GONE for h in live.search("lighthouse migration", SearchSettings()).hits
    )
    snap = _snapshot(live, DAY3)
    try:
        found = snap.search("lighthouse migration", SearchSettings())
        gone = [h for h in found.hits if h.hit.path == scripted.GONE]
        assert gone and gone[0].changed_since and gone[0].version.source == "memdesk"
        assert snap.differences.gone == (scripted.GONE,)
        assert snap.differences.changed == (scripted.FERRY,)
        assert snap.differences.count == 2
        assert gone[0].to_json()["as_of"]["id"] == gone[0].version.id
        assert gone[0].to_json()["changed_since"] is True
    finally:
        snap.close()


def test_before_the_first_version_the_note_is_not_there(live: engine_mod.Engine) -> None:
    snap = _snapshot(live, dt.date(2026, 10, 28))  # only MEMORY.md had a version then
    try:
        assert snap.notes == 1 and set(snap.versions) == {"MEMORY.md"}
        found = snap.search("Dana Whitfield ferry project pontoon importer", SearchSettings())
        assert not any(h.hit.path == scripted.FERRY for h in found.hits)
    finally:
        snap.close()


def test_the_snapshot_reuses_the_live_vectors(live: engine_mod.Engine) -> None:
    """Every text of day 3 was embedded by the live index on day 1: nothing again."""
    counting = live.embedder
    assert isinstance(counting, Counting)
    counting.texts.clear()
    snap = _snapshot(live, DAY3)
    try:
        assert counting.texts == []
        assert snap.report.embedded == 0 and snap.reused > 0
        assert snap.report.chunks == snap.report.cache_hits > 0
    finally:
        snap.close()


def test_only_text_the_live_index_never_saw_is_embedded(workspace: Path, minilm_embedder: Any) -> None:
    history = scripted.day_one(workspace)
    scripted.later_days(workspace, history)
    history.close()
    counting = Counting(minilm_embedder)
    eng = _open(workspace, counting)  # indexed only as it is now: day 1's ferry text is new to it
    try:
        eng.sync()
        counting.texts.clear()
        snap = _snapshot(eng, DAY3)
        try:
            assert counting.texts and all("Dana Whitfield" in t or "lighthouse" in t for t in counting.texts)
            assert snap.report.embedded == 2  # the two chunks the live index does not have
            assert snap.report.cache_hits == snap.report.chunks - 2
        finally:
            snap.close()
        counting.texts.clear()
        again = _snapshot(eng, DAY3)  # the folder and its index are reused
        again.close()
        assert counting.texts == []
    finally:
        eng.close()


def test_the_first_answer_of_a_day_does_not_wait_for_its_embedding(
    workspace: Path, minilm_embedder: Any
) -> None:
    """A day whose text the live index never embedded answers at once, keyword-only and
    saying how many chunks are still to embed; ``finish`` embeds them, then it is hybrid."""
    history = scripted.day_one(workspace)
    scripted.later_days(workspace, history)
    history.close()
    counting = Counting(minilm_embedder)
    eng = _open(workspace, counting)  # indexed only as it is now: day 1's texts are new to it
    try:
        eng.sync()
        counting.texts.clear()
        with open_history(workspace) as history:
            snap = asof.open_snapshot(eng, history, DAY3, embed=False)
        try:
            assert counting.texts == []  # nothing embedded before the first answer
            assert snap.pending == 2 and not snap.complete and snap.report is None
            assert snap.to_json()["pending_chunks"] == 2
            found = snap.search("Dana Whitfield pontoon importer", SearchSettings())
            assert found.result.pool.mode == "fts"
            ferry = [h for h in found.hits if h.hit.path == scripted.FERRY]
            assert ferry and "Dana Whitfield" in ferry[0].hit.text and ferry[0].changed_since
            steps: list[str] = []
            report = snap.finish(progress=lambda step: steps.append(step.phase))
            assert snap.pending == 0 and snap.complete and snap.report is report
            assert report.embedded == 2 and "embed" in steps
            assert all("Dana Whitfield" in t or "lighthouse" in t for t in counting.texts)
            hybrid = snap.search("who owns the ferry project", SearchSettings())
            assert hybrid.result.pool.mode == "hybrid"
            assert "Dana Whitfield" in next(h for h in hybrid.hits if h.hit.path == scripted.FERRY).hit.text
        finally:
            snap.close()
        counting.texts.clear()
        with open_history(workspace) as history:
            again = asof.open_snapshot(eng, history, DAY3, embed=False)  # finished: hybrid at once
        try:
            assert again.pending == 0 and again.report is not None and counting.texts == []
            assert again.search("ferry", SearchSettings()).result.pool.mode == "hybrid"
        finally:
            again.close()
    finally:
        eng.close()


def test_snapshots_live_in_the_data_dir_and_are_capped(workspace: Path) -> None:
    scripted.scripted(workspace)
    before = sorted(p.relative_to(workspace) for p in workspace.rglob("*"))
    eng = _open(workspace, None)
    try:
        days = [dt.date(2026, 11, d) for d in range(1, 8)]
        for day in days:
            _snapshot(eng, day).close()
        folders = sorted(p.name for p in snapshot.root().iterdir())
        assert len(folders) == snapshot.MAX_SNAPSHOTS
        assert folders == [snapshot.folder_for(workspace, d).name for d in days[-snapshot.MAX_SNAPSHOTS :]]
        assert paths.data_dir() in snapshot.root().parents
        # The snapshots' syncs keep no history of their own (their notes are the history's).
        stores = sorted(p.name for p in (paths.data_dir() / "history").glob("*.sqlite"))
        assert stores == [paths.history_path_for(workspace).name]
        # Opened again, the least recently used day goes, not the one just used.
        _snapshot(eng, days[3]).close()
        _snapshot(eng, days[0]).close()
        kept = {p.name for p in snapshot.root().iterdir()}
        assert snapshot.folder_for(workspace, days[3]).name in kept
        assert snapshot.folder_for(workspace, days[4]).name not in kept
    finally:
        eng.close()
    assert sorted(p.relative_to(workspace) for p in workspace.rglob("*")) == before


def test_a_reused_folder_follows_a_version_captured_later(workspace: Path) -> None:
    """A version captured afterwards with a time on that day replaces the folder's copy."""
    scripted.scripted(workspace)
    eng = _open(workspace, None)
    try:
        _snapshot(eng, DAY3).close()
        with open_history(workspace) as history:
            history.capture(
                scripted.FERRY, b"# Ferry\n\nOwned by Priya Raman.\n", source="disk", at=scripted.DAY1
            )
        snap = _snapshot(eng, DAY3)
        try:
            hits = snap.search("Priya Raman", SearchSettings()).hits
            assert [h.hit.path for h in hits] == [scripted.FERRY]
            assert not snap.search("Dana Whitfield", SearchSettings()).hits
        finally:
            snap.close()
    finally:
        eng.close()


def test_git_commits_count_as_versions(workspace: Path) -> None:
    """A note only git knows the old text of: day 3 answers from its commit."""
    scripted.write(workspace, "MEMORY.md", scripted.MEMORY)
    scripted.write(workspace, scripted.FERRY, scripted.FERRY_V1)
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "GIT_AUTHOR_DATE": "2026-11-01T12:00:00Z",
        "GIT_COMMITTER_DATE": "2026-11-01T12:00:00Z",
        "HOME": str(workspace.parent),
        "PATH": "/usr/bin:/bin",
    }
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "day 1"]):
        subprocess.run(["git", *args], cwd=workspace, env=env, check=True)
    with open_history(workspace) as history:
        history.capture(
            scripted.FERRY,
            scripted.write(workspace, scripted.FERRY, scripted.FERRY_V2),
            source="disk",
            at=scripted.DAY5,
        )
    eng = _open(workspace, None)
    try:
        snap = _snapshot(eng, DAY3)
        try:
            hits = snap.search("Dana Whitfield", SearchSettings()).hits
            assert [h.hit.path for h in hits] == [scripted.FERRY]
            assert hits[0].version.source == "git" and hits[0].changed_since
            assert "MEMORY.md" in snap.versions
        finally:
            snap.close()
    finally:
        eng.close()


def test_marking_hits_does_not_list_the_workspace(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """changed_since reads each hit's note alone: listing a large workspace once per hit
    made a search of a past day 3x slower than one of now (measured on the example)."""
    scripted.scripted(workspace)
    eng = _open(workspace, None)
    try:
        snap = _snapshot(eng, DAY3)
        try:
            from memdesk.core.index import workspace as workspace_mod

            def listing(*_args: object, **_kwargs: object) -> None:
                raise AssertionError("the workspace was listed to mark a hit")

            monkeypatch.setattr(workspace_mod, "list_memory_files", listing)
            found = snap.search("Dana Whitfield lighthouse migration", SearchSettings())
            marks = {h.hit.path: h.changed_since for h in found.hits}
            assert marks == {scripted.FERRY: True, scripted.GONE: True}
        finally:
            snap.close()
    finally:
        eng.close()


def test_a_dialog_notes_passage_windows_are_reused_too(workspace: Path, minilm_embedder: Any) -> None:
    """A note of short lines has passage-window vectors stored by its chunk's hash: the
    snapshot copies them with the chunk's vector, so nothing is embedded again."""
    history = scripted.day_one(workspace)
    turns = "".join(
        f"- Dana: turn {i} about the pontoon importer and its ferry schedule\n" for i in range(14)
    )
    dialog = "memory/2026-10-24.md"
    history.capture(
        dialog, scripted.write(workspace, dialog, "# 2026-10-24\n\n" + turns), source="disk", at=scripted.DAY1
    )
    history.close()
    counting = Counting(minilm_embedder)
    eng = _open(workspace, counting)
    try:
        eng.sync()
        counting.texts.clear()
        snap = _snapshot(eng, DAY3)
        try:
            assert counting.texts == []
            assert snap.report.embedded == 0
        finally:
            snap.close()
    finally:
        eng.close()
