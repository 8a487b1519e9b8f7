"""Accelerate with a hand-written training loop: an MLP classifier on random
data, mixed precision fp16, 300 steps.

The user's script is what an Accelerate user writes: a model, an optimizer,
a DataLoader with pin_memory=True and a scheduler passed through
`accelerator.prepare`, then the loop: forward, `accelerator.backward(loss)`,
`accelerator.clip_grad_norm_`, `optimizer.step()`, and a log line every 20
steps.

Planted sites (the machine-readable lines below; format in
tests/gpu/check_libraries.py). Seen on an H200 with torch 2.11.0 and
accelerate 1.15.0, at operations.py:160 and optimizer.py:173:
- accelerate/utils/operations.py, send_to_device: the prepared DataLoader
  moves each batch to the GPU with non_blocking=False (Accelerate's default
  DataLoaderConfiguration): a blocking copy of a pinned tensor (copy, then a
  stream sync) for x and y, 2 per step, reached from the user's
  `for x, y in train_loader:`.
- accelerate/optimizer.py, step (AcceleratedOptimizer.step): with fp16,
  Accelerate steps through torch's GradScaler, whose _maybe_opt_step reads
  found_inf with `.item()` to decide whether to skip the step: 1 per step,
  reached from the user's `optimizer.step()`. (The frame that syncs is
  torch/amp/grad_scaler.py; the innermost frame outside torch is
  Accelerate's.)
- the user's own log line: `loss.item()` every LOG_EVERY=20 steps.
Not planted: the default-stream findings at send_to_device (the batch copies
queue on the compute stream).
"""
# check-steps: 300
# planted: hidden-sync sync=accelerate/utils/operations.py:send_to_device op=copy-to-device-pinned per_step=2 user=accelerate_loop.py:train_loader:
# planted: hidden-sync sync=accelerate/optimizer.py:step op=item per_step=1 user=accelerate_loop.py:optimizer.step()
# planted: hidden-sync sync=accelerate_loop.py:main op=item per_step=0.05 every=20 user=accelerate_loop.py:loss.item()
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

FEATURES, HIDDEN, CLASSES, BATCH = 512, 1024, 10, 256
LOG_EVERY = 20


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    torch.manual_seed(0)
    accelerator = Accelerator(mixed_precision="fp16")
    model = nn.Sequential(
        nn.Linear(FEATURES, HIDDEN), nn.ReLU(),
        nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
        nn.Linear(HIDDEN, CLASSES),
    )
    data = TensorDataset(torch.randn(steps * BATCH, FEATURES), torch.randint(0, CLASSES, (steps * BATCH,)))
    train_loader = DataLoader(data, batch_size=BATCH, shuffle=True, pin_memory=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)
    model, optimizer, train_loader, scheduler = accelerator.prepare(model, optimizer, train_loader, scheduler)

    model.train()
    step = 0
    for x, y in train_loader:
        loss = F.cross_entropy(model(x), y)
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        if step % LOG_EVERY == 0:
            accelerator.print(f"step {step}: loss {loss.item():.4f}")
    accelerator.end_training()
    print("done")


if __name__ == "__main__":
    main()
