"""A GPU-bound training loop that reads its loss with .item() every step.

The host runs ahead of the GPU until the .item(): it then waits for the
queue to drain, and after it returns the GPU idles until the next step's
Python has launched work again. With the GPU timeline (issue 13) the
finding shows that idle time per step at the .item() line.

    python3 item_gpu_bound.py [STEPS]
"""
import sys

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 60
torch.manual_seed(0)
width = 2048
model = torch.nn.Sequential(*[torch.nn.Linear(width, width) for _ in range(6)]).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(2048, width, device="cuda")
losses = []
for step in range(steps):
    optimizer.zero_grad(set_to_none=True)
    loss = model(x).square().mean()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())  # expect: hidden-sync
print(f"item_gpu_bound: {steps} steps, last loss {losses[-1]:.4f}")
