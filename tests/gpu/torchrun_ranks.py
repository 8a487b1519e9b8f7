"""Two ranks under torchrun on one GPU: every rank reads its loss back once
per step; rank 1 also reads a metric back every step (the straggler).
    torchrun --nproc-per-node 2 tests/gpu/torchrun_ranks.py [STEPS]
"""
import os
import sys

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
rank = int(os.environ.get("RANK", "0"))
torch.cuda.set_device(0)  # one GPU is enough: the ranks are independent
torch.manual_seed(rank)
model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 1)).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(256, 512, device="cuda")
y = torch.randn(256, 1, device="cuda")
for step in range(steps):
    optimizer.zero_grad(set_to_none=True)
    out = model(x)
    loss = torch.nn.functional.mse_loss(out, y)
    loss.backward()
    optimizer.step()
    value = loss.item()  # every rank: 1 sync per step
    if rank == 1:
        peak = out.max().item()  # straggler: rank 1 only
torch.cuda.synchronize()
print(f"rank {rank}: last loss {value:.4f}")
