"""What a watch() costs a training loop it is not around, for
tests/gpu/check_python.sh: LOOPS times, a different part of the program
(a few matmuls, no sync) runs — inside `syncscope.watch()` in mode `watch`,
bare in mode `plain` — then STEPS training steps with .item() run, timed,
outside any watch. Prints one JSON object: the median step time over the
loops, the median time a watch took (enter to exit, report included), and
how many watches saw the training loop's .item() line (must be 0: nothing is
recorded outside a block).

    python watch_overhead.py plain|watch [LOOPS] [STEPS]
"""
import json
import statistics
import sys
import time

import torch

import train_item

mode = sys.argv[1]
loops = int(sys.argv[2]) if len(sys.argv) > 2 else 5
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 100
if mode == "watch":
    import syncscope

state = train_item.model_and_data()
train_item.warm_up(state)
other = torch.randn(1024, 1024, device="cuda")
item_line = train_item.item_line()


def other_part():
    global other
    for _ in range(10):
        other = torch.tanh(other @ other * 1e-3)


step_us, watch_ms, outside_seen = [], [], 0
history = []
for _ in range(steps):  # the first timed loop should not pay for anything first-time
    train_item.item_step(state, history)
for loop in range(loops):
    if mode == "watch":
        t0 = time.perf_counter()
        with syncscope.watch() as w:
            other_part()
        watch_ms.append((time.perf_counter() - t0) * 1e3)
        outside_seen += any(f.line == item_line and f.file.endswith("train_item.py") for f in w.findings)
    else:
        other_part()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        train_item.item_step(state, history)
    torch.cuda.synchronize()
    step_us.append((time.perf_counter() - t0) / steps * 1e6)
print(json.dumps({"mode": mode, "median_step_us": statistics.median(step_us),
                  "median_watch_ms": statistics.median(watch_ms) if watch_ms else None,
                  "outside_seen": outside_seen, "step_us": step_us}))
