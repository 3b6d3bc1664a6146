"""The OpenClaw profiles' on-disk vectors: a round trip, pruning, and failures that lose nothing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memdesk.core.index import recipe_cache


def _vec(seed: int, dims: int = 8) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dims).astype(np.float32)
    return v / np.linalg.norm(v)


def test_round_trip_and_pruning(tmp_path: Path) -> None:
    path = recipe_cache.path_for(tmp_path / "ws-1234.sqlite")
    assert path.name == "ws-1234.sqlite.openclaw-vectors"
    cache = recipe_cache.RecipeCache(path)
    cache.put("k4", {"a": ("va4", _vec(1)), "b": ("vb4", _vec(2))}, keep=["a", "b"])
    cache.put("k9", {"a": ("va9", _vec(3))}, keep=["a"])
    cache.close()

    again = recipe_cache.RecipeCache(path)  # another process, later
    got = again.get("k4", ["a", "b", "c"])
    assert set(got) == {"a", "b"}
    assert (
        got["a"][0] == "va4" and np.array_equal(got["a"][1], _vec(1)) and np.array_equal(got["b"][1], _vec(2))
    )
    assert np.array_equal(again.get("k9", ["a"])["a"][1], _vec(3))  # recipes never mix by hash
    # By vector key, whichever recipe stored it.
    assert set(again.get_by_keys(["va9", "vb4", "nope"])) == {"va9", "vb4"}
    # A note edit: "b" is gone from the index, "c" is new; only this recipe's rows are pruned.
    again.put("k4", {"c": ("vc4", _vec(4))}, keep=["a", "c"])
    assert set(again.get("k4", ["a", "b", "c"])) == {"a", "c"}
    assert set(again.get("k9", ["a"])) == {"a"}
    again.close()


def test_unwritable_place_keeps_the_profile_working(tmp_path: Path) -> None:
    # The index folder's path leads through a file: SQLite cannot create the cache there
    # (as with a read-only data folder, which root could still write).
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    cache = recipe_cache.RecipeCache(recipe_cache.path_for(blocker / "ws.sqlite"))
    cache.put("k", {"a": ("v", _vec(1))}, keep=["a"])  # logged, not raised
    assert cache.get("k", ["a"]) == {}


def test_damaged_file_is_logged_not_raised(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = recipe_cache.path_for(tmp_path / "ws.sqlite")
    path.write_bytes(b"this is not an SQLite database" * 100)
    cache = recipe_cache.RecipeCache(path)
    cache.put("k", {"a": ("v", _vec(1))}, keep=["a"])
    assert cache.get("k", ["a"]) == {}
    assert (
        "not kept on disk" in caplog.text or "not saved" in caplog.text or "could not be read" in caplog.text
    )


def test_the_vectors_file_is_owner_only_under_umask_000(tmp_path: Path) -> None:
    """The file holds vectors of private notes; SQLite would create it under the umask."""
    import os
    import stat

    path = recipe_cache.path_for(tmp_path / "ws-1234.sqlite")
    old = os.umask(0)
    try:
        cache = recipe_cache.RecipeCache(path)
        cache.put("k4", {"a": ("v", _vec(1))}, keep=["a"])
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
        cache.close()
    finally:
        os.umask(old)
    assert modes and all(mode == 0o600 for mode in modes.values()), modes
