"""Shared set-up for the PyTorch examples: a small model, data and steps.

Each example marks the line syncscope must report with a comment
`# expect: CATEGORY`; tests/gpu/check_findings.py reads those marks.
Fixed twins (`*_fixed.py`) carry no mark and must come out clean in steady
state.
"""
import sys

import torch

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 60


def model_and_data(batch=256, width=512):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.ReLU(), torch.nn.Linear(width, 1)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(batch, width, device="cuda")
    y = torch.randn(batch, 1, device="cuda")
    return model, optimizer, x, y


def train_step(model, optimizer, x, y):
    optimizer.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss
