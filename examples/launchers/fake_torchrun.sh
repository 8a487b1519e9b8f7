#!/bin/sh
# A stand-in for `torchrun --nproc-per-node N`: starts N ranks of a worker
# with RANK, LOCAL_RANK and WORLD_SIZE set, the ways real launchers do —
# directly, through a shell wrapper that `exec`s, through `env` — plus a
# helper process that never touches CUDA (like a DataLoader worker), then
# waits for all and fails if any failed.
#   fake_torchrun.sh NPROC WORKER [ARGS...]
set -u
nproc=$1; shift
export WORLD_SIZE=$nproc
pids=""
rank=0
while [ "$rank" -lt "$nproc" ]; do
  case $((rank % 3)) in
    0) RANK=$rank LOCAL_RANK=$rank "$@" & ;;
    1) RANK=$rank LOCAL_RANK=$rank sh -c 'exec "$@"' worker "$@" & ;;
    2) env RANK=$rank LOCAL_RANK=$rank "$@" & ;;
  esac
  pids="$pids $!"
  rank=$((rank + 1))
done
sleep 0.1 &          # a helper process without CUDA
pids="$pids $!"
status=0
for pid in $pids; do
  wait "$pid" || status=1
done
exit $status
