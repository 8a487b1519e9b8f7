#!/usr/bin/env bash
# Builds dist/syncscope-<version>-py3-none-manylinux_2_<glibc>_<arch>.whl:
# the `syncscope` command, libsyncscope.so and the libraries they need (the
# relocatable bundle of scripts/make-bundle.sh) inside the Python package
# `syncscope` (python/syncscope), with the console script and the pytest
# plugin registered. Installs with `pip install --no-deps` and no network.
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
"$root/scripts/make-bundle.sh" "$build" "$stage/bundle" >/dev/null
python3 "$root/scripts/make-wheel.py" "$stage/bundle" "$out" "${version:-0.0.0}"
