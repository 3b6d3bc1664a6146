"""A hostile or odd ``openclaw.json`` costs one line naming the file, fast (issue 22).

Each case that used to hang (a FIFO, ``/dev/zero``) or take minutes (size) runs in a
subprocess with a timeout, so a regression fails the test instead of blocking the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from memdesk.core.agent import config, config_file

# A guard against a hang, not a benchmark: the cases below take milliseconds, but the
# child's wall time includes starting Python and importing memdesk, which on a loaded CI
# machine took seconds; a hang (a FIFO read) never ends, so any generous bound finds it.
HANG_GUARD_S = 20.0
# The parse's own CPU seconds in the child (not wall time: the CI machine may be busy).
# The defect took 11-21 CPU-s a megabyte; the fix ~0.45 s here: 2 s leaves a slower CPU 4x.
PARSE_CPU_S = 2.0


def _write(folder: Path, data: bytes | str, name: str = "openclaw.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def _run_discover(cfg: Path, timeout: float = 30) -> tuple[subprocess.CompletedProcess[str], float]:
    """``config.discover(config_file=cfg)`` in a child; prints the error line or 'OK'."""
    code = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from memdesk.core.agent import config
        t0 = time.process_time()
        try:
            setup = config.discover(config_file=Path({str(cfg)!r}))
        except config.OpenClawConfigError as exc:
            print("ERROR", time.process_time() - t0, str(exc), sep="\\t")
        else:
            print("OK", time.process_time() - t0, *setup.warnings, sep="\\t")
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    return done, time.perf_counter() - start


def _one_error(cfg: Path, *needles: str) -> str:
    """The single error line for ``cfg``, checked to name the file and each needle."""
    with pytest.raises(config.OpenClawConfigError) as caught:
        config.discover(config_file=cfg)
    text = str(caught.value)
    assert "\n" not in text and str(cfg) in text, text
    for needle in needles:
        assert needle in text, text
    return text


# -- bytes that are not UTF-8 ------------------------------------------------------------
def test_latin1_comment_is_read_as_openclaw_reads_it_with_one_warning(tmp_path: Path) -> None:
    # Node's readFileSync(path, "utf-8") turns the byte into U+FFFD and OpenClaw runs
    # with the config; memdesk shows the same config and names the byte.
    body = b'{\n  // caf\xe9 settings\n  memory: { search: { query: { maxResults: 4 } } },\n  name: "x\xe9",\n}\n'
    cfg = _write(tmp_path / "state", body)
    setup = config.discover(config_file=cfg)
    assert setup.agent().search is not None and setup.agent().search.max_results == 4
    assert setup.config["name"] == "x\ufffd"
    lines = [w for w in setup.warnings if "UTF-8" in w]
    assert len(lines) == 1 and "\n" not in lines[0]
    first = body.index(0xE9)
    assert str(cfg) in lines[0] and f"byte {first}" in lines[0] and "line 2" in lines[0]
    assert "1 more place" in lines[0]


def test_not_utf8_include_is_named(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _write(state, b"{query: {minScore: 0.2}} // \xff", "m.json5")
    cfg = _write(state, json.dumps({"memory": {"search": {"$include": "./m.json5"}}}))
    setup = config.discover(config_file=cfg)
    assert setup.agent().search is not None and setup.agent().search.min_score == 0.2
    assert any(str(state / "m.json5") in w and "UTF-8" in w for w in setup.warnings)


# -- wrong types -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "cfg_json, key, wanted",
    [
        ({"memory": {"search": {"query": {"minScore": "high"}}}}, "memory.search.query.minScore", "a number"),
        (
            {"memory": {"search": {"query": {"maxResults": [1]}}}},
            "memory.search.query.maxResults",
            "a number",
        ),
        (
            {"agents": {"defaults": {"memorySearch": {"query": {"minScore": "high"}}}}},
            "agents.defaults.memorySearch.query.minScore",
            "a number",
        ),
        (
            {"agents": {"list": [{"id": "a", "memorySearch": {"query": {"maxResults": [1]}}}]}},
            "agents.list[0].memorySearch.query.maxResults",
            "a number",
        ),
        (
            {"agents": {"entries": {"work": {"memory": {"search": {"enabled": "no"}}}}}},
            "agents.entries.work.memory.search.enabled",
            "true or false",
        ),
        ({"agents": {"list": [{"id": "a", "workspace": 7}]}}, "agents.list[0].workspace", "a string"),
        ({"memory": {"search": {"extraPaths": "notes"}}}, "memory.search.extraPaths", "a list"),
        ({"agents": {"list": "main"}}, "agents.list", "a list"),
    ],
)
def test_wrong_type_names_file_key_and_expected_type(
    tmp_path: Path, cfg_json: dict[str, object], key: str, wanted: str
) -> None:
    cfg = _write(tmp_path / "state", json.dumps(cfg_json))
    _one_error(cfg, key, f"expects {wanted}")


def test_wrong_type_from_an_include_is_caught(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _write(state, "{query: {minScore: 'high'}}", "m.json5")
    cfg = _write(state, json.dumps({"memory": {"search": {"$include": "./m.json5"}}}))
    _one_error(cfg, "memory.search.query.minScore", '"high"')


# -- nesting -----------------------------------------------------------------------------
@pytest.mark.parametrize("syntax", ["json", "json5"])
def test_5000_deep_nesting_is_refused_fast(tmp_path: Path, syntax: str) -> None:
    depth = 5000
    inner = '{"a":' * depth + "1" + "}" * depth
    text = '{"x": ' + inner + "}" if syntax == "json" else "{x: " + inner + ", // deep\n}"
    cfg = _write(tmp_path / "state", text)
    done, elapsed = _run_discover(cfg)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    status, _, message = done.stdout.strip().split("\t")
    assert status == "ERROR" and str(cfg) in message and "5001 levels" in message
    assert elapsed < HANG_GUARD_S


def test_brackets_in_strings_and_comments_do_not_count(tmp_path: Path) -> None:
    noise = "[{" * 200
    text = f"{{ // {noise}\n name: \"{noise}\", note: '{noise}', /* {noise} */ }}"
    assert config_file.nesting_depth(text) == 1
    cfg = _write(tmp_path / "state", text)
    assert config.discover(config_file=cfg).config["name"] == noise


def test_deep_nesting_across_includes_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "state"
    deep = '{"a":' * 30 + "1" + "}" * 30  # under the limit alone
    _write(state, deep, "deep.json")
    cfg = _write(state, '{"b":' * 10 + '{"$include": "./deep.json"}' + "}" * 10)
    _one_error(cfg, "nest over")


# -- things that are not regular files ---------------------------------------------------
def test_include_of_a_fifo_does_not_hang(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(state / "pipe.json5")
    cfg = _write(state, json.dumps({"memory": {"$include": "./pipe.json5"}}))
    done, elapsed = _run_discover(cfg, timeout=HANG_GUARD_S * 2)
    status, _, message = done.stdout.strip().split("\t")
    assert status == "ERROR" and str(state / "pipe.json5") in message and "a FIFO" in message
    assert elapsed < HANG_GUARD_S


def test_config_that_is_a_fifo_does_not_hang(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(state / "openclaw.json")
    done, elapsed = _run_discover(state / "openclaw.json", timeout=HANG_GUARD_S * 2)
    status, _, message = done.stdout.strip().split("\t")
    assert status == "ERROR" and "a FIFO" in message and elapsed < HANG_GUARD_S


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_include_of_dev_zero_is_refused_at_once(tmp_path: Path) -> None:
    cfg = _write(tmp_path / "state", json.dumps({"memory": {"$include": "/dev/zero"}}))
    done, elapsed = _run_discover(cfg, timeout=HANG_GUARD_S * 2)
    status, _, message = done.stdout.strip().split("\t")
    assert status == "ERROR" and "/dev/zero" in message and "a character device" in message
    assert elapsed < HANG_GUARD_S


def test_include_of_a_folder_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "state"
    (state / "sub").mkdir(parents=True)
    cfg = _write(state, json.dumps({"memory": {"$include": "./sub"}}))
    _one_error(cfg, str(state / "sub"), "a folder")


# -- includes that multiply --------------------------------------------------------------
def test_include_cycle_is_named(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _write(state, '{"$include": "./b.json"}', "a.json")
    _write(state, '{"$include": "./a.json"}', "b.json")
    cfg = _write(state, '{"x": {"$include": "./a.json"}}')
    _one_error(cfg, "circle", "a.json -> ", "b.json")


def test_include_fan_out_is_bounded(tmp_path: Path) -> None:
    # Ten files each including the next one ten times: 10**9 reads without a total cap.
    state = tmp_path / "state"
    for i in range(9):
        _write(state, json.dumps({"$include": [f"./f{i + 1}.json"] * 10}), f"f{i}.json")
    _write(state, '{"v": 1}', "f9.json")
    cfg = _write(state, json.dumps({"x": {"$include": "./f0.json"}}))
    done, elapsed = _run_discover(cfg, timeout=HANG_GUARD_S * 2)
    status, _, message = done.stdout.strip().split("\t")
    assert status == "ERROR" and f"more than {config.MAX_INCLUDES} included files" in message
    assert elapsed < HANG_GUARD_S


# -- size --------------------------------------------------------------------------------
def _big_config(size: int, *, syntax: str = "json") -> str:
    """A config just under ``size`` bytes: many plugin entries (every OpenClaw schema
    allows those) and one agent; ``syntax`` "json", "json5" (comments, unquoted keys,
    trailing commas) or "rare-json5" (also a hex number, which only ``json5`` reads)."""

    def text(count: int) -> str:
        plugins = {
            f"plugin-{i:06d}": {"enabled": True, "config": {"note": f"n{i:06d}"}} for i in range(count)
        }
        cfg = {"agents": {"list": [{"id": "main"}]}, "plugins": {"entries": plugins}}
        body = json.dumps(cfg, indent=1)
        if syntax == "json":
            return body
        body = "// many plugins\n" + body.replace('"enabled"', "enabled").replace("}\n", "},\n")
        return body.replace('"main"', '"main", port: 0x1F') if syntax == "rare-json5" else body

    per_entry = len(text(101)) - len(text(100))
    out = text(max(1, (size - 200) // per_entry))
    assert len(out) <= size
    return out


@pytest.mark.parametrize("megabytes", [5, 50])
def test_huge_config_is_refused_at_once(tmp_path: Path, megabytes: int) -> None:
    cfg = tmp_path / "state" / "openclaw.json"
    cfg.parent.mkdir()
    with cfg.open("w") as handle:
        handle.write('{"pad": "')
        handle.write("x" * (megabytes * 1_000_000))
        handle.write('"}')
    done, elapsed = _run_discover(cfg)
    status, _, message = done.stdout.strip().split("\t")
    assert status == "ERROR" and str(cfg) in message and "1,024 KiB limit" in message
    assert elapsed < HANG_GUARD_S


@pytest.mark.parametrize("syntax", ["json", "json5"])
def test_one_megabyte_config_reads_in_well_under_a_second(tmp_path: Path, syntax: str) -> None:
    """Plain JSON through the stdlib, everyday JSON5 through ``json5_as_json`` (the json5
    package took 11 s a megabyte)."""
    cfg = _write(tmp_path / "state", _big_config(1_000_000, syntax=syntax))
    done, elapsed = _run_discover(cfg)
    status, seconds, *_ = done.stdout.strip().split("\t")
    assert status == "OK", done.stdout + done.stderr
    assert float(seconds) < PARSE_CPU_S and elapsed < HANG_GUARD_S


def test_one_megabyte_of_rare_json5_is_refused_fast_not_parsed_for_11_seconds(tmp_path: Path) -> None:
    cfg = _write(tmp_path / "state", _big_config(1_000_000, syntax="rare-json5"))
    done, elapsed = _run_discover(cfg)
    status, seconds, message = done.stdout.strip().split("\t")
    assert (
        status == "ERROR" and str(cfg) in message and "KiB memdesk parses with the json5 package" in message
    )
    assert float(seconds) < PARSE_CPU_S and elapsed < HANG_GUARD_S


def test_rare_json5_up_to_its_limit_still_reads(tmp_path: Path) -> None:
    cfg = _write(tmp_path / "state", _big_config(config_file.MAX_JSON5_BYTES, syntax="rare-json5"))
    done, elapsed = _run_discover(cfg)
    status, *_ = done.stdout.strip().split("\t")
    assert status == "OK", done.stdout + done.stderr
    assert elapsed < HANG_GUARD_S


# -- the command line --------------------------------------------------------------------
@pytest.mark.parametrize(
    "body, needle",
    [
        (b'{"memory": {"search": {"query": {"minScore": "high"}}}}', "minScore"),
        (b'{"x":' + b"[" * 5000 + b"]" * 5000 + b"}", "levels deep"),
    ],
)
def test_cli_prints_one_line_and_fails(tmp_path: Path, body: bytes, needle: str) -> None:
    cfg = _write(tmp_path / "state", body)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
        "MEMDESK_HOME": str(tmp_path / "home"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "memdesk", "agent", "status", "--config", str(cfg)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert str(cfg) in lines[0] and needle in lines[0]


def test_cli_search_with_an_agent_profile_says_why_it_ranks_with_defaults(tmp_path: Path) -> None:
    """The profile searches with the release's defaults when openclaw.json cannot be
    read; before, the reason was only in the log (``-v``)."""
    cfg = _write(tmp_path / "state", b'{"memory": {"search": {"query": {"minScore": "high"}}}}')
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "2026-01-02.md").write_text("# Day\n\nThe ferry leaves at nine.\n", encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
        "MEMDESK_HOME": str(tmp_path / "home"),
        "OPENCLAW_CONFIG_PATH": str(cfg),
    }
    command = [sys.executable, "-m", "memdesk", "search", "--workspace", str(ws), "--model", "none"]
    done = subprocess.run(
        [*command, "--profile", "openclaw-2026.9", "ferry"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "memory/2026-01-02.md" in done.stdout
    warnings = [line for line in done.stderr.splitlines() if str(cfg) in line]
    assert len(warnings) == 1 and "minScore" in warnings[0] and "defaults" in warnings[0], done.stderr
    assert "Traceback" not in done.stderr
