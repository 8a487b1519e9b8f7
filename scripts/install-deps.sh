#!/usr/bin/env bash
# Installs the Debian packages syncscope builds with, if any is missing.
# Safe to run repeatedly; does nothing when everything is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config python3
  libabsl-dev libspdlog-dev libfmt-dev libunwind-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev
  patchelf python3-venv python3-pytest
  # The HTML report's screenshot test (tests/html): a browser, and a font so text renders.
  chromium fonts-dejavu-core
  # scripts/fuzz.sh: clang (/usr/bin/clang++) and its libFuzzer and sanitizer
  # runtimes (libclang_rt.fuzzer-x86_64.a is in libclang-rt-14-dev).
  clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "syncscope: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The CUDA toolkit (headers, nvcc) is not a Debian package here; it must be
# installed already (CMake's FindCUDAToolkit looks in /usr/local/cuda).
if [[ ! -e /usr/local/cuda/include/cuda_runtime_api.h ]] && ! command -v nvcc >/dev/null; then
  echo "syncscope: the CUDA toolkit headers were not found (expected /usr/local/cuda)" >&2
  exit 1
fi
