#!/usr/bin/env bash
# Builds dist/syncscope-<version>-py3-none-manylinux_2_28_x86_64.whl: the
# `syncscope` command and libsyncscope.so (the relocatable bundle of
# scripts/make-bundle.sh, without libunwind.so.8) inside the Python package
# `syncscope` (python/syncscope), with the console script and the pytest
# plugin registered. Installs with `pip install --no-deps` and no network.
# The build must be portable (SYNCSCOPE_PORTABLE, the default):
# scripts/check-manylinux.py checks every ELF file of the wheel against the
# manylinux_2_28 policy and the wheel is removed if one fails.
#   scripts/build-wheel.sh [build-dir] [out-dir]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
out=${2:-$root/dist}
[[ -x "$build/bin/syncscope" && -f "$build/lib/libsyncscope.so" ]] || {
  echo "build-wheel: no build in $build (run scripts/build.sh first)" >&2
  exit 2
}
version=$(sed -n 's/^project(syncscope VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
SYNCSCOPE_BUNDLE_LIBUNWIND=0 "$root/scripts/make-bundle.sh" "$build" "$stage/bundle" >/dev/null
wheel=$(python3 "$root/scripts/make-wheel.py" "$stage/bundle" "$out" "${version:-0.0.0}")
if ! python3 "$root/scripts/check-manylinux.py" "$wheel" >"$stage/check.txt"; then
  cat "$stage/check.txt" >&2
  rm -f "$wheel"
  echo "build-wheel: the wheel is not manylinux_2_28 (is $build a SYNCSCOPE_PORTABLE=ON build?)" >&2
  exit 1
fi
echo "$wheel"
