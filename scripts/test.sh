#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs ctest.
# Needs no GPU: the end-to-end tests run against tests/fakecuda.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
BUILD_DIR=$build "$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)" --timeout 600
