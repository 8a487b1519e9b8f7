"""The classic hidden sync: reading a loss with .item() every step.

Each .item() is a 4-byte device-to-host cudaMemcpyAsync followed by a
cudaStreamSynchronize: the host waits for every queued kernel.
"""
import sys

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
model = torch.nn.Linear(512, 512).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(256, 512, device="cuda")
history = []
for step in range(steps):
    opt.zero_grad(set_to_none=True)
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    history.append(loss.item())  # the hidden sync
print(f"item_sync: {steps} steps, last loss {history[-1]:.4f}")
