"""A GPU-bound loop with host work each step, reading its loss with .item()
every step: the what-if twin of readback_gpu_bound_fixed.py (issue 27).

Each step queues about 5 ms of GPU work (six 2048-wide layers, batch 2048)
and does about 1 ms of host work of its own (shuffling a sample order, as a
data pipeline does). Without a sync the host's work hides under the GPU's;
the .item() makes the host wait for the queue to drain, so the next step's
host work runs with the GPU idle: the fix saves about that host work a step.
The fixed twin differs in that one line.

    python3 readback_gpu_bound.py [STEPS]
"""
import random
import sys

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 60
torch.manual_seed(0)
width = 2048
model = torch.nn.Sequential(*[torch.nn.Linear(width, width) for _ in range(6)]).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
x = torch.randn(2048, width, device="cuda")
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
print(f"readback_gpu_bound: {steps} steps, last loss {losses[-1]:.4f}")
