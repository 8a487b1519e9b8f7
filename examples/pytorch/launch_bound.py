"""A launch-bound training loop: a deep, narrow MLP whose kernels each run
for a microsecond or two, shorter than the host takes to launch them.

The GPU waits for the host most of each step (issue 13: reported as
launch-bound). Nothing in it synchronises until the end.

    python3 launch_bound.py [STEPS]
"""
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
torch.manual_seed(0)
layers = []
for _ in range(16):
    layers += [torch.nn.Linear(64, 64), torch.nn.ReLU()]
model = torch.nn.Sequential(*layers).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(32, 64, device="cuda")
torch.cuda.synchronize()
t0 = time.perf_counter()
for step in range(steps):
    optimizer.zero_grad(set_to_none=True)
    model(x).square().mean().backward()
    optimizer.step()
torch.cuda.synchronize()
print(f"launch_bound: {steps} steps, {(time.perf_counter() - t0) / steps * 1e3:.3f} ms/step")
