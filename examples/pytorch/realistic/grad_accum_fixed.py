"""grad_accum.py fixed: the same accumulation loop; the per-step progress
line goes through AsyncScalarLog (_train_utils.py), which copies loss_accum
into pinned host memory with non_blocking=True and prints it once the copy's
event has completed, instead of loss_accum.item(). Evaluation and checkpoint
stay one-offs after training.
Expected: no steady-state finding at all.
"""
import math
import os
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from _train_utils import AsyncScalarLog, steps_from_argv

FEATURES, WIDTH, DEPTH, CLASSES = 64, 256, 4, 8
MICRO_BATCH, ACCUM_STEPS, EVAL_BATCHES = 64, 4, 8
MAX_LR, MIN_LR = 3e-3, 3e-4
CHECKPOINT = os.path.join(tempfile.gettempdir(), "syncscope-realistic", "grad_accum_fixed.pt")


class ResidualBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(FEATURES, WIDTH)
        self.blocks = nn.Sequential(*[ResidualBlock(WIDTH) for _ in range(DEPTH)])
        self.norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, CLASSES)

    def forward(self, x, targets=None):
        logits = self.head(self.norm(self.blocks(self.embed(x))))
        loss = F.cross_entropy(logits, targets) if targets is not None else None
        return logits, loss


class SyntheticTask:
    """Samples on the GPU; the label is the argmax of a fixed random projection."""

    def __init__(self, seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        self.projection = torch.randn(FEATURES, CLASSES, device="cuda", generator=g)

    def batch(self, size):
        x = torch.randn(size, FEATURES, device="cuda")
        return x, (x @ self.projection).argmax(dim=1)


def get_lr(step, steps):
    warmup = max(1, steps // 10)
    if step < warmup:
        return MAX_LR * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return MIN_LR + 0.5 * (1.0 + math.cos(math.pi * progress)) * (MAX_LR - MIN_LR)


@torch.no_grad()
def evaluate(model, task):
    model.eval()
    correct = torch.zeros((), device="cuda")
    for _ in range(EVAL_BATCHES):
        x, y = task.batch(MICRO_BATCH)
        logits, _ = model(x)
        correct += (logits.argmax(dim=1) == y).sum()
    model.train()
    return correct / (EVAL_BATCHES * MICRO_BATCH)


def main():
    steps = steps_from_argv()
    torch.manual_seed(0)
    task = SyntheticTask(seed=1)
    model = Classifier().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=MAX_LR, weight_decay=0.01)
    os.makedirs(os.path.dirname(CHECKPOINT), exist_ok=True)
    print(f"grad_accum_fixed: {steps} steps of {ACCUM_STEPS} x {MICRO_BATCH} samples")

    log = AsyncScalarLog()
    for step in range(steps):
        t0 = time.time()
        optimizer.zero_grad(set_to_none=True)
        loss_accum = torch.zeros((), device="cuda")
        for micro_step in range(ACCUM_STEPS):
            x, y = task.batch(MICRO_BATCH)
            _, loss = model(x, y)
            loss = loss / ACCUM_STEPS  # the gradients add up over the micro-batches: scale each
            loss_accum += loss.detach()
            loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        lr = get_lr(step, steps)
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr
        optimizer.step()
        dt = time.time() - t0
        log.log(f"step {step:4d}", loss=loss_accum, lr=lr, dt_ms=dt * 1000)
    log.flush()

    accuracy = evaluate(model, task).item()
    print(f"grad_accum_fixed: eval accuracy {accuracy:.3f}")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": steps}, CHECKPOINT)


if __name__ == "__main__":
    main()
