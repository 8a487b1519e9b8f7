#!/usr/bin/env bash
# Measures the hooks' added cost: hook_overhead_bench under LD_PRELOAD with
# the null runtime (every CUDA call returns at once), recording on, a ring
# big enough that nothing is dropped, the trace on tmpfs.
#   bench/run_hook_bench.sh [build-dir] [extra benchmark flags]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}; shift || true
out=$(mktemp -d /dev/shm/syncscope-bench.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$out"' EXIT
runtime="$build/bench/null-runtime/libcudart.so.13"
SYNCSCOPE_BENCH_RUNTIME="$runtime" \
SYNCSCOPE_OUTPUT_DIR="$out" SYNCSCOPE_RING_EVENTS=$((1 << 22)) SYNCSCOPE_FLUSH_MS=5 \
LD_LIBRARY_PATH="$build/bench/null-runtime" LD_PRELOAD="$build/lib/libsyncscope.so" \
  "$build/bench/hook_overhead_bench" --benchmark_counters_tabular=true "$@"
echo "trace written: $(du -sh "$out" | cut -f1) in $(ls "$out" | wc -l) file(s)"
