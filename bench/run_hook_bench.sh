#!/usr/bin/env bash
# Measures the hooks' added cost: hook_overhead_bench under LD_PRELOAD with
# the null runtime (every CUDA call returns at once), recording on, the
# trace on tmpfs. One benchmark per process, with a ring that holds all of
# its events (2^24: 15.7M launches of 2^20 x 15 repetitions), so no row
# times the drop path; after each, the trace's drop count must be 0, else
# the script says so and exits 1 (issue 15).
#   bench/run_hook_bench.sh [build-dir] [extra benchmark flags]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}; shift || true
runtime="$build/bench/null-runtime/libcudart.so.13"
status=0
filter=""
for arg in "$@"; do [[ $arg == --benchmark_filter=* ]] && filter=${arg#--benchmark_filter=}; done
for bench in $("$build/bench/hook_overhead_bench" --benchmark_list_tests ${filter:+--benchmark_filter="$filter"}); do
  out=$(mktemp -d /dev/shm/syncscope-bench.XXXXXX 2>/dev/null || mktemp -d)
  name=${bench%%/*}
  SYNCSCOPE_BENCH_RUNTIME="$runtime" \
  SYNCSCOPE_OUTPUT_DIR="$out" SYNCSCOPE_RING_EVENTS=$((1 << 22)) SYNCSCOPE_FLUSH_MS=5 \
  LD_LIBRARY_PATH="$build/bench/null-runtime" LD_PRELOAD="$build/lib/libsyncscope.so" \
    "$build/bench/hook_overhead_bench" --benchmark_counters_tabular=true "$@" --benchmark_filter="^$name/"
  dropped=0  # a direct (unhooked) benchmark writes no trace
  if compgen -G "$out/*.sstrace" >/dev/null; then
    dropped=$("$build/bin/syncscope" dump --json "$out" 2>/dev/null |
      python3 -c 'import json,sys; print(sum(t["events_dropped"] for t in json.load(sys.stdin)["traces"]))' || echo "?")
  fi
  if [[ $dropped != 0 ]]; then
    echo "run_hook_bench: $name dropped $dropped events: its figures time the drop path, not the hook" >&2
    status=1
  fi
  rm -rf "$out"
done
exit $status
