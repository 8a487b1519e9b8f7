"""A buffer that grows every step: each size is new to the caching allocator."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
for step in range(STEPS):
    scratch = torch.empty((step + 1) * (8 << 20), dtype=torch.uint8, device="cuda")  # expect: allocator-churn
    train_step(model, optimizer, x, y)
    del scratch
torch.cuda.synchronize()
print("growing_shapes: done")
