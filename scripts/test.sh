#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs ctest.
# Needs no GPU: the end-to-end tests run against tests/fakecuda.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
# The HTML screenshot test must run here, never be left out for want of
# Chromium (tests/html/CMakeLists.txt); a build folder configured before
# gets the option too.
if [[ -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" -DSYNCSCOPE_REQUIRE_CHROMIUM=ON >/dev/null
fi
BUILD_DIR=$build "$root/scripts/build.sh" -DSYNCSCOPE_REQUIRE_CHROMIUM=ON
(cd "$build" && ctest --output-on-failure -j "$(nproc)" --timeout 600)
# The lock-free parts under ThreadSanitizer (about a minute); the ASan+UBSan
# build of the analysis side takes longer: `scripts/sanitize.sh address`.
SANITIZE_BUILD_BASE="$build/sanitize" "$root/scripts/sanitize.sh" thread
# Each libFuzzer target for 15 s (about 2.5 minutes with its clang build);
# longer runs: scripts/fuzz.sh SECONDS.
FUZZ_BUILD_BASE="$build/sanitize" "$root/scripts/fuzz.sh" 15
