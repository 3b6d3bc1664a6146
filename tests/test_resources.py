"""The desktop entry and AppStream metainfo in resources/: named by the app id, valid."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from memdesk.core import paths

RESOURCES = Path(__file__).resolve().parents[1] / "resources"
DESKTOP = RESOURCES / f"{paths.DESKTOP_ID}.desktop"
METAINFO = RESOURCES / f"{paths.DESKTOP_ID}.metainfo.xml"


def test_files_and_ids_agree() -> None:
    root = ET.parse(METAINFO).getroot()
    assert root.findtext("id") == paths.DESKTOP_ID
    assert root.findtext("launchable") == DESKTOP.name
    # Reverse DNS with an owner and a name (io.github.<owner>.<repository>), not a bare host.
    parts = paths.DESKTOP_ID.split(".")
    assert len(parts) >= 4 and all(p and p.isascii() and p.replace("_", "").isalnum() for p in parts)
    assert sorted(p.name for p in RESOURCES.glob("*.desktop")) == [DESKTOP.name]


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-utils not installed")
def test_desktop_entry_validates() -> None:
    run = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True)
    # It prints hints as well as errors; a clean entry prints nothing at all.
    assert (run.returncode, run.stdout + run.stderr) == (0, "")


@pytest.mark.skipif(shutil.which("appstreamcli") is None, reason="appstream not installed")
def test_metainfo_validates_pedantically() -> None:
    run = subprocess.run(
        ["appstreamcli", "validate", "--pedantic", "--no-net", str(METAINFO)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Validation was successful" in run.stdout, run.stdout
