#!/usr/bin/env bash
# Issue 23 on a GPU, in one call: the library programs
# (tests/gpu/check_libraries.py), and optionally a public training script
# whose loop updates by hand (PyTorch's word_language_model, fetched into an
# ignored folder, never committed) recorded with the default (aggregated)
# recording and with --detail full, to compare steps and findings.
#   tests/gpu/run_libraries.sh BUNDLE OUT [WORD_LANGUAGE_MODEL_DIR]
set -uo pipefail
bundle=$(cd "$1" && pwd); out=$2; wlm=${3:-}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PYTHONUNBUFFERED=1
nvidia-smi -L
python3 -c "import torch, transformers, accelerate, lightning; print('torch', torch.__version__, 'transformers', transformers.__version__, 'accelerate', accelerate.__version__, 'lightning', lightning.__version__)"
python3 "$root/tests/gpu/check_libraries.py" "$bundle" "$out/libraries" --jobs "${JOBS:-3}" 2>&1 | tee "$out/check_libraries.log"
status=${PIPESTATUS[0]}
if [[ -n "$wlm" ]]; then
  for detail in aggregated full; do
    extra=(); [[ $detail == full ]] && extra=(--detail full)
    (cd "$wlm" && "$bundle/bin/syncscope" run --force -o "$out/wlm-$detail" "${extra[@]}" \
        --format "json=$out/wlm-$detail.json" -- python3 main.py --accel --epochs 1 --log-interval 100 \
        >"$out/wlm-$detail.txt" 2>&1)
    echo "word_language_model ($detail): exit $?"
  done
fi
exit "$status"
