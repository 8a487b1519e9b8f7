#!/usr/bin/env bash
# Makes a relocatable bundle of a build for a machine without Debian's -dev
# packages (the GPU machine): bin/syncscope (the GPU checks read traces with
# `syncscope dump --json`), lib/ (libsyncscope.so, libunwind.so.8 and every
# non-system library the tools need, found with ldd: none for a portable
# build, SYNCSCOPE_PORTABLE), examples/. Tools get the run path $ORIGIN/../lib.
# SYNCSCOPE_BUNDLE_LIBUNWIND=0 leaves Debian's libunwind.so.8 out (the wheel:
# it needs glibc 2.34 and liblzma; the recorder then uses the machine's
# libunwind.so.8 if it has one, else glibc's backtrace()).
#   scripts/make-bundle.sh [build-dir] [bundle-dir]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
bundle=${2:-$root/.bundle}
command -v patchelf >/dev/null || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq patchelf
}
rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/examples"
cp "$build/lib/libsyncscope.so" "$bundle/lib/"
cp -r "$build/lib/syncscope-python" "$bundle/lib/"
if [[ ${SYNCSCOPE_BUNDLE_LIBUNWIND:-1} != 0 ]]; then
  cp -L /lib/x86_64-linux-gnu/libunwind.so.8 "$bundle/lib/"
fi
for tool in syncscope; do
  [[ -x "$build/bin/$tool" ]] || continue
  cp "$build/bin/$tool" "$bundle/bin/"
  # Libraries outside glibc/libstdc++ (which the target machine has, newer).
  ldd "$build/bin/$tool" | awk '/=> \// {print $3}' |
    { grep -vE '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' || true; } |
    while read -r lib; do cp -nL "$lib" "$bundle/lib/"; done
  patchelf --set-rpath '$ORIGIN/../lib' "$bundle/bin/$tool"
done
for f in "$bundle"/lib/*.so*; do
  [[ -e $f ]] || continue
  [[ $(basename "$f") == libsyncscope.so ]] && continue
  patchelf --set-rpath '$ORIGIN' "$f" 2>/dev/null || true
done
find "$build/examples" -maxdepth 1 -type f -executable -exec cp {} "$bundle/examples/" \;
du -sh "$bundle"
