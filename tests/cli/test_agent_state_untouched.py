"""memdesk reads the agent's state and never writes it: every read path, every journal mode.

The state folder (``~/.openclaw``: config, the agent database, transcripts, the
workspace) is hashed before and after each command (names, types, modes, bytes), with
the agent database in WAL mode while another process holds it open with committed
frames not yet in the main file, in WAL mode cleanly closed (where a ``mode=ro``
connection creates ``-wal``/``-shm``), in rollback mode, and on a read-only bind mount
(in a private mount namespace). The WAL-only change must be seen, too: a consistent
snapshot of what the agent committed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "openclaw"
AGENT_DB = FIXTURES / "2026.9.6" / "agent-index" / "sessions-fts-openclaw-agent.sqlite"
SESSIONS = FIXTURES / "workspaces" / "sessions" / "state" / "agents" / "main" / "sessions"
EXAMPLE = REPO / "examples" / "workspace"
# A time no real chunk has: the committed change that lives only in the WAL.
WAL_ONLY_UPDATE = 4102444800000  # 2100-01-01 in ms
READ_PATHS: list[tuple[str, ...]] = [
    ("agent", "status", "--json"),
    ("agent", "search", "Atlas database", "--json"),
    ("agent", "sessions", "--json"),
    ("agent", "sessions", "--query", "backup", "--json"),
    ("doctor", "--openclaw", "--json"),
    ("search", "Atlas database", "--profile", "openclaw-2026.9", "--json"),
    ("search", "Atlas database", "--profile", "openclaw-2026.4", "--json"),
]

WRITER = """
import sys, apsw
db = apsw.Connection(sys.argv[1])
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA wal_autocheckpoint=0")
db.execute("UPDATE memory_index_chunks SET updated_at = ? WHERE rowid = (SELECT MIN(rowid) FROM memory_index_chunks)", (int(sys.argv[2]),))
print("ready", flush=True)
sys.stdin.read()
"""


def tree_state(root: Path) -> dict[str, tuple[int, int, str | None]]:
    """Every entry under ``root``: (file type, permission bits, sha256 of the bytes or
    the link's target)."""
    out: dict[str, tuple[int, int, str | None]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames, *([] if dirpath != str(root) else ["."])]:
            path = os.path.join(dirpath, name) if name != "." else str(root)
            st = os.lstat(path)
            content: str | None = None
            if stat.S_ISREG(st.st_mode):
                with open(path, "rb") as handle:
                    content = hashlib.sha256(handle.read()).hexdigest()
            elif stat.S_ISLNK(st.st_mode):
                content = os.readlink(path)
            out[os.path.relpath(path, root)] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), content)
    return out


def make_state(home: Path, journal: str) -> Path:
    """``home/.openclaw`` as a 2026.9 agent leaves it, its database in ``journal`` mode."""
    import apsw

    state = home / ".openclaw"
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    db.parent.mkdir(parents=True)
    shutil.copyfile(AGENT_DB, db)
    conn = apsw.Connection(str(db))
    conn.execute(f"PRAGMA journal_mode={journal}")
    conn.close()
    shutil.copytree(SESSIONS, state / "agents" / "main" / "sessions")
    shutil.copytree(EXAMPLE, state / "workspace")
    config = {
        "agents": {"defaults": {"workspace": str(state / "workspace")}},
        "memory": {"search": {"provider": "none", "sources": ["memory", "sessions"]}},
    }
    (state / "openclaw.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    (state / "openclaw.json").chmod(0o600)
    assert not Path(str(db) + "-wal").exists() and not Path(str(db) + "-shm").exists()
    return state


def run(
    args: tuple[str, ...], home: Path, memdesk_home: Path, *, readonly: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, HOME=str(home), MEMDESK_HOME=str(memdesk_home), PYTHONPATH=str(REPO))
    env.pop("OPENCLAW_STATE_DIR", None)
    env.pop("OPENCLAW_CONFIG_PATH", None)
    command = [sys.executable, "-m", "memdesk", *args]
    if readonly is not None:
        # A read-only bind mount of the state folder over itself, in a private mount
        # namespace (gone with the process): root cannot write it either.
        script = 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" "$0" && exec "$@"'
        command = ["unshare", "-m", "--propagation", "private", "sh", "-c", script, str(readonly), *command]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, check=False)


def check_read_paths(
    home: Path, memdesk_home: Path, state: Path, *, readonly: bool = False
) -> dict[str, object]:
    results: dict[str, object] = {}
    for args in READ_PATHS:
        before = tree_state(state)
        out = run(args, home, memdesk_home, readonly=state if readonly else None)
        after = tree_state(state)
        assert out.returncode in (0, 2), f"{args}: {out.stderr}"  # doctor: 2 = findings
        assert after == before, f"{args} changed the agent's state: " + repr(
            {
                k: (before.get(k), after.get(k))
                for k in set(before) | set(after)
                if before.get(k) != after.get(k)
            }
        )
        results[" ".join(args)] = json.loads(out.stdout)
    status = results["agent status --json"]
    assert isinstance(status, dict) and status["index"]["available"], status
    hits = results["agent sessions --query backup --json"]
    assert isinstance(hits, dict) and hits["results"], "the agent's sessions were not read"
    return results


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.mark.parametrize("journal", ["WAL", "DELETE"])
def test_a_closed_database_is_read_and_left_as_it_was(home: Path, memdesk_home: Path, journal: str) -> None:
    state = make_state(home, journal)
    check_read_paths(home, memdesk_home, state)


@pytest.fixture
def live_writer(home: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    state = make_state(home, "WAL")
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), str(WAL_ONLY_UPDATE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        yield state, writer
    finally:
        writer.communicate("", timeout=60)


def test_a_database_the_agent_holds_open_is_read_as_committed(
    live_writer: tuple[Path, subprocess.Popen[str]], home: Path, memdesk_home: Path
) -> None:
    state, _writer = live_writer
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    assert Path(str(db) + "-wal").stat().st_size > 0  # the change is in the WAL only
    results = check_read_paths(home, memdesk_home, state)
    status = results["agent status --json"]
    assert isinstance(status, dict)
    assert status["index"]["lastUpdate"].startswith("2100-01-01"), status["index"]


def _can_bind_mount_readonly(tmp_path: Path) -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    script = 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" "$0" && ! touch "$0/x" 2>/dev/null'
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script, str(probe)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0 and not (probe / "x").exists()


@pytest.mark.parametrize("journal", ["WAL", "DELETE"])
def test_a_read_only_mount_is_read(home: Path, memdesk_home: Path, tmp_path: Path, journal: str) -> None:
    if not _can_bind_mount_readonly(tmp_path):
        pytest.skip("needs root and mount namespaces (unshare -m) for a read-only bind mount")
    state = make_state(home, journal)
    check_read_paths(home, memdesk_home, state, readonly=True)


@pytest.mark.parametrize("name", ["a#b?c%d", "x%41y"])
def test_a_state_folder_named_with_uri_characters(tmp_path: Path, memdesk_home: Path, name: str) -> None:
    """``#``, ``?`` and ``%`` in the state folder's path end or garble a hand-built
    SQLite URI: the sessions looked "not imported" and the index unreadable."""
    home = tmp_path / name
    home.mkdir()
    state = make_state(home, "DELETE")  # rollback: only the URI is in question
    results = check_read_paths(home, memdesk_home, state)
    listed = results["agent sessions --json"]
    assert isinstance(listed, dict)
    assert any(t["stored"] == "agent database" for t in listed["transcripts"])  # type: ignore[index]
