#!/usr/bin/env bash
# NVTX ranges from PyTorch on a GPU (docs/nvtx.md): torch.cuda.nvtx ranges
# reach syncscope through NVTX_INJECTION64_PATH and make the steps.
#   tests/gpu/check_nvtx.sh BUNDLE OUT
set -uo pipefail
bundle=$(cd "$1" && pwd); out=$2; mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
S=$bundle/bin/syncscope; fail=0
check() { if [ "$2" = 0 ]; then echo "PASS  $1"; else echo "FAIL  $1"; fail=1; fi; }
"$S" run --force -o "$out/t" --format json="$out/nvtx.json" -- python3 "$root/examples/pytorch/nvtx_steps.py" 100 > "$out/nvtx.txt" 2>&1
check "the run completes" $?
grep -q 'train_step: .* steps (NVTX range "train_step"' "$out/nvtx.txt"; check "the phase is the NVTX range train_step" $?
grep -q 'nvtx_steps.py:34' "$out/nvtx.txt"; check "the .item() line is found" $?
n=$("$S" dump --events 1000000 "$out/t" 2>/dev/null | grep -c syncscope_nvtx_range)
[ "$n" -ge 300 ]; check "ranges recorded: $n (100 train_step, 100 forward, 100 backward, 10 eval expected)" $?
head -8 "$out/nvtx.txt"
exit $fail
