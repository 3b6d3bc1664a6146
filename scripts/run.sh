#!/usr/bin/env bash
# Set up (if needed) and start memdesk on your agent's workspace:
# ~/.openclaw/workspace if it exists, else a private copy of the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
WORKSPACE="${MEMDESK_WORKSPACE:-$HOME/.openclaw/workspace}"
if [ ! -d "$WORKSPACE" ]; then
    DATA="$(python -c 'from memdesk.core import paths; print(paths.data_dir())')"
    WORKSPACE="$DATA/example-workspace"
    if [ ! -d "$WORKSPACE" ]; then
        cp -r examples/workspace "$WORKSPACE"
        echo "run: no ~/.openclaw/workspace; using a copy of the example at $WORKSPACE"
    fi
fi
exec memdesk gui --workspace "$WORKSPACE" "$@"
