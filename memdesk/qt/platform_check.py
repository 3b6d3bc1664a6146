"""Can Qt open a window here? Checked before any QApplication exists.

When its platform plugin cannot load, Qt prints a multi-line hint and aborts the
process. memdesk looks first: it reads the shared libraries of the xcb plugin (and of
the Qt modules it imports) with ``ldd`` and, if some are missing, says in one line
which ones and which Debian packages provide them. Nothing here imports a Qt module,
since importing one is exactly what fails when its libraries are missing.

``python -m memdesk.qt.platform_check --apt-packages`` prints those packages for
``scripts/setup.sh``; ``--check`` prints the problem line, if any.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

# Debian names a library package after the soname: libxcb-cursor.so.0 -> libxcb-cursor0,
# libxkbcommon-x11.so.0 -> libxkbcommon-x11-0 (a hyphen when the name ends in a digit).
# These are the exceptions among the libraries Qt links against.
_PACKAGE_EXCEPTIONS = {
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libgio-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libgmodule-2.0.so.0": "libglib2.0-0",
    "libz.so.1": "zlib1g",
    "libharfbuzz.so.0": "libharfbuzz0b",
    "libbrotlidec.so.1": "libbrotli1",
    "libbrotlicommon.so.1": "libbrotli1",
    "libGLdispatch.so.0": "libglvnd0",
    "libgcc_s.so.1": "libgcc-s1",
}

# The Qt modules memdesk imports; their libraries matter on any platform.
_QT_MODULES = ("QtCore", "QtGui", "QtWidgets", "QtSvg")
# Plugins beside the platform plugin that the window needs (SVG icons).
_EXTRA_PLUGINS = ("imageformats/libqsvg.so", "iconengines/libqsvgicon.so")


def debian_package(soname: str) -> str:
    """The Debian package that ships ``soname`` (by Debian's naming rule)."""
    if soname in _PACKAGE_EXCEPTIONS:
        return _PACKAGE_EXCEPTIONS[soname]
    match = re.fullmatch(r"lib(.+)\.so\.(\d+)(?:\.\d+)*", soname)
    if match is None:
        return soname
    name, version = match.group(1).lower().replace("_", "-"), match.group(2)
    return f"lib{name}{'-' if name[-1].isdigit() else ''}{version}"


def pyside_dir() -> Path | None:
    """The installed PySide6 package folder, found without importing it."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _plugin_dirs(pyside: Path) -> list[Path]:
    dirs = [Path(p) for p in os.environ.get("QT_PLUGIN_PATH", "").split(os.pathsep) if p]
    return [*dirs, pyside / "Qt" / "plugins"]


def qt_binaries(platform: str = "xcb") -> list[Path]:
    """The platform plugin for ``platform`` plus everything else memdesk loads from Qt."""
    pyside = pyside_dir()
    if pyside is None:
        return []
    found: list[Path] = []
    for plugins in _plugin_dirs(pyside):
        candidates = [plugins / "platforms" / f"libq{platform}.so"]
        candidates += [plugins / rel for rel in _EXTRA_PLUGINS]
        if platform == "xcb":
            candidates += sorted((plugins / "xcbglintegrations").glob("*.so"))
        found += [path for path in candidates if path.is_file()]
        if found:
            break
    for module in _QT_MODULES:
        found += sorted(pyside.glob(f"{module}.*.so"))
    return found


def missing_libraries(binaries: Sequence[Path]) -> list[str]:
    """Sonames that ``binaries`` link against and the dynamic loader cannot find."""
    ldd = shutil.which("ldd")
    if ldd is None or not binaries:
        return []
    result = subprocess.run([ldd, *map(str, binaries)], capture_output=True, text=True, check=False)
    missing = re.findall(r"^\s*(\S+) => not found", result.stdout, flags=re.MULTILINE)
    return sorted(set(missing))


def chosen_platform(env: Mapping[str, str]) -> str | None:
    """The platform Qt will try: ``QT_QPA_PLATFORM``'s first choice, else by display."""
    requested = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if requested:
        return requested
    if env.get("WAYLAND_DISPLAY") and not env.get("DISPLAY"):
        return "wayland"
    return "xcb" if env.get("DISPLAY") else None


def _x_server_reachable(display: str) -> bool:
    # A local display ":N" is a socket in /tmp/.X11-unix; remote or forwarded ones
    # ("host:N", SSH's "localhost:10") are not checked here.
    match = re.fullmatch(r"(?:unix)?:(\d+)(?:\.\d+)?", display)
    if match is None:
        return True
    return Path(f"/tmp/.X11-unix/X{match.group(1)}").exists()


def problem(env: Mapping[str, str] | None = None) -> str | None:
    """One line saying why Qt cannot open a window, or None when it should be able to."""
    env = os.environ if env is None else env
    platform = chosen_platform(env)
    if platform is None:
        return (
            "no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set); "
            "start memdesk in a desktop session, or use --screenshot, which needs none"
        )
    if platform != "xcb":
        return None
    display = env.get("DISPLAY", "")
    if not display:
        return "QT_QPA_PLATFORM=xcb but DISPLAY is not set: there is no X server to open a window on"
    missing = missing_libraries(qt_binaries("xcb"))
    if missing:
        packages = " ".join(sorted({debian_package(name) for name in missing}))
        return (
            f"Qt's xcb platform plugin cannot load: missing {', '.join(missing)}; "
            f"install them with: sudo apt-get install {packages}"
        )
    if not _x_server_reachable(display):
        return f"cannot reach the X display {display}: no X server is listening there"
    return None


def prepare(*, screenshot: bool) -> str | None:
    """Get the environment ready for ``memdesk gui``; the problem line, if a window cannot open.

    A screenshot needs no screen: without a display it renders offscreen (CI, SSH).
    """
    env = os.environ
    if (
        screenshot
        and "QT_QPA_PLATFORM" not in env
        and not env.get("DISPLAY")
        and not env.get("WAYLAND_DISPLAY")
    ):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    return problem()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m memdesk.qt.platform_check", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument(
        "--apt-packages",
        action="store_true",
        help="print the Debian packages that provide Qt's missing libraries",
    )
    group.add_argument(
        "--check", action="store_true", help="print why no window can open here (exit 1), or nothing (exit 0)"
    )
    args = parser.parse_args(argv)
    if args.apt_packages:
        missing = missing_libraries(qt_binaries("xcb"))
        print(" ".join(sorted({debian_package(name) for name in missing})))
        return 0
    line = problem()
    if line:
        print(f"memdesk: {line}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
