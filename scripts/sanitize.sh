#!/usr/bin/env bash
# Sanitizer builds of the parts where memory and thread bugs would hide
# (issue 15), each in a build folder of its own, every report fatal:
#   thread   TSan: the lock-free ring, the stack table, the pinned-memory
#            map (preload_unit_tests: their multi-producer stress tests)
#   address  ASan + UBSan: the analysis side (trace reader, detectors,
#            report renderers, policy parsers, CLI helpers: their unit tests),
#            then the ASan-built preload and launcher recording the C++
#            examples on the fake runtime (hooks, rings, collector, launch
#            aggregation, fork, 8 threads at once; leaks checked)
# Not covered: the whole end-to-end suite under a sanitizer (its run time).
#   scripts/sanitize.sh [thread|address]...   (default: both)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
base=${SANITIZE_BUILD_BASE:-$root/build-sanitize}
kinds=("$@")
[[ ${#kinds[@]} -gt 0 ]] || kinds=(thread address)
jobs=$(nproc)
for kind in "${kinds[@]}"; do
  skip=""
  case $kind in
    thread)
      flags="-fsanitize=thread -fno-omit-frame-pointer"
      targets=(preload_unit_tests)
      export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
      ;;
    address)
      flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
      targets=(trace_unit_tests detector_unit_tests report_unit_tests policy_unit_tests tools_unit_tests)
      recorded=(syncscope syncscope_preload syncscope_fakecuda syncscope_fakecuda_driver syncscope_examples)
      export ASAN_OPTIONS="halt_on_error=1 detect_leaks=1" UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1"
      # These look libc's printf up by address and expect libc: under ASan
      # printf is libasan's interceptor (__interceptor_printf), not a defect.
      skip="Symbolizer.NamesFunctionsOfSharedLibraries:Symbolizer.PrefersTheExportedNameOfAliases"
      skip+=":Symbolizer.AModuleRebuiltSinceTheRecordingIsLeftUnsymbolizedWithOneWarning"
      ;;
    *) echo "sanitize.sh: unknown kind '$kind' (thread or address)" >&2; exit 2 ;;
  esac
  dir=$base/$kind
  echo "== $kind: ${targets[*]} (in $dir)"
  # SYNCSCOPE_PORTABLE=OFF: the glibc 2.28 link (compat/) would route
  # pthread_create and friends past the sanitizers' interceptors.
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS="$flags" -DSYNCSCOPE_PORTABLE=OFF \
    -DCMAKE_EXE_LINKER_FLAGS="${flags%% -fno*}" -DCMAKE_SHARED_LINKER_FLAGS="${flags%% -fno*}" >/dev/null
  ninja -C "$dir" -j "$jobs" "${targets[@]}"
  for t in "${targets[@]}"; do
    (cd "$dir" && "./bin/$t" --gtest_brief=1 ${skip:+--gtest_filter=-$skip})
  done
  if [[ $kind == address ]]; then
    # The recorder itself under ASan, loaded into programs (the launcher
    # puts libasan first, tools/sanitizer_runtimes.h). The fake runtime
    # (test scaffolding) keeps a few objects for the process's life.
    ninja -C "$dir" -j "$jobs" "${recorded[@]}"
    suppressions=$dir/lsan-suppressions.txt
    printf 'leak:libcudart.so.13\nleak:libcuda.so.1\n' >"$suppressions"
    export LSAN_OPTIONS="suppressions=$suppressions"
    mkdir -p "$dir/recorded"
    for example in "hidden_sync_loop 200" "training_loop 60" "driver_tour" "fork_child" "thread_storm 8 200 4 0" \
                   "compute_stream_copies 50"; do
      out=$dir/recorded/${example%% *}
      rm -rf "$out"
      # shellcheck disable=SC2086
      if ! LD_LIBRARY_PATH="$dir/fakecuda" "$dir/bin/syncscope" run -o "$out" --error-exitcode 0 -- \
             "$dir/examples/"$example >"$out.log" 2>&1; then
        echo "sanitize.sh: address: '$example' under the ASan-built recorder failed:"; tail -40 "$out.log"; exit 1
      fi
      if grep -q "ERROR: \(Address\|Leak\|UndefinedBehavior\)Sanitizer\|runtime error:" "$out.log"; then
        echo "sanitize.sh: address: '$example': sanitizer report:"; grep -A30 "ERROR\|runtime error" "$out.log" | head -60
        exit 1
      fi
      echo "  recorded under ASan: $example"
    done
  fi
done
echo "sanitize.sh: ${kinds[*]}: no report"
