"""A training job that runs for a while on its own, for `syncscope attach`.

Started without syncscope; attach to it, record, detach, and it carries on.
Logs each step's wall time so the step time before, during and after a
recording can be compared, and exits with a status of its own choosing.

    python3 long_training.py SECONDS [--step-log FILE] [--exit-code N]
"""
import argparse
import sys
import time

import torch

from _common import model_and_data, train_step

parser = argparse.ArgumentParser()
parser.add_argument("seconds", type=int)
parser.add_argument("--step-log", default=None)
parser.add_argument("--exit-code", type=int, default=0)
args = parser.parse_args()

model, optimizer, x, y = model_and_data()
log = open(args.step_log, "w", buffering=1 << 16) if args.step_log else None
end = time.monotonic() + args.seconds
steps = 0
last = time.monotonic()
while last < end:
    loss = train_step(model, optimizer, x, y)
    value = loss.item()  # expect: hidden-sync
    steps += 1
    now = time.monotonic()
    if log:
        log.write(f"{now:.6f} {(now - last) * 1e3:.4f}\n")
    last = now
if log:
    log.close()
print(f"long_training: {steps} steps, last loss {value:.4f}", flush=True)
sys.exit(args.exit_code)
