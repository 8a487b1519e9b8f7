"""Fixed: time with CUDA events, read once after the loop. PyTorch creates
an Event's CUDA event at its first record(), a driver call each: the events
are made (recorded once) before the loop, so the loop only records them."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(STEPS)]
for start, end in events:
    start.record()
    end.record()
for step in range(STEPS):
    start, end = events[step]
    start.record()
    train_step(model, optimizer, x, y)
    end.record()
torch.cuda.synchronize()
times = sorted(s.elapsed_time(e) for s, e in events)
print(f"synchronize_timing_fixed: median {times[len(times) // 2]:.2f} ms")
