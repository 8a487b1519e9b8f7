"""Fixed twin of overlap_copies.py: batches copied on a side stream into two
buffers, ordered with the compute stream by events.

The copy for step N runs while step N-1's kernels still run. The compute
stream waits for the copy (ready[i]); the copy into a buffer waits until the
compute stream is done reading it two steps earlier (free[i]). No
allocation, no host wait.
"""
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 60
torch.manual_seed(0)
width = 4096
model = torch.nn.Sequential(*[torch.nn.Linear(width, width) for _ in range(4)]).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
host_batches = [torch.randn(1024, width).pin_memory() for _ in range(2)]  # 16 MiB each
buffers = [torch.empty(1024, width, device="cuda") for _ in range(2)]
ready = [torch.cuda.Event() for _ in range(2)]
free = [torch.cuda.Event() for _ in range(2)]
copy_stream = torch.cuda.Stream()
compute = torch.cuda.current_stream()
torch.cuda.synchronize()
t0 = time.perf_counter()
for step in range(steps):
    i = step % 2
    with torch.cuda.stream(copy_stream):
        copy_stream.wait_event(free[i])
        buffers[i].copy_(host_batches[i], non_blocking=True)
        ready[i].record(copy_stream)
    compute.wait_event(ready[i])
    optimizer.zero_grad(set_to_none=True)
    model(buffers[i]).square().mean().backward()
    optimizer.step()
    free[i].record(compute)
torch.cuda.synchronize()
print(f"overlap_copies_fixed: {steps} steps, {(time.perf_counter() - t0) / steps * 1e3:.2f} ms/step")
