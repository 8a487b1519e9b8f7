"""readback_host_bound.py fixed: the losses stay on the GPU and are read
once, after training (issue 27's what-if twin). Otherwise the same program:
well under 0.1 ms of GPU work and about 1 ms of host work a step.

    python3 readback_host_bound_fixed.py [STEPS]
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
    losses.append(loss.detach())
print(f"readback_host_bound_fixed: {steps} steps, last loss {torch.stack(losses)[-1].item():.4f}")
