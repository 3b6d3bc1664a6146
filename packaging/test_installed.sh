#!/usr/bin/env bash
# Install the .deb that packaging/build.sh made, use it as an end user would, uninstall.
# As root: apt installs the package with its dependencies, then the installed
# launcher (no virtualenv anywhere on the PATH, a fresh HOME) opens a copy of the
# example workspace on a real X display (Xvfb, xcb platform), runs a query and saves a
# screenshot; the screenshot must show the app (not one flat colour). With a third
# argument it also saves the same search in the Chinese UI (LANG=zh_CN.UTF-8). Then it purges
# the package and checks nothing of it is left. Prints the figures as one JSON object
# on its last line.
#   bash packaging/test_installed.sh [dist/memdesk_<version>_<arch>.deb] [screenshot.png] [screenshot-zh.png]
set -euo pipefail
cd "$(dirname "$0")/.."
DEB="${1:-$(ls -t dist/memdesk_*.deb | head -n 1)}"
SHOT="${2:-$(mktemp -d)/installed.png}"
SHOT_ZH="${3:-}"
QUERY="鉴权 token 怎么处理"
APP_ID="$(basename resources/*.metainfo.xml .metainfo.xml)"
# Everything the package installs outside /opt/memdesk.
INSTALLED=(/usr/bin/memdesk "/usr/share/applications/$APP_ID.desktop"
           "/usr/share/metainfo/$APP_ID.metainfo.xml" /usr/share/icons/hicolor/256x256/apps/memdesk.png
           /usr/share/icons/hicolor/scalable/apps/memdesk.svg)
[ "$(id -u)" = 0 ] || { echo "test_installed: run as root (it installs a .deb)" >&2; exit 1; }
command -v Xvfb >/dev/null && command -v xdotool >/dev/null && command -v convert >/dev/null \
    || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq xvfb xdotool imagemagick >/dev/null

WORK="$(mktemp -d)"
XVFB_PID=""
cleanup() {
    [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null || true
    dpkg -s memdesk >/dev/null 2>&1 && apt-get purge -y -qq memdesk >/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "test_installed: installing $DEB"
install_start=$(date +%s%N)
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$(realpath "$DEB")" >/dev/null
install_ms=$((($(date +%s%N) - install_start) / 1000000))
[ "$(readlink -f /usr/bin/memdesk)" = /opt/memdesk/memdesk ]
for path in "${INSTALLED[@]}"; do
    [ -e "$path" ] || { echo "test_installed: the package did not install $path" >&2; exit 1; }
done

cp -r examples/workspace "$WORK/workspace"
mkdir -p "$WORK/home"
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$WORK/display" >/dev/null 2>&1 &
XVFB_PID=$!
for _ in $(seq 100); do [ -s "$WORK/display" ] && break; sleep 0.1; done
DISPLAY_NUM="$(cat "$WORK/display")"
# The end user's environment: system PATH only, a home with nothing of ours in it.
user_env=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$WORK/home" LANG=C.UTF-8
          DISPLAY=":$DISPLAY_NUM")

# Cold start: the first launch after installing, until its window is on the display.
launch=$(date +%s%N)
"${user_env[@]}" memdesk gui --workspace "$WORK/workspace" >"$WORK/gui.log" 2>&1 &
GUI_PID=$!
DISPLAY=":$DISPLAY_NUM" xdotool search --sync --onlyvisible --name memdesk >/dev/null
window_ms=$((($(date +%s%N) - launch) / 1000000))
kill "$GUI_PID"
wait "$GUI_PID" 2>/dev/null || true

echo "test_installed: searching the example workspace and saving $SHOT"
shot_start=$(date +%s%N)
"${user_env[@]}" memdesk gui --workspace "$WORK/workspace" --query "$QUERY" --screenshot "$SHOT"
shot_ms=$((($(date +%s%N) - shot_start) / 1000000))
colours=$(convert "$SHOT" -format '%k' info:)
size=$(identify -format '%wx%h' "$SHOT")
if [ "$colours" -lt 50 ]; then
    echo "test_installed: $SHOT looks blank ($colours colours)" >&2
    exit 1
fi

if [ -n "$SHOT_ZH" ]; then
    echo "test_installed: the same search in the Chinese UI, saving $SHOT_ZH"
    env_zh=("${user_env[@]/LANG=C.UTF-8/LANG=zh_CN.UTF-8}")
    "${env_zh[@]}" memdesk -v gui --workspace "$WORK/workspace" --query "$QUERY" --screenshot "$SHOT_ZH" \
        2>"$WORK/gui-zh.log"
    grep -q "language zh_CN" "$WORK/gui-zh.log" \
        || { echo "test_installed: the installed app did not load its Chinese translation" >&2; exit 1; }
    ! grep -q "no qtbase_zh_CN.qm" "$WORK/gui-zh.log" \
        || { echo "test_installed: the installed app has no Qt catalogue in Chinese (its dialogs are English)" >&2; exit 1; }
    [ "$(convert "$SHOT_ZH" -format '%k' info:)" -ge 50 ] \
        || { echo "test_installed: $SHOT_ZH looks blank" >&2; exit 1; }
fi

# Purged, not just removed: no files, no conffiles, no dpkg record.
apt-get purge -y -qq memdesk >/dev/null
left=""
for path in /opt/memdesk "${INSTALLED[@]}"; do [ -e "$path" ] && left="$left $path"; done
status="$(dpkg-query -W -f='${Status}' memdesk 2>/dev/null || true)"
if [ -n "$status" ] && [ "${status##* }" != not-installed ]; then left="$left dpkg:$status"; fi
if [ -n "$left" ]; then
    echo "test_installed: the purge left behind:$left" >&2
    exit 1
fi
echo "test_installed: ok (installed, searched, screenshot $size with $colours colours, purged)"
printf '{"deb": "%s", "deb_bytes": %d, "install_ms": %d, "cold_start_window_ms": %d, "index_search_screenshot_ms": %d, "screenshot_colours": %d}\n' \
    "$DEB" "$(stat -c %s "$DEB")" "$install_ms" "$window_ms" "$shot_ms" "$colours"
