#!/usr/bin/env bash
# Everything the GPU machine runs for the foundation issue, in one call:
# the checks (check_foundation.py) and an interleaved overhead comparison of
# a PyTorch launch loop with and without syncscope.
#   tests/gpu/run_on_gpu.sh BUNDLE OUT
set -uo pipefail
bundle=$(cd "$1" && pwd); out=$2
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
nvidia-smi -L
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
python3 "$root/tests/gpu/check_foundation.py" "$bundle" "$out/traces" 2>&1 | tee "$out/check_foundation.log"
status=${PIPESTATUS[0]}
echo "== interleaved overhead: add_loop.py, 20000 launches, median of 9 loops per process, 7 processes each way"
for i in 1 2 3 4 5 6 7; do
  echo -n "plain:  "; python3 "$root/examples/pytorch/add_loop.py" 20000 9
  echo -n "hooked: "; "$bundle/bin/syncscope" run --no-report --force -o "$out/overhead" -- \
    python3 "$root/examples/pytorch/add_loop.py" 20000 9 2>/dev/null
done 2>&1 | tee "$out/overhead.log"
exit "$status"
