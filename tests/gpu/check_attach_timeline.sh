#!/usr/bin/env bash
# `attach --gpu-timeline` on a GPU (docs/attach.md): CUPTI starting in a
# process whose CUDA context already exists, dormant and injected.
# Sessions of 10 s: injected sessions of 2-3 s recorded nothing on an H100
# (docs/attach.md).
#   tests/gpu/check_attach_timeline.sh BUNDLE OUT
set -uo pipefail
bundle=$(cd "$1" && pwd); out=$2; mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
S=$bundle/bin/syncscope; fail=0
check() { if [ "$2" = 0 ]; then echo "PASS  $1"; else echo "FAIL  $1"; fail=1; fi; }
for mode in dormant injected; do
  if [ $mode = dormant ]; then
    "$S" run --dormant -- python3 "$root/examples/pytorch/item_gpu_bound.py" 4000 > "$out/$mode-target.txt" 2>&1 &
  else
    python3 "$root/examples/pytorch/item_gpu_bound.py" 4000 > "$out/$mode-target.txt" 2>&1 &
  fi
  launcher=$!
  sleep 6
  pid=$(pgrep -n -f "item_gpu_bound.py 4000" | head -1)
  # the python process itself (under run --dormant the launcher is its parent)
  for p in $(pgrep -f "item_gpu_bound.py 4000"); do [ "$(readlink /proc/$p/exe)" != "$S" ] && pid=$p; done
  "$S" attach "$pid" -d 10s --gpu-timeline=full --force -o "$out/$mode" --format json="$out/$mode.json" > "$out/$mode.txt" 2>&1
  check "$mode: attach exits 0" $?
  grep -q "GPU: .*% busy per" "$out/$mode.txt"; check "$mode: GPU line with busy %" $?
  grep -q "GPU idle per step" "$out/$mode.txt"; check "$mode: the .item() finding carries GPU idle" $?
  "$S" dump --gpu 1 "$out/$mode" 2>/dev/null | grep -A2 "gpu timeline" | head -3
  wait $launcher; check "$mode: the target finishes normally" $?
  grep -E "GPU|item_gpu_bound.py:26" "$out/$mode.txt" | head -4
done
exit $fail
