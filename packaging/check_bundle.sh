#!/usr/bin/env bash
# Check that a bundle runs on any x86-64 CPU, not only on the machine that built it: its
# llama.cpp is the runtime-dispatch build (one CPU backend per instruction-set level,
# chosen at load time), it holds the baseline variant (x64: plain x86-64), and forced
# onto that variant (MEMDESK_LLAMA_CPU=x64, honoured by memdesk's loader, not a guess)
# the bundle embeds a sentence with the same vector as with the variant chosen for this
# CPU (cosine >= 0.9999). A forced variant that does not exist fails in one line.
# packaging/build.sh runs it on every bundle it makes.
#   bash packaging/check_bundle.sh [dist/memdesk]
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE="${1:-dist/memdesk}"
LIB="$BUNDLE/_internal/llama_cpp/lib"
PYTHON="${PYTHON:-python3}"
SENTENCE="The quarterly budget meeting moved to Friday; 会议改到周五。"
fail() { echo "check_bundle: $*" >&2; exit 1; }

[ -f "$LIB/libggml-cpu-x64.so" ] || fail "$LIB has no libggml-cpu-x64.so: llama.cpp was not built for runtime CPU dispatch (scripts/setup.sh)"
[ ! -e "$LIB/libggml-cpu.so" ] || fail "$LIB has a natively built libggml-cpu.so"
variants="$(cd "$LIB" && ls libggml-cpu-*.so | sed 's/^libggml-cpu-//; s/\.so$//' | tr '\n' ' ')"
echo "check_bundle: CPU variants: $variants"

# Qt's own Chinese (file dialogs, standard buttons, the edit menu: qt/translations.install
# loads qtbase_zh_CN beside memdesk's catalogue) and no other language's (the .deb's size).
QT_QM="$BUNDLE/_internal/PySide6/Qt/translations"
[ -f "$QT_QM/qtbase_zh_CN.qm" ] || fail "$QT_QM has no qtbase_zh_CN.qm: Qt's dialogs would stay English in Chinese"
others="$(cd "$QT_QM" && ls | grep -v '_zh_CN\.qm$' | tr '\n' ' ')" || true
[ -z "$others" ] || fail "$QT_QM holds other languages' files: $others"
[ -f "$BUNDLE/_internal/memdesk/resources/translations/memdesk_zh_CN.qm" ] \
    || fail "the bundle has no compiled memdesk_zh_CN.qm"

# The bundle's own programs only, with a data dir of their own (nothing of the user's).
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
run() { env MEMDESK_HOME="$WORK/home" XDG_CACHE_HOME="$WORK/cache" "$BUNDLE/memdesk" "$@"; }

default_line="$(run model list | grep '^llama.cpp CPU backend: ')" || fail "model list names no CPU backend"
echo "check_bundle: $default_line"
case "$default_line" in
    *"(runtime dispatch; baseline x64 available)") ;;
    *) fail "the default CPU backend is not a runtime-dispatch variant: $default_line" ;;
esac
forced_line="$(MEMDESK_LLAMA_CPU=x64 run model list | grep '^llama.cpp CPU backend: ')" || fail "model list failed with MEMDESK_LLAMA_CPU=x64"
echo "check_bundle: $forced_line"
case "$forced_line" in
    "llama.cpp CPU backend: x64 (forced by MEMDESK_LLAMA_CPU;"*) ;;
    *) fail "MEMDESK_LLAMA_CPU=x64 did not load the x64 variant: $forced_line" ;;
esac

run model embed --json "$SENTENCE" >"$WORK/default.json"
MEMDESK_LLAMA_CPU=x64 run model embed --json "$SENTENCE" >"$WORK/x64.json"
"$PYTHON" - "$WORK/default.json" "$WORK/x64.json" <<'PY'
import json
import math
import sys

a, b = (json.load(open(path)) for path in sys.argv[1:3])
assert b["cpu_backend"] == "x64", f"forced run used {b['cpu_backend']}"
u, v = a["vector"], b["vector"]
cos = sum(x * y for x, y in zip(u, v)) / math.sqrt(sum(x * x for x in u) * sum(y * y for y in v))
print(f"check_bundle: {a['model']}: cosine {cos:.6f} between {a['cpu_backend']} and x64")
if not cos >= 0.9999:
    sys.exit(f"check_bundle: x64 and {a['cpu_backend']} disagree (cosine {cos:.6f} < 0.9999)")
PY

# A variant that is not there: one line, exit 1, nothing else run.
if MEMDESK_LLAMA_CPU=no-such-cpu run model list >"$WORK/out" 2>"$WORK/err"; then
    fail "MEMDESK_LLAMA_CPU=no-such-cpu was not refused"
fi
[ "$(wc -l <"$WORK/err")" = 1 ] && grep -q "MEMDESK_LLAMA_CPU=no-such-cpu" "$WORK/err" \
    || fail "an unknown forced variant should fail in one line, got: $(cat "$WORK/err")"
echo "check_bundle: ok"
