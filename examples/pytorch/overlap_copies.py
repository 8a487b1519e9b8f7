"""GPU-bound training fed by 16 MiB batch copies on the compute stream.

Half of the overlap pair (issue 13). The copy is pinned, asynchronous and
lands in a preallocated buffer, yet on the one stream it waits for the
previous step's kernels and the next kernels wait for it: the GPU runs
copies and kernels in turn. `overlap_copies_fixed.py` copies on a side
stream instead.

    python3 overlap_copies.py [STEPS]
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
torch.cuda.synchronize()
t0 = time.perf_counter()
for step in range(steps):
    x = buffers[step % 2]
    x.copy_(host_batches[step % 2], non_blocking=True)  # expect: default-stream
    optimizer.zero_grad(set_to_none=True)
    model(x).square().mean().backward()
    optimizer.step()
torch.cuda.synchronize()
print(f"overlap_copies: {steps} steps, {(time.perf_counter() - t0) / steps * 1e3:.2f} ms/step")
