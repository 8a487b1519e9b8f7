"""Fixed: pinned host batches (what DataLoader(pin_memory=True) gives)."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, _, y = model_and_data()
host_batches = [torch.randn(256, 512).pin_memory() for _ in range(4)]
for step in range(STEPS):
    x = host_batches[step % 4].to("cuda", non_blocking=True)
    train_step(model, optimizer, x, y)
torch.cuda.synchronize()
print("pageable_batches_fixed: done")
