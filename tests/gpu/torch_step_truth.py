#!/usr/bin/env python3
"""An oracle for the examples' per-step truths that does not use syncscope:
runs a training script under PyTorch's own instrumentation and prints, per
optimizer step, the syncs PyTorch warns about (torch.cuda.set_sync_debug_mode:
.item(), print(tensor), nonzero, masked indexing, blocking copies; not
cudaFree or empty_cache) and the caching allocators' device and pinned-host
allocation counters. Consecutive steps with the same counts are merged.

    python3 tests/gpu/torch_step_truth.py examples/pytorch/realistic/lstm_lm.py 40

"step k" covers what happened after optimizer step k-1 up to optimizer step k
(the forward, backward and step of training step k, and whatever the loop did
after step k-1: logging, evaluation, checkpoints); the last line also holds
what happened after the last optimizer step up to the exit that is covered by
the hooks (syncs only). Used to check the corpus of examples/pytorch/realistic:
every fixed twin shows nothing from step 3 to the last step.
"""
import collections
import os
import runpy
import sys
import time
import warnings

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

script = os.path.abspath(sys.argv[1])
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(script))
step = 0
events = collections.defaultdict(collections.Counter)  # step -> what happened since the previous step
previous = None


def counters():
    device = torch.cuda.memory_stats() if torch.cuda.is_initialized() else {}
    try:
        host = torch.cuda.host_memory_stats()
    except (AttributeError, RuntimeError):
        host = {}
    return {"device_alloc": device.get("num_device_alloc", 0), "device_free": device.get("num_device_free", 0),
            "host_alloc": host.get("num_host_alloc", 0)}


def after_step(optimizer, args, kwargs):
    global step, previous
    step += 1
    now = counters()
    if previous is not None:
        for name, value in now.items():
            if value - previous[name]:
                events[step][name] += value - previous[name]
    previous = now


register_optimizer_step_post_hook(after_step)
warnings.simplefilter("always")
show_warning = warnings.showwarning


def on_warning(message, category, filename, lineno, file=None, line=None):
    if "synchroniz" in str(message):
        events[step + 1]["sync"] += 1
    else:
        show_warning(message, category, filename, lineno, file, line)


warnings.showwarning = on_warning
torch.cuda.set_sync_debug_mode("warn")
t0 = time.time()
try:
    runpy.run_path(script, run_name="__main__")
finally:
    rows = []
    for k in sorted(events):
        text = ", ".join(f"{name}={n}" for name, n in sorted(events[k].items()))
        if k > step:
            text += " (after the last optimizer step)"
        if rows and rows[-1][2] == text and rows[-1][1] == k - 1:
            rows[-1][1] = k
        else:
            rows.append([k, k, text])
    print(f"{os.path.basename(script)}: {step} optimizer steps in {time.time() - t0:.1f}s", file=sys.stderr)
    for first, last, text in rows:
        label = f"step {first}" if first == last else f"steps {first}-{last}"
        print(f"  {label}: {text}" + (" each" if first != last else ""), file=sys.stderr)
