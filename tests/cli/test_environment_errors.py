"""When the machine says no (read-only or full data dir, another writer, a broken
model), every command answers with one line and loses nothing."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest


def _run(*args: str, home: Path, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MEMDESK_HOME=str(home))
    return subprocess.run(
        [sys.executable, "-m", "memdesk", *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def _digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _one_line_error(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode == 1, (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memdesk: error: "), out.stderr
    return lines[0]


def _mount_tmpfs(target: Path, size_kb: int) -> bool:
    target.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0700", "tmpfs", str(target)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A data dir on a 160 KiB filesystem: too small for the example workspace's index."""
    target = tmp_path / "small"
    if not _mount_tmpfs(target, 160):
        pytest.skip("needs root and mount to make a small filesystem")
    yield target
    subprocess.run(["umount", str(target)], check=False)


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A read-only data dir: a read-only mount as root (root ignores mode bits), else 0555."""
    target = tmp_path / "ro"
    if _mount_tmpfs(target, 1024):
        subprocess.run(["mount", "-o", "remount,ro", str(target)], check=True)
        yield target
        subprocess.run(["umount", str(target)], check=False)
        return
    target.chmod(0o555)
    yield target
    target.chmod(0o755)


def test_full_data_dir_is_one_line(example_workspace: Path, small_disk: Path) -> None:
    before = _digest(example_workspace)
    out = _run("index", "--workspace", str(example_workspace), "--model", "none", home=small_disk)
    assert "full" in _one_line_error(out)
    search = _run(
        "search", "Atlas", "--workspace", str(example_workspace), "--model", "none", home=small_disk
    )
    _one_line_error(search)
    assert _digest(example_workspace) == before


@pytest.mark.parametrize("kind", ["file", "symlink_loop"])
def test_a_data_dir_that_is_no_folder_is_one_line_saying_so(
    example_workspace: Path, tmp_path: Path, kind: str
) -> None:
    """MEMDESK_HOME naming a file or a symlink loop said "File exists: <path>"."""
    home = tmp_path / "home"
    if kind == "file":
        home.write_text("not a folder\n")
    else:
        home.symlink_to(home)
    out = _run("status", "--workspace", str(example_workspace), "--model", "none", home=home)
    line = _one_line_error(out)
    assert "not a folder" in line and str(home) in line


def test_read_only_data_dir_is_one_line(example_workspace: Path, read_only_dir: Path) -> None:
    before = _digest(example_workspace)
    for command in ("index", "status"):
        out = _run(command, "--workspace", str(example_workspace), "--model", "none", home=read_only_dir)
        assert "read-only" in _one_line_error(out).lower()
    assert _digest(example_workspace) == before


def test_two_indexers_at_once_take_turns(tmp_path: Path) -> None:
    """Two ``memdesk index`` on one workspace, twice: both always finish (they
    take turns with immediate transactions and a busy timeout) and the index is
    complete. Before, one died with BusyError in most trials."""
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    rng = np.random.default_rng(0)
    words = np.array(
        [
            "alpha",
            "beta",
            "gamma",
            "delta",
            "atlas",
            "harbor",
            "deploy",
            "token",
            "database",
            "sqlite",
            "vector",
        ]
    )
    for i in range(1500):
        lines = [" ".join(rng.choice(words, 12)) for _ in range(30)]
        (root / "memory" / f"n{i:04d}.md").write_text("\n".join(lines), encoding="utf-8")
    for trial in range(2):
        home = tmp_path / f"home-{trial}"
        env = dict(os.environ, MEMDESK_HOME=str(home))
        cmd = [sys.executable, "-m", "memdesk", "index", "--workspace", str(root), "--model", "none"]
        procs = [
            subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for _ in range(2)
        ]
        outs = [p.communicate(timeout=600) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], [err[-500:] for _, err in outs]
        status = _run("status", "--workspace", str(root), "--model", "none", home=home)
        assert "1500 indexed, 0 dirty" in status.stdout


def test_model_with_nan_weights_falls_back_to_keyword_search(
    example_workspace: Path, minilm_path: Path, tmp_path: Path, memdesk_home: Path
) -> None:
    """A GGUF whose weights are NaN loads, but is probed at load: one line saying why,
    then keyword search, instead of a TypeError on every search."""
    import gguf

    broken = tmp_path / "nan.gguf"
    shutil.copy(minilm_path, broken)
    reader = gguf.GGUFReader(str(broken), "r+")
    tensor = next(t for t in reader.tensors if t.name == "token_embd.weight")
    tensor.data[...] = np.nan
    reader.data.flush()
    del reader
    out = _run(
        "search",
        "Atlas database",
        "--workspace",
        str(example_workspace),
        "--model",
        str(broken),
        "--json",
        home=memdesk_home,
    )
    assert out.returncode == 0, out.stderr
    assert "non-finite" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert '"mode": "fts"' in out.stdout and '"path"' in out.stdout
