#!/usr/bin/env bash
# Interleaved overhead runs for the GPU timeline (issue 13), on a GPU machine:
# each round runs every mode once, in turn, so drift in clocks and
# temperature falls on all modes alike. Modes:
#   plain      the script alone
#   host       syncscope run (host-side recording only; launches aggregated into runs, the default)
#   host-full  syncscope run --detail full (every launch written as an event)
#   dormant    syncscope run --dormant (hooks in, nothing recorded)
#   timeline   syncscope run --gpu-timeline (host recording and CUPTI, sampled: 1 s of every 10 s)
#   timeline-full      syncscope run --gpu-timeline=full (CUPTI throughout)
#   profiler   the script under torch.profiler (CPU and CUDA activities)
#   timeline-idle      one 10 ms window 2 s in, then nothing (CUPTI detached: what is left of its cost)
#   timeline-attached  the sampled timeline with CUPTI kept attached between windows (SYNCSCOPE_GPU_TIMELINE_DETACH=0)
#   timeline-idle-attached  timeline-idle with CUPTI kept attached, its kinds off
#   timeline-noapi     the timeline with no CUPTI API records (SYNCSCOPE_GPU_API_RECORDS=off)
#   timeline-allapi    the timeline with every API record (SYNCSCOPE_GPU_API_RECORDS=all)
#   timeline-offset    no API records, and no CUPTI timestamp callback (SYNCSCOPE_GPU_TIMESTAMPS=offset)
# MODES (default "plain host timeline profiler") picks them; WORKLOADS
# (default "add_loop.py 20000 5|timed_training.py 30 3") the scripts.
# Each process prints its own mean over its repetitions (per launch or per
# step: a mean, so the repetitions a sampled timeline slows count); the
# summary is the median over rounds and its ratio to plain.
#
#   tests/gpu/gpu_overhead.sh BUNDLE OUT ROUNDS
set -uo pipefail
bundle=$(cd "$1" && pwd); out=$2; rounds=${3:-5}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ex=$root/examples/pytorch
run_mode() {  # MODE SCRIPT ARGS...
  local mode=$1; shift
  case $mode in
    plain) python3 "$@" ;;
    host) "$bundle/bin/syncscope" run --no-report --force -o "$out/t-host" -- python3 "$@" 2>/dev/null ;;
    host-full) "$bundle/bin/syncscope" run --detail full --no-report --force -o "$out/t-host-full" -- python3 "$@" 2>/dev/null ;;
    dormant) "$bundle/bin/syncscope" run --dormant -- python3 "$@" 2>/dev/null ;;
    timeline) "$bundle/bin/syncscope" run --gpu-timeline --no-report --force -o "$out/t-timeline" -- python3 "$@" 2>/dev/null ;;
    timeline-full) "$bundle/bin/syncscope" run --gpu-timeline=full --no-report --force -o "$out/t-timeline-full" -- python3 "$@" 2>/dev/null ;;
    timeline-idle) SYNCSCOPE_GPU_TIMELINE_SAMPLING=10/3600000 run_mode timeline "$@" ;;
    timeline-attached) SYNCSCOPE_GPU_TIMELINE_DETACH=0 run_mode timeline "$@" ;;
    timeline-idle-attached) SYNCSCOPE_GPU_TIMELINE_DETACH=0 run_mode timeline-idle "$@" ;;
    timeline-noapi) SYNCSCOPE_GPU_API_RECORDS=off run_mode timeline "$@" ;;
    timeline-allapi) SYNCSCOPE_GPU_API_RECORDS=all run_mode timeline "$@" ;;
    timeline-offset) SYNCSCOPE_GPU_API_RECORDS=off SYNCSCOPE_GPU_TIMESTAMPS=offset run_mode timeline "$@" ;;
    profiler) python3 "$root/tests/gpu/with_torch_profiler.py" "$@" ;;
  esac
}
IFS='|' read -r -a workloads <<< "${WORKLOADS:-add_loop.py 20000 5|timed_training.py 30 3}"
for workload in "${workloads[@]}"; do
  log=$out/overhead-${workload%%.py*}.log
  : > "$log"
  for round in $(seq "$rounds"); do
    for mode in ${MODES:-plain host timeline profiler}; do
      line=$(run_mode "$mode" $ex/$workload | grep -E "^(add_loop|timed_training):" | tail -1)
      echo "$mode $line" | tee -a "$log"
    done
  done
  python3 - "$log" <<'PY'
import re, statistics, sys
values = {}
for line in open(sys.argv[1]):
    m = re.match(r"([\w-]+) .*?([0-9.]+) (us/launch|ms/step)", line)
    if m:
        values.setdefault(m.group(1), []).append(float(m.group(2)))
base = statistics.median(values.get("plain", [float("nan")]))
for mode, v in values.items():
    med = statistics.median(v)
    print(f"{sys.argv[1].rsplit('/', 1)[-1]}: {mode:9s} median {med:.3f} (min {min(v):.3f}, max {max(v):.3f}, n={len(v)})"
          f"  x{med / base:.3f}")
PY
done
