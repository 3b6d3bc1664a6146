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

# The default model ships built (F16, the portable format): a first start then needs no
# conversion step and the bundle needs neither the source-weight packages nor the
# converters' inputs. Only that one: the other model is built from a checkout
# (`memdesk model build minilm`). Its vocabulary-free encoder file is not shipped
# either (42 MB, the same weights again): the first load derives it into the user's
# cache (embed/encoder_file.py).
DEFAULT_MODEL="$(python -c 'from memdesk.core.embed.models import registry; print(registry.DEFAULT_MODEL)')"
echo "build: building the default embedding model ($DEFAULT_MODEL) into the bundle"
MEMDESK_HOME="$PWD/$BUILD/home" memdesk model build "$DEFAULT_MODEL" --weights f16
rm -f "$BUILD/home/models/"*.encoder
export MEMDESK_BUNDLE_MODELS="$PWD/$BUILD/home/models"

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
# The shipped model's sha256 sidecar, made now (keyed by size and mtime, which the .deb
# and the tarball keep): the installed app then neither hashes 100 MB at its first
# start nor writes anything into /opt/memdesk.
python - "$BUNDLE/_internal/models" <<'PY'
import sys
from pathlib import Path

from memdesk.core.embed.model_digest import file_sha256

for model in sorted(Path(sys.argv[1]).glob("*.gguf")):
    print(f"build: {model.name} sha256 {file_sha256(model)[:12]}…")
PY
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
dpkg-deb --root-owner-group -Zzstd --build "$ROOT" "$DEB" >/dev/null

echo "build: writing the tarball"
TARBALL="$DIST/memdesk-$VERSION-linux-$(uname -m).tar.gz"
tar -C "$DIST" -czf "$TARBALL" memdesk

echo "build: done in $((SECONDS - start)) s"
du -sh "$BUNDLE" "$DEB" "$TARBALL"
