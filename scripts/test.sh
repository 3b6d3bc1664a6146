#!/usr/bin/env bash
# Set up (if needed), check lint, format, types and import contracts, then run the whole
# test suite headless; the tests that need a real X display start their own Xvfb server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Xvfb for the real-display tests; the validators of the desktop entry and metainfo.
missing=""
command -v Xvfb >/dev/null 2>&1 || missing="$missing xvfb"
command -v desktop-file-validate >/dev/null 2>&1 || missing="$missing desktop-file-utils"
command -v appstreamcli >/dev/null 2>&1 || missing="$missing appstream"
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "test: installing$missing"
        # shellcheck disable=SC2086
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    else
        echo "test: some tests need these (they are skipped without): sudo apt-get install$missing" >&2
    fi
fi
. .venv/bin/activate
# Lint, format, types and the import contracts first (pinned in the test extra): any
# finding fails the run, so the tree stays clean for everyone.
echo "test: ruff check"
ruff check .
echo "test: ruff format --check"
ruff format --check .
echo "test: mypy memdesk"
mypy memdesk
echo "test: lint-imports"
lint-imports --no-cache
export QT_QPA_PLATFORM=offscreen
exec python -m pytest "$@"
