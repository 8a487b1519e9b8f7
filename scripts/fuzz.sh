#!/usr/bin/env bash
# libFuzzer targets of the parsers that read what syncscope did not write
# itself (issue 15; docs/testing.md, "Fuzzers"): the trace reader, the
# suppressions, budget and findings-JSON (baseline, diff) parsers, and
# attach's control protocol. Built with clang in a folder of their own,
# libraries instrumented for coverage under ASan + UBSan, each target run
# for SECONDS on a copy of its checked-in corpus (tests/fuzz/corpus/<target>,
# never grown by a run). Fails on any crash, leak, timeout, out-of-memory
# or sanitizer report; the input that caused it is left in
# BUILD/artifacts/<target>/.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]        (default 30)
# Environment: FUZZ_BUILD_BASE (default build-sanitize, beside
# scripts/sanitize.sh's folders; the build is BASE/fuzz), JOBS (ninja's,
# default nproc), FUZZ_TARGETS (a subset, space-separated).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-30}
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || { echo "fuzz.sh: SECONDS must be a positive integer" >&2; exit 2; }
base=${FUZZ_BUILD_BASE:-$root/build-sanitize}
dir=$base/fuzz
jobs=${JOBS:-$(nproc)}
read -r -a targets <<<"${FUZZ_TARGETS:-fuzz_trace_reader fuzz_suppressions fuzz_budget fuzz_baseline fuzz_control_protocol}"
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (scripts/install-deps.sh)" >&2; exit 2; }

# Coverage hooks and both sanitizers in every library; libFuzzer's main()
# only in the targets (tests/fuzz/CMakeLists.txt adds -fsanitize=fuzzer).
# -O1 without NDEBUG: assertions (nlohmann's among them) stay checked.
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
echo "== fuzz: building ${targets[*]} (in $dir)"
CC=clang CXX=clang++ cmake -S "$root" -B "$dir" -G Ninja -DSYNCSCOPE_FUZZ=ON -DSYNCSCOPE_PORTABLE=OFF \
  -DSYNCSCOPE_BUILD_TESTS=OFF -DSYNCSCOPE_BUILD_EXAMPLES=OFF -DSYNCSCOPE_BUILD_BENCHMARKS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" >/dev/null
ninja -C "$dir" -j "$jobs" "${targets[@]}"

export ASAN_OPTIONS="halt_on_error=1 detect_leaks=1" UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1"
failed=()
for t in "${targets[@]}"; do
  name=${t#fuzz_}
  seeds=$root/tests/fuzz/corpus/$name
  work=$dir/corpus/$name artifacts=$dir/artifacts/$name log=$dir/logs/$name.log
  rm -rf "$work" "$artifacts" && mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  cp "$seeds"/* "$work"/
  status=0
  "$dir/bin/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$work" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  inputs=$(find "$work" -type f | wc -l)
  # A report with the run still exiting 0 cannot happen with every report
  # fatal; the grep is the second lock on that door.
  if [[ $status -ne 0 ]] || grep -q "ERROR: \(Address\|Leak\|UndefinedBehavior\)Sanitizer\|runtime error:\|ERROR: libFuzzer" "$log"; then
    echo "$t: FAILED (exit $status) after ${runs:-?} runs; input in $artifacts, log $log:"
    grep -m1 -A25 "ERROR\|runtime error\|FUZZ_CHECK" "$log" || tail -25 "$log"
    failed+=("$t")
  else
    echo "$t: ${runs:-?} runs in ${seconds} s, corpus $(find "$seeds" -type f | wc -l) -> $inputs inputs, no report"
  fi
done
if ((${#failed[@]})); then
  echo "fuzz.sh: failed: ${failed[*]}"
  exit 1
fi
echo "fuzz.sh: ${targets[*]}: no report"
