#!/usr/bin/env bash
# Issue 24 on a GPU (docs/security.md): short injected attach sessions,
# os._exit under a gate, and a program that closes the recorder's
# descriptors keeping its own files intact.
#   tests/gpu/check_trust.sh BUNDLE OUT
set -uo pipefail
bundle=$(cd "$1" && pwd); out=$2; mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
S=$bundle/bin/syncscope; fail=0
check() { if [ "$2" = 0 ]; then echo "PASS  $1"; else echo "FAIL  $1"; fail=1; fi; }
mono() { python3 -c 'import time; print(time.monotonic_ns())'; }

# 1. Attach sessions of 3 s into running training loops, injected: the
#    first session of each (default, without Python frames, without stacks)
#    and a second one into the first; each should record its steps and the
#    .item() line (the first injected session recorded nothing on an H200).
declare -A envs=([plain]="" [nopython]="SYNCSCOPE_PYTHON=0" [nostacks]="SYNCSCOPE_STACKS=0")
declare -A pids
for variant in plain nopython nostacks; do
  env SYNCSCOPE_LOG=debug ${envs[$variant]} python3 "$root/examples/pytorch/item_gpu_bound.py" 100000 $variant \
    > "$out/$variant-target.txt" 2>&1 &
  pids[$variant]=$!
done
sleep 9
for session in plain nopython nostacks plain-again; do
  pid=${pids[${session%-again}]}
  before=$(mono)
  "$S" attach "$pid" -d 3s --force -o "$out/$session" --format json="$out/$session.json" > "$out/$session.txt" 2>&1
  rc=$?
  after=$(mono)
  echo "      $session: attach exited $rc; began $before, ended $after (CLOCK_MONOTONIC ns)"
  grep -E "steps|item_gpu_bound.py:26|no CUDA call|events;" "$out/$session.txt" | head -4
  grep -q "item_gpu_bound.py:26" "$out/$session.txt"; check "$session: the .item() line is found" $?
  "$S" dump "$out/$session" 2>&1 | grep -E "^complete|^counts|^span|unwritten" | head -4
done
kill ${pids[@]} 2>/dev/null; wait 2>/dev/null
for variant in plain nopython nostacks; do echo "-- $variant target:"; grep -i syncscope "$out/$variant-target.txt" | head -12; done

# 2. os._exit(0) after per-step .item(): the gate is judged, never passed.
"$S" run --force -o "$out/os-exit" --fail-on hidden-sync --format json="$out/os-exit.json" -- \
  python3 "$root/tests/gpu/python/exit_with_os_exit.py" 200 > "$out/os-exit.txt" 2>&1
rc=$?; echo "      os._exit run exited $rc"
[ $rc = 3 ] || [ $rc = 4 ]; check "os._exit: the gate fails (3, or 4 incomplete), never passes" $?
grep -q "exit_with_os_exit.py:24" "$out/os-exit.txt"; check "os._exit: the .item() line is reported" $?

# 3. close every descriptor but the driver's, reuse the numbers: the
#    program's files intact, the trace complete.
mkdir -p "$out/own"
"$S" run --force -o "$out/closefd" --fail-on hidden-sync -- \
  python3 "$root/tests/gpu/python/close_fds_training.py" "$out/own" 200 > "$out/closefd.txt" 2>&1
rc=$?; echo "      close_fds run exited $rc"
grep "close_fds_training:" "$out/closefd.txt"
grep -q "own files intact: True; every-number.txt holds 0 bytes" "$out/closefd.txt"; check "close fds: the program's files intact" $?
[ $rc = 3 ]; check "close fds: the trace complete and judged (gate fails on the .item() line, exit 3)" $?
grep -E "reopened|closed the descriptor" "$out/closefd.txt" | head -2
[ $rc = 3 ] || tail -15 "$out/closefd.txt"
exit $fail
