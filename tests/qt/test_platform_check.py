"""The pre-flight check that names Qt's missing platform libraries and their packages."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from memdesk.qt import platform_check


@pytest.mark.parametrize(
    ("soname", "package"),
    [
        ("libxcb-cursor.so.0", "libxcb-cursor0"),
        ("libxcb-icccm.so.4", "libxcb-icccm4"),
        ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
        ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
        ("libX11-xcb.so.1", "libx11-xcb1"),
        ("libEGL.so.1", "libegl1"),
        ("libdbus-1.so.3", "libdbus-1-3"),
        ("libglib-2.0.so.0", "libglib2.0-0"),
        ("libz.so.1", "zlib1g"),
    ],
)
def test_debian_package_names(soname: str, package: str) -> None:
    assert platform_check.debian_package(soname) == package


def test_installed_plugin_is_found_and_complete() -> None:
    """On a machine set up by scripts/setup.sh nothing the xcb plugin needs is missing."""
    binaries = platform_check.qt_binaries("xcb")
    assert any(path.name == "libqxcb.so" for path in binaries)
    assert platform_check.missing_libraries(binaries) == []


@pytest.fixture
def library_with_absent_dependency(tmp_path: Path) -> Path:
    """A real shared object linked against a library that is then deleted."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.fail("no C compiler (setup installs build-essential)")
    (tmp_path / "dep.c").write_text("int memdesk_dep(void) { return 1; }\n")
    (tmp_path / "use.c").write_text("int memdesk_dep(void);\nint use(void) { return memdesk_dep(); }\n")
    dep = tmp_path / "libmemdeskabsent.so.7"
    subprocess.run(
        [
            cc,
            "-shared",
            "-fPIC",
            "-Wl,-soname,libmemdeskabsent.so.7",
            "-o",
            str(dep),
            str(tmp_path / "dep.c"),
        ],
        check=True,
    )
    user = tmp_path / "libuser.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(user), str(tmp_path / "use.c"), str(dep)], check=True)
    dep.unlink()
    return user


def test_missing_library_is_named_with_its_package(
    library_with_absent_dependency: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert platform_check.missing_libraries([library_with_absent_dependency]) == ["libmemdeskabsent.so.7"]
    monkeypatch.setattr(platform_check, "qt_binaries", lambda _platform: [library_with_absent_dependency])
    line = platform_check.problem({"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb"})
    assert line == (
        "Qt's xcb platform plugin cannot load: missing libmemdeskabsent.so.7; "
        "install them with: sudo apt-get install libmemdeskabsent7"
    )


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"QT_QPA_PLATFORM": "offscreen"}, None),
        ({}, "no display"),
        ({"QT_QPA_PLATFORM": "xcb"}, "DISPLAY is not set"),
    ],
)
def test_problem_by_environment(env: dict[str, str], expected: str | None) -> None:
    line = platform_check.problem(env)
    assert (line is None) if expected is None else (line is not None and expected in line)
