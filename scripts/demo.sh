#!/usr/bin/env bash
# The main job: builds syncscope, records a bundled example under
# `syncscope run`, and prints the report. With a working NVIDIA GPU it uses
# the real CUDA runtime; without one it runs the example against the fake
# runtime from tests/fakecuda and says so loudly.
#   scripts/demo.sh [example-name] [iterations]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
example=${1:-hidden_sync_loop}
iterations=${2:-200}
BUILD_DIR=$build "$root/scripts/build.sh" >&2

binary="$build/examples/$example"
[[ -x "$binary" ]] || { echo "demo: no example named '$example' in $build/examples" >&2; exit 2; }

out=$(mktemp -d "${TMPDIR:-/tmp}/syncscope-demo.XXXXXX")
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "== syncscope demo: real GPU ($(nvidia-smi -L | head -n1))" >&2
  exec "$build/bin/syncscope" run -o "$out/trace" -- "$binary" "$iterations"
else
  echo "== syncscope demo: NO GPU FOUND -- SIMULATED CUDA RUNTIME (tests/fakecuda), timings are not real" >&2
  LD_LIBRARY_PATH="$build/fakecuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    exec "$build/bin/syncscope" run -o "$out/trace" -- "$binary" "$iterations"
fi
