#!/usr/bin/env bash
# Sanitizer builds of the parts where memory and thread bugs would hide
# (issue 15), each in a build folder of its own, every report fatal:
#   thread   TSan: the lock-free ring, the stack table, the pinned-memory
#            map (preload_unit_tests: their multi-producer stress tests)
#   address  ASan + UBSan: the analysis side (trace reader, detectors,
#            report renderers, policy parsers, CLI helpers: their unit tests)
# Not covered yet: the preload loaded into a target (an ASan-instrumented
# preload cannot be loaded: defect 8), the end-to-end tests, fuzzing.
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
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="${flags%% -fno*}" -DCMAKE_SHARED_LINKER_FLAGS="${flags%% -fno*}" >/dev/null
  ninja -C "$dir" -j "$jobs" "${targets[@]}"
  for t in "${targets[@]}"; do
    (cd "$dir" && "./bin/$t" --gtest_brief=1 ${skip:+--gtest_filter=-$skip})
  done
done
echo "sanitize.sh: ${kinds[*]}: no report"
