"""Print the .deb's Depends line: the Debian packages of every system library the bundle uses.

PyInstaller copies most shared libraries into the bundle but leaves out the system
ones (glibc, and libraries such as libxcb-cursor that are absent on the build machine
or excluded by policy). This runs ``ldd`` on every ELF file in the bundle, keeps the
libraries resolved outside it, and asks ``dpkg -S`` which package owns each one, much
as ``dpkg-shlibdeps`` does for a normal Debian build. A library that nothing on this
machine provides stops the build: the .deb would install and then fail to start.

Usage: ``python packaging/deb_depends.py dist/memdesk``
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path


def _is_elf(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"\x7fELF"
    except OSError:
        return False


def external_libraries(bundle: Path) -> tuple[set[str], set[str]]:
    """(paths of libraries outside the bundle, sonames that resolve nowhere)."""
    elves = [p for p in bundle.rglob("*") if p.is_file() and not p.is_symlink() and _is_elf(p)]
    env = dict(os.environ)
    # The bootloader puts the bundle's own library folder first, as ldd must.
    internal = bundle / "_internal"
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        str(p) for p in (internal, internal / "PySide6" / "Qt" / "lib") if p.is_dir()
    )
    outside: set[str] = set()
    missing: set[str] = set()
    root = str(bundle.resolve())
    for start in range(0, len(elves), 200):
        batch = [str(p) for p in elves[start : start + 200]]
        out = subprocess.run(["ldd", *batch], capture_output=True, text=True, env=env, check=False).stdout
        for line in out.splitlines():
            found = re.match(r"\s*(\S+) => (/\S+) \(", line)
            if found:
                real = os.path.realpath(found.group(2))
                if not real.startswith(root):
                    outside.add(found.group(2))
            elif re.match(r"\s*\S+ => not found", line):
                missing.add(line.split()[0])
    return outside, missing


def _variants(path: str) -> list[str]:
    # Debian's merged /usr: a library found as /lib/x86_64-linux-gnu/... may be owned as
    # /usr/lib/x86_64-linux-gnu/... (or the other way round), or under its real name.
    names = {path, os.path.realpath(path)}
    for name in list(names):
        if name.startswith("/usr/lib/"):
            names.add(name.removeprefix("/usr"))
        elif name.startswith("/lib"):
            names.add("/usr" + name)
    return sorted(names)


def owning_packages(paths: set[str]) -> set[str]:
    """The packages owning ``paths`` (one ``dpkg -S`` call for all of them)."""
    wanted = {path: _variants(path) for path in paths}
    every = sorted({name for names in wanted.values() for name in names})
    out = subprocess.run(["dpkg", "-S", *every], capture_output=True, text=True, check=False).stdout
    owner: dict[str, str] = {}
    for line in out.splitlines():
        package, sep, name = line.partition(": ")
        if sep and not package.startswith("diversion"):
            owner[name.strip()] = package.split(":")[0].split(",")[0].strip()
    packages: set[str] = set()
    for path, names in sorted(wanted.items()):
        found = [owner[name] for name in names if name in owner]
        if not found:
            raise SystemExit(f"deb_depends: no Debian package owns {path}")
        packages.add(found[0])
    return packages


def main() -> int:
    bundle = Path(sys.argv[1])
    outside, missing = external_libraries(bundle)
    if missing:
        raise SystemExit(
            "deb_depends: the bundle links against libraries this machine lacks: "
            + ", ".join(sorted(missing))
            + " (run scripts/setup.sh as root first)"
        )
    packages = owning_packages(outside)
    # The bundle needs at least the C library it was built against.
    glibc = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", "libc6"], capture_output=True, text=True, check=True
    ).stdout.split("-")[0]
    print(", ".join(f"libc6 (>= {glibc})" if p == "libc6" else p for p in sorted(packages)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
