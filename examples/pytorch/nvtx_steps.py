"""A training loop without torch.optim whose steps are NVTX ranges.

Hand-written SGD (no optimizer.step() for syncscope to mark), each step
inside `torch.cuda.nvtx.range_push("train_step")`, with forward and backward
ranges nested in it and an evaluation range every 10 steps. syncscope takes
the ranges through the NVTX injection interface (docs/nvtx.md): the report's
phase is "train_step", and the .item() is found at its line.

    python3 nvtx_steps.py [STEPS]
"""
import sys

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 100
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 1)).cuda()
x = torch.randn(256, 512, device="cuda")
y = torch.randn(256, 1, device="cuda")
lr = 1e-3
losses = []
for step in range(steps):
    torch.cuda.nvtx.range_push("train_step")
    torch.cuda.nvtx.range_push("forward")
    loss = torch.nn.functional.mse_loss(model(x), y)
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("backward")
    model.zero_grad(set_to_none=True)
    loss.backward()
    torch.cuda.nvtx.range_pop()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(p.grad, alpha=-lr)
    losses.append(loss.item())  # expect: hidden-sync
    torch.cuda.nvtx.range_pop()
    if step % 10 == 9:
        torch.cuda.nvtx.range_push("eval")
        with torch.no_grad():
            model(x).mean()
        torch.cuda.nvtx.range_pop()
print(f"nvtx_steps: {steps} steps, last loss {losses[-1]:.4f}")
