"""Fixed: allocate the largest buffer once and use slices of it."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
arena = torch.empty(STEPS * (8 << 20), dtype=torch.uint8, device="cuda")
for step in range(STEPS):
    scratch = arena[: (step + 1) * (8 << 20)]
    train_step(model, optimizer, x, y)
torch.cuda.synchronize()
print("growing_shapes_fixed: done")
