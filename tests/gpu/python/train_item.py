"""A small PyTorch training loop for tests/gpu/check_python.sh: `item_step`
reads the loss with `.item()` every step, at the line marked
`# the .item() line`; `fixed_step` is its twin, which keeps the loss on the
GPU.

    python train_item.py [STEPS]     the loop with .item() every step
"""
import sys

import torch


def model_and_data(batch=256, width=512, depth=4):
    torch.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(width, 1)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(batch, width, device="cuda")
    y = torch.randn(batch, 1, device="cuda")
    return model, optimizer, x, y


def forward_backward(model, optimizer, x, y):
    optimizer.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def item_step(state, history):
    loss = forward_backward(*state)
    history.append(loss.item())  # the .item() line


def fixed_step(state, total):
    loss = forward_backward(*state)
    return total + loss.detach()


def warm_up(state, steps=3):
    """Allocations, cuBLAS's start-up: outside any recorded block."""
    total = torch.zeros((), device="cuda")
    for _ in range(steps):
        total = fixed_step(state, total)
    torch.cuda.synchronize()


def item_line():
    """The line number of `# the .item() line` in this file."""
    with open(__file__) as f:
        return next(n for n, text in enumerate(f, 1) if text.rstrip().endswith("# the .item() line"))


if __name__ == "__main__":
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    state = model_and_data()
    history = []
    for _ in range(steps):
        item_step(state, history)
    print("train_item: %d steps, last loss %.4f" % (steps, history[-1]))
