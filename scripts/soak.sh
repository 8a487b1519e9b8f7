#!/usr/bin/env bash
# A long recording on the fake runtime (tests/fakecuda) at a steady launch
# rate: examples/training_loop under `syncscope run`, the target's memory
# sampled every 10 s, then the trace's size per hour and a report of it
# (time and peak memory). Issue 15's goal: at 20,000 launches/s, at most
# 100 MB of trace per hour, the target's memory flat.
#   scripts/soak.sh [SECONDS=3600] [LAUNCHES_PER_S=20000] [BUILD_DIR=build] [-- extra run flags]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-3600}
rate=${2:-20000}
build=$(cd "${3:-$root/build}" && pwd)
shift $(( $# < 3 ? $# : 3 )) || true
[[ ${1:-} == -- ]] && shift
extra=("$@")
layers=12
per_step=$((4 * 8 * layers + 2 * layers))
steps=$(( seconds * rate / per_step ))
out=$(mktemp -d "${TMPDIR:-/tmp}/syncscope-soak.XXXXXX")
echo "soak: ${seconds} s at ${rate} launches/s (${steps} steps of ${per_step} launches), traces in $out"
started=$SECONDS
LD_LIBRARY_PATH="$build/fakecuda" "$build/bin/syncscope" run --no-report -o "$out/t" "${extra[@]}" -- \
  "$build/examples/training_loop" "$steps" "$layers" "$rate" >"$out/run.log" 2>&1 &
launcher=$!
pid=""
for _ in $(seq 100); do
  pid=$(pgrep -P "$launcher" -f training_loop || true)
  [[ -n $pid ]] && break
  sleep 0.1
done
echo "seconds rss_kib trace_bytes" >"$out/memory.log"
while kill -0 "$launcher" 2>/dev/null; do
  if [[ -n $pid && -r /proc/$pid/status ]]; then
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    bytes=$(du -cb "$out"/t/*.sstrace 2>/dev/null | tail -1 | cut -f1)
    echo "$((SECONDS - started)) ${rss:-0} ${bytes:-0}" >>"$out/memory.log"
  fi
  sleep 10
done
wait "$launcher" || { echo "soak: the run failed:"; cat "$out/run.log"; exit 1; }
elapsed=$((SECONDS - started))
bytes=$(du -cb "$out"/t/*.sstrace | tail -1 | cut -f1)
awk -v bytes="$bytes" -v elapsed="$elapsed" 'NR > 1 && $2 > 0 {n++; if (n == 1) first = $2; last = $2; if ($2 > max) max = $2}
  END {printf "soak: target RSS %d KiB first sample, %d KiB last, %d KiB max (%d samples)\n", first, last, max, n;
       printf "soak: trace %.1f MB in %d s: %.1f MB per hour\n", bytes / 1e6, elapsed, bytes / 1e6 * 3600 / elapsed}' \
  "$out/memory.log"
/usr/bin/time -f "soak: report took %e s, peak RSS %M KiB" "$build/bin/syncscope" report "$out/t" >"$out/report.txt" 2>"$out/report.err" || true
tail -1 "$out/report.err"
"$build/bin/syncscope" dump "$out/t" | grep -E "^counts|^aggregated|complete" || true
