"""A training loop that reads its loss with .item() every step and then
leaves with os._exit(0), as launchers, DataLoader workers and frameworks
that skip teardown do: no atexit handler runs. Under a gate the recording
must still be judged (the recorder's _exit hook writes the trace's end), or
fail closed; it must never pass.

    python3 exit_with_os_exit.py STEPS
"""
import os
import sys

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512)).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(256, 512, device="cuda")
total = 0.0
for step in range(steps):
    optimizer.zero_grad(set_to_none=True)
    loss = model(x).square().mean()
    loss.backward()
    optimizer.step()
    total += loss.item()  # expect: hidden-sync
print(f"exit_with_os_exit: {steps} steps, loss sum {total:.3f}", flush=True)
os._exit(0)
