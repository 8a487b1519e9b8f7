"""A host-bound loop reading its loss with .item() every step: the what-if
twin of readback_host_bound_fixed.py (issue 27), and readback_gpu_bound.py's
counterpart with little GPU work.

Each step queues well under 0.1 ms of GPU work (six 256-wide layers, batch
256) and does about 1 ms of host work of its own (shuffling a sample order,
as a data pipeline does), so the GPU has finished by the time .item() waits:
the wait is the GPU's short tail, and fixing it saves about that plus the
read-back's own calls. The fixed twin differs in that one line, so the
twins differ in the sync alone (unlike fixes that change what the host does
besides: docs/what-if.md, "Second run").

    python3 readback_host_bound.py [STEPS]
"""
import random
import sys

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 60
torch.manual_seed(0)
width = 256
model = torch.nn.Sequential(*[torch.nn.Linear(width, width) for _ in range(6)]).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
x = torch.randn(256, width, device="cuda")
order = list(range(3000))
sampler = random.Random(0)
losses = []
for step in range(steps):
    sampler.shuffle(order)  # the host's own work a step
    optimizer.zero_grad(set_to_none=True)
    loss = model(x).square().mean()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())  # expect: hidden-sync op=item
print(f"readback_host_bound: {steps} steps, last loss {losses[-1]:.4f}")
