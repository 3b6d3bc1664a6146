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


@pytest.mark.parametrize(
    ("case", "body"),
    [
        ("nested_100k", b'{"a":' * 100_000 + b"1" + b"}" * 100_000),
        ("int_400_digits", b'{"profiles": {"memdesk": {"settings": {"max_results": 1' + b"0" * 400 + b"}}}}"),
        (
            "weight_400_digits",
            b'{"profiles": {"memdesk": {"settings": {"vector_weight": 9' + b"9" * 400 + b"}}}}",
        ),
    ],
)
def test_hostile_json_is_one_error_naming_the_file_or_the_defaults(
    tmp_path: Path, case: str, body: bytes
) -> None:
    """Deep nesting or a number no float holds: one MemdeskError naming the file, or
    the profile's defaults; never a RecursionError or OverflowError out of a search."""
    path = tmp_path / eval_tuned.TUNED_REL
    path.parent.mkdir()
    path.write_bytes(body)
    try:
        settings = eval_tuned.load_tuning(tmp_path).current()
    except errors.MemdeskError as exc:
        assert "tuned.json" in str(exc) and "\n" not in str(exc)
    else:
        assert settings == SearchSettings()
    assert eval_tuned.current_settings(tmp_path) == SearchSettings()
    assert path.read_bytes() == body


@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
def test_a_fifo_or_device_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    """A FIFO (no writer) or a symlink to /dev/zero must not hang a search that reads
    the workspace's settings: refused at once, with the defaults."""
    import os
    import time

    path = tmp_path / eval_tuned.TUNED_REL
    path.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    t0 = time.monotonic()
    with pytest.raises(errors.MemdeskError, match=r"tuned\.json"):
        eval_tuned.load_tuning(tmp_path)
    assert eval_tuned.current_settings(tmp_path) == SearchSettings()
    assert time.monotonic() - t0 < 5
