"""A workspace's own search settings file (.memdesk/tuned.json)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.core import errors
from memdesk.core.eval import tuned as eval_tuned
from memdesk.core.search.settings import SearchSettings


def test_round_trip_keeps_each_profile_and_what_it_was_tuned_on(tmp_path: Path) -> None:
    tuned = SearchSettings().replace(vector_weight=0.9, text_weight=0.1)
    other = SearchSettings.defaults("openclaw-2026.4").replace(max_results=4)
    state = eval_tuned.WorkspaceTuning().with_settings(other).with_settings(tuned, tuned_queries=12)
    eval_tuned.save_tuning(tmp_path, state)
    back = eval_tuned.load_tuning(tmp_path)
    assert back == state
    assert back.current() == tuned
    assert back.settings("openclaw-2026.4") == other
    assert back.tuned_queries("memdesk") == 12
    assert back.tuned_queries("openclaw-2026.4") is None
    # Switching profile back and forth changes no value: still "tuned on 12".
    again = back.with_settings(other).with_settings(tuned)
    assert again.tuned_queries("memdesk") == 12
    # A value moved by hand: no longer what auto-tune chose.
    assert again.with_settings(tuned.replace(max_results=3)).tuned_queries("memdesk") is None


def test_a_workspace_without_the_file_has_the_defaults(tmp_path: Path) -> None:
    assert eval_tuned.load_tuning(tmp_path).current() == SearchSettings()
    assert eval_tuned.current_settings(tmp_path) == SearchSettings()


def test_unreadable_file_names_itself_and_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / eval_tuned.TUNED_REL
    path.parent.mkdir()
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(errors.MemdeskError, match=r"tuned\.json"):
        eval_tuned.load_tuning(tmp_path)
    assert eval_tuned.current_settings(tmp_path) == SearchSettings()
    assert path.read_text(encoding="utf-8") == "{not json"
