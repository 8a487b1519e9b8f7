"""Timing steps with torch.cuda.synchronize(): a full device sync per step."""
import time

import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
times = []
for step in range(STEPS):
    t0 = time.perf_counter()
    train_step(model, optimizer, x, y)
    torch.cuda.synchronize()  # expect: hidden-sync op=synchronize
    times.append(time.perf_counter() - t0)
print(f"synchronize_timing: median {sorted(times)[len(times) // 2] * 1e3:.2f} ms")
