"""Fixed: time with CUDA events, read once after the loop."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
events = []
for step in range(STEPS):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    train_step(model, optimizer, x, y)
    end.record()
    events.append((start, end))
torch.cuda.synchronize()
times = sorted(s.elapsed_time(e) for s, e in events)
print(f"synchronize_timing_fixed: median {times[len(times) // 2]:.2f} ms")
